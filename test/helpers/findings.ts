import { Registry } from '../../src/registry/registry.js';
import { defaultRegistryDir } from '../../src/paths.js';

let registry: Registry | undefined;

/** The compiled registry the test services use, opened once per test file. */
export function testRegistry(): Registry {
  registry ??= Registry.open(defaultRegistryDir);
  return registry;
}

/** Signals whose primary mapping (confidence ≥ 0.7) lands on distinct controls of `framework`. */
export function primarySignals(framework: string, count: number): Array<{ signal_id: string; control_id: string }> {
  const reg = testRegistry();
  const picked: Array<{ signal_id: string; control_id: string }> = [];
  const controls = new Set<string>();
  for (const id of reg.signalIds({ domain: framework })) {
    const primaries = reg.mappingsOfSignal(id).filter((m) => m.framework === framework && m.relationship === 'primary' && m.confidence >= 0.7);
    // One primary control per signal keeps expectations unambiguous.
    if (primaries.length !== 1 || controls.has(primaries[0].control_id)) continue;
    controls.add(primaries[0].control_id);
    picked.push({ signal_id: id, control_id: primaries[0].control_id });
    if (picked.length === count) break;
  }
  if (picked.length < count) throw new Error(`only ${picked.length} single-primary signals in ${framework}`);
  return picked;
}

export function finding(id: string, signal_id: string, status = 'open', extra: Record<string, unknown> = {}) {
  return { id, signal_id, status, observed_at: '2026-11-20T10:00:00Z', ...extra };
}
