/**
 * Analyses for the export tests, created through the real API: findings of every status on
 * single-primary signals of each framework, a few cross-framework signals, and finding ids that
 * a spreadsheet would run as formulas.
 */
import { call, type TestService } from '../helpers/service.js';
import { finding, primarySignals, testRegistry } from '../helpers/findings.js';

/** Finding ids a spreadsheet would read as formulas if written raw. */
export const HOSTILE_IDS = {
  /** On a passing finding: appears in a compliant control's finding_ids. */
  hyperlink: '=HYPERLINK("http://evil.example/x","open")',
  /** On a failing finding: appears in a gap's finding_ids. */
  sum: '+SUM(1,2)',
  /** Spaces before the sign: spreadsheets trim them on import (a gap, second framework). */
  spaced: '  =1+2',
  /** A line feed first (a gap, third framework). */
  lineFeed: '\n=1+3',
  /** The fullwidth equals sign (a compliant control, second framework). */
  fullwidth: '＝1+4',
};

/** Per framework position: the ids of its open finding and of its passing one. */
const OPEN_IDS = [HOSTILE_IDS.sum, HOSTILE_IDS.spaced, HOSTILE_IDS.lineFeed];
const PASSING_IDS = [HOSTILE_IDS.hyperlink, HOSTILE_IDS.fullwidth];

/** Signals whose primary mappings (confidence ≥ 0.7) reach at least two of `frameworks`. */
export function crossFrameworkSignals(frameworks: string[], count: number): string[] {
  const registry = testRegistry();
  const picked: string[] = [];
  for (const id of registry.signalIds({ domain: 'GEN' })) {
    const reached = new Set(
      registry
        .mappingsOfSignal(id)
        .filter((m) => m.relationship === 'primary' && m.confidence >= 0.7 && frameworks.includes(m.framework))
        .map((m) => m.framework),
    );
    if (reached.size >= 2) picked.push(id);
    if (picked.length === count) break;
  }
  return picked;
}

export function mixedFindings(frameworks: string[]) {
  const findings = [];
  for (const [index, framework] of frameworks.entries()) {
    const [critical, open, progress, accepted, passing, resolved] = primarySignals(framework, 6);
    findings.push(
      finding(`${framework}-critical`, critical.signal_id, 'open', { severity: { level: 'critical' } }),
      finding(OPEN_IDS[index] ?? `${framework}-open`, open.signal_id, 'open'),
      finding(`${framework}-progress`, progress.signal_id, 'in_progress'),
      finding(`${framework}-accepted`, accepted.signal_id, 'accepted'),
      finding(PASSING_IDS[index] ?? `${framework}-passing`, passing.signal_id, 'false_positive'),
      finding(`${framework}-resolved`, resolved.signal_id, 'resolved'),
    );
  }
  crossFrameworkSignals(frameworks, 3).forEach((signal, i) => findings.push(finding(`cross-${i}`, signal, 'open', { severity: { level: 'high' } })));
  return findings;
}

/** Creates an analysis and returns its id and the stored result (GET :id). */
export async function createAnalysis(service: TestService, key: string, body: unknown): Promise<{ id: string; result: any }> {
  const created = await call(service, 'POST', '/v1/gap-analysis', { key, body });
  if (created.status !== 200) throw new Error(`create failed: ${created.status} ${created.text.slice(0, 300)}`);
  return { id: created.body.data.id, result: created.body };
}

/** POST /v1/gap-analysis/:id/export and the raw bytes of the answer. */
export async function exportFile(service: TestService, key: string, id: string, body: unknown): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(`${service.url}/v1/gap-analysis/${encodeURIComponent(id)}/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}
