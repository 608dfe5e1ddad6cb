/**
 * The evidence of a custom control: its direct signals, and the signal mappings of the built-in
 * controls it corresponds to, carried over by the rule below (docs/custom-frameworks.md states
 * it; test/custom-frameworks/inheritance.test.ts checks the doc and the code agree).
 */
import type { CustomFrameworkFacts } from '../gap/custom-frameworks.js';
import type { MappingRelationship } from '../gap/scoring.js';
import type { CorrespondenceRelationship } from '../schemas/custom-framework.js';
import type { StoredCustomFramework } from './model.js';

/**
 * How a built-in control's mapping (signal → built-in control, with its relationship and
 * confidence) carries over to a custom control through a NIST IR 8477 relationship:
 *
 * - equal: the mapping as it is.
 * - subset_of (the custom control is part of the built-in one): the signal may concern another
 *   part, so a primary mapping becomes supporting, and the confidence is scaled by 0.9.
 * - superset_of (the custom control asks more than the built-in one): the signal covers a part of
 *   it, so the mapping becomes partial, and the confidence is scaled by 0.9.
 * - intersects_with: partial, and the confidence is capped at 0.6, below the analyses' default
 *   min_confidence of 0.7: such evidence counts only where a request lowers min_confidence.
 */
export const INHERITANCE_RULE: Record<
  CorrespondenceRelationship,
  { scale: number; cap: number; relationship: (r: MappingRelationship) => MappingRelationship }
> = {
  equal: { scale: 1, cap: 1, relationship: (r) => r },
  subset_of: { scale: 0.9, cap: 1, relationship: (r) => (r === 'primary' ? 'supporting' : r) },
  superset_of: { scale: 0.9, cap: 1, relationship: () => 'partial' },
  intersects_with: { scale: 1, cap: 0.6, relationship: () => 'partial' },
};

/** The analyses' default min_confidence: below it a mapping does not count unless a request lowers it. */
export const DEFAULT_MIN_CONFIDENCE = 0.7;

export function inheritedMapping(
  through: CorrespondenceRelationship,
  mapping: { relationship: MappingRelationship; confidence: number },
): { relationship: MappingRelationship; confidence: number } {
  const rule = INHERITANCE_RULE[through];
  return { relationship: rule.relationship(mapping.relationship), confidence: Math.round(Math.min(rule.cap, mapping.confidence * rule.scale) * 100) / 100 };
}

/** What resolution reads of the registry. */
export interface InheritanceRegistry {
  signal(id: string): unknown;
  control(
    framework: string,
    id: string,
  ): { mapped_signals: ReadonlyArray<{ signal_id: string; relationship: MappingRelationship; confidence: number }> } | undefined;
}

export interface ResolvedMapping {
  signal_id: string;
  relationship: MappingRelationship;
  confidence: number;
  /** Absent for a direct signal; the built-in control it came through otherwise. */
  via?: { framework: string; control_id: string; relationship: CorrespondenceRelationship };
}

export interface ResolvedControl {
  id: string;
  mappings: ResolvedMapping[];
  /** Signals and built-in controls the definition names that the registry no longer has. */
  unknown: string[];
}

const RELATIONSHIP_STRENGTH: Record<MappingRelationship, number> = { primary: 0, supporting: 1, partial: 2 };

/** The stronger of two mappings of one signal: higher confidence, then primary before supporting before partial. */
function stronger(a: ResolvedMapping, b: ResolvedMapping): ResolvedMapping {
  if (a.confidence !== b.confidence) return a.confidence > b.confidence ? a : b;
  return RELATIONSHIP_STRENGTH[a.relationship] <= RELATIONSHIP_STRENGTH[b.relationship] ? a : b;
}

/**
 * Each control's mappings: its direct signals as written (a direct signal wins over the same
 * signal inherited), then each inherited signal once, through its strongest path. Signals are in
 * id order. What the current registry lacks is skipped and listed.
 */
export function resolveControls(framework: Pick<StoredCustomFramework, 'controls'>, registry: InheritanceRegistry): ResolvedControl[] {
  return framework.controls.map((control) => {
    const unknown: string[] = [];
    const bySignal = new Map<string, ResolvedMapping>();
    for (const target of control.corresponds_to) {
      const builtIn = registry.control(target.framework, target.control_id);
      if (!builtIn) {
        unknown.push(`${target.framework}:${target.control_id}`);
        continue;
      }
      for (const mapping of builtIn.mapped_signals) {
        const inherited: ResolvedMapping = { signal_id: mapping.signal_id, ...inheritedMapping(target.relationship, mapping), via: { ...target } };
        const earlier = bySignal.get(mapping.signal_id);
        bySignal.set(mapping.signal_id, earlier ? stronger(earlier, inherited) : inherited);
      }
    }
    for (const link of control.signals) {
      if (registry.signal(link.signal_id) === undefined) {
        unknown.push(link.signal_id);
        continue;
      }
      bySignal.set(link.signal_id, { signal_id: link.signal_id, relationship: link.relationship, confidence: link.confidence });
    }
    const mappings = [...bySignal.values()].sort((a, b) => (a.signal_id < b.signal_id ? -1 : a.signal_id > b.signal_id ? 1 : 0));
    return { id: control.id, mappings, unknown };
  });
}

/** The framework as the gap engine reads it. */
export function frameworkFacts(framework: StoredCustomFramework, resolved: readonly ResolvedControl[]): CustomFrameworkFacts {
  return {
    code: framework.code,
    name: framework.name,
    version: framework.version,
    revision: framework.revision,
    controls: framework.controls.map((control, i) => ({
      id: control.id,
      title: control.title,
      category: control.category,
      guidance: control.guidance,
      evidence: control.evidence,
      mappings: resolved[i].mappings.map(({ signal_id, relationship, confidence }) => ({ signal_id, relationship, confidence })),
    })),
  };
}
