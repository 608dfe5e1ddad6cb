/**
 * Derivations over the checked model: mappings that follow from published crosswalks, the
 * control-to-control crosswalk records, framework overlaps and per-signal framework coverage.
 * The formulas are documented in docs/registry.md ("Derived data"); keep the two in step.
 */
import { type Relationship } from '../../src/schemas/registry-source.js';
import { GAP_FRAMEWORK_CODES } from '../../src/core/vocabulary.js';
import type { ControlCrosswalk, CrosswalkRelationship, FrameworkOverlap, MappingProvenance, SignalCoverage } from '../../src/schemas/registry.js';
import { CrosswalkLinks, expandCrosswalk, type ControlPair, type CrosswalkLink, type RowRelationship } from './crosswalk-pairs.js';
import { byString, type ControlNode, type RegistryModel, type SignalNode } from './model.js';

export interface MappingNode {
  signal_id: string;
  framework: string;
  control_id: string;
  control_title: string;
  relationship: Relationship;
  confidence: number;
  rationale: string;
  provenance: MappingProvenance;
  derived: boolean;
}

/** A primary mapping at least this confident is the starting point of crosswalk derivation. */
export const DERIVATION_SOURCE_MIN_CONFIDENCE = 0.8;
export const DERIVED_MIN_CONFIDENCE = 0.5;
export const DERIVED_MAX_CONFIDENCE = 0.8;
/** Strong rows (equal, or the source control a subset of the target) to at most this many controls of one framework reach the default threshold. */
export const STRONG_FAN_OUT = 3;
/** Confidence of a derivation through a strong row, before the source's own confidence lifts it. */
export const STRONG_BASE = 0.7;
/** Weak derivations stay below the default gap threshold (0.7) by construction. */
export const WEAK_MAX = 0.65;
/**
 * Below this a derivation carries almost nothing but the crosswalk's fan-out (one control related
 * to many controls of a framework): it is not emitted, so the mapping list stays signal, not noise.
 */
export const DERIVED_MIN_USEFUL_CONFIDENCE = 0.55;

/** How much a published relationship says about the target control, 0..1, seen from the source control. */
const ROW_STRENGTH: Record<RowRelationship, number> = {
  equal: 1,
  subset: 0.8,
  superset: 0.6,
  intersect: 0.6,
  related: 0.6,
  supports: 0.6,
  'is supported by': 0.6,
};

const round2 = (x: number) => Math.round(x * 100) / 100;
const round1 = (x: number) => Math.round(x * 10) / 10;

/** A row says the target control is (part of) what the source control requires: equal, or the source is a subset of the target. */
export function isStrongRow(relationship: RowRelationship, viaRevision4: boolean): boolean {
  return !viaRevision4 && (relationship === 'equal' || relationship === 'subset');
}

/**
 * Strong row to at most STRONG_FAN_OUT controls of the target framework:
 *   confidence = 0.7 + 0.1 × (source confidence − 0.8) / 0.2, in [0.7, 0.8].
 * Any other row (intersect, related, supports, superset, a Rev 4 id, or a strong row fanning out
 * to more controls): confidence = 0.5 + 0.15 × strength(relationship) × min(1, 3 / fan-out) × source confidence,
 * at most 0.65, so it never opens a gap at the default threshold on its own.
 */
export function derivedConfidence(relationship: RowRelationship, viaRevision4: boolean, fanOut: number, sourceConfidence: number): number {
  if (isStrongRow(relationship, viaRevision4) && fanOut <= STRONG_FAN_OUT) {
    return Math.min(DERIVED_MAX_CONFIDENCE, round2(STRONG_BASE + (DERIVED_MAX_CONFIDENCE - STRONG_BASE) * Math.max(0, sourceConfidence - DERIVATION_SOURCE_MIN_CONFIDENCE) / 0.2));
  }
  const value = round2(DERIVED_MIN_CONFIDENCE + (WEAK_MAX - DERIVED_MIN_CONFIDENCE) * ROW_STRENGTH[relationship] * Math.min(1, STRONG_FAN_OUT / fanOut) * sourceConfidence);
  return Math.min(WEAK_MAX, Math.max(DERIVED_MIN_CONFIDENCE, value));
}

export function frameworkRank(model: RegistryModel): (code: string) => number {
  const rank = new Map(model.frameworks.map((f, i) => [f.code, i]));
  return (code) => rank.get(code) ?? Number.MAX_SAFE_INTEGER;
}

function controlOf(model: RegistryModel, framework: string, id: string): ControlNode | undefined {
  return model.frameworkByCode.get(framework)?.byId.get(id);
}

/** Pairs of the crosswalks we may serve: a file marked serve: false (its licence) derives nothing. */
export function crosswalkPairs(model: RegistryModel): ControlPair[] {
  return model.crosswalks.filter((crosswalk) => crosswalk.serve).flatMap((crosswalk) => expandCrosswalk(crosswalk, model.frameworkByCode).pairs);
}

interface Candidate extends MappingNode {
  /** Tie-break key so the same sources always pick the same derivation. */
  order: string;
}

/** A generated technical signal: its controls are the tools' claims, or inherited from its 1.0.0 topic. */
export function isTechnical(signal: SignalNode): boolean {
  if (signal.domain !== 'GEN') return false;
  return signal.inherits_topic !== undefined || (signal.mappings.length > 0 && signal.mappings.every((m) => m.provenance.kind === 'scanner_rule'));
}

function deriveForSignal(model: RegistryModel, links: CrosswalkLinks, signal: SignalNode): MappingNode[] {
  // Technical signals take their frameworks from the tools' own claims, which already name every
  // framework a tool maps; crosswalks extend the signals written by people (issue 11).
  if (isTechnical(signal)) return [];
  const authored = new Set(signal.mappings.map((m) => `${m.framework}|${m.control}`));
  const best = new Map<string, Candidate>();
  for (const source of signal.mappings) {
    if (source.relationship !== 'primary' || source.confidence < DERIVATION_SOURCE_MIN_CONFIDENCE) continue;
    const sourceControl = controlOf(model, source.framework, source.control);
    if (!sourceControl) continue;
    const outgoing = links.of(source.framework, source.control);
    const fanOut = new Map<string, Set<string>>();
    for (const link of outgoing) {
      const key = `${link.stem}|${link.framework}`;
      const set = fanOut.get(key) ?? new Set<string>();
      set.add(link.control);
      fanOut.set(key, set);
    }
    for (const link of outgoing) {
      const key = `${link.framework}|${link.control}`;
      if (link.framework === source.framework || authored.has(key)) continue;
      const target = controlOf(model, link.framework, link.control);
      if (!target) continue;
      const n = fanOut.get(`${link.stem}|${link.framework}`)!.size;
      const confidence = derivedConfidence(link.relationship, link.viaRevision4, n, source.confidence);
      if (confidence < DERIVED_MIN_USEFUL_CONFIDENCE) continue;
      const candidate: Candidate = {
        signal_id: signal.id,
        framework: link.framework,
        control_id: link.control,
        control_title: target.title,
        relationship: confidence >= STRONG_BASE ? 'supporting' : 'partial',
        confidence,
        rationale: derivedRationale(link, sourceControl),
        provenance: { kind: 'crosswalk', source: link.stem, via: source.control },
        derived: true,
        order: `${link.stem}|${source.framework}|${source.control}`,
      };
      const current = best.get(key);
      if (!current || isBetter(candidate, current)) best.set(key, candidate);
    }
  }
  return [...best.values()].map(({ order: _order, ...mapping }) => mapping);
}

function isBetter(a: Candidate, b: Candidate): boolean {
  if (a.confidence !== b.confidence) return a.confidence > b.confidence;
  if (a.relationship !== b.relationship) return a.relationship === 'supporting';
  return a.order < b.order;
}

function derivedRationale(link: CrosswalkLink, via: ControlNode): string {
  const viaText = `${via.framework} ${via.id} (${via.title})`;
  const revision = link.viaRevision4 ? ', read through the NIST SP 800-53 Rev 4 id that FedRAMP Rev 5 shares' : '';
  return `Derived from the ${link.publisher} crosswalk (${link.stem}${revision}): the signal is a primary indicator for ${viaText}, and the crosswalk row relating ${via.id} to ${link.control} reads "${link.relationship}" (seen from ${via.id}).`;
}

/** Inherited topic controls never claim more than this: no tool vouches for them. */
export const TOPIC_PRIMARY_CAP = 0.7;

/**
 * A technical signal that no tool claims a requirement for takes the primary controls of the
 * 1.0.0 topic its rules were filed under, at confidence min(topic's, 0.7), as expert judgement.
 */
function inheritedMappings(model: RegistryModel, signal: SignalNode): MappingNode[] {
  const topic = signal.inherits_topic === undefined ? undefined : model.signalById.get(signal.inherits_topic);
  if (!topic) return [];
  // One control per framework (the topic's first primary there): enough for the gap analysis to
  // see the framework, without multiplying every topic mapping by thousands of signals.
  const seen = new Set<string>();
  return topic.mappings
    .filter((m) => m.relationship === 'primary' && m.provenance.kind === 'expert' && !seen.has(m.framework) && !!seen.add(m.framework))
    .map((m) => ({
      signal_id: signal.id,
      framework: m.framework,
      control_id: m.control,
      control_title: controlOf(model, m.framework, m.control)?.title ?? m.control,
      relationship: 'supporting' as const,
      confidence: Math.min(m.confidence, TOPIC_PRIMARY_CAP),
      rationale: `No tool claims a requirement for these rules: inherited from the 1.0.0 topic ${topic.id}, whose primary control this is.`,
      provenance: { kind: 'expert' as const },
      derived: true,
    }));
}

/** Authored mappings plus inherited and crosswalk-derived ones, sorted by signal, framework order, catalog order. */
export function allMappings(model: RegistryModel, pairs: ControlPair[]): MappingNode[] {
  const links = new CrosswalkLinks(pairs);
  const rank = frameworkRank(model);
  const out: MappingNode[] = [];
  for (const signal of model.signals) {
    out.push(...inheritedMappings(model, signal));
    for (const m of signal.mappings) {
      out.push({
        signal_id: signal.id,
        framework: m.framework,
        control_id: m.control,
        control_title: controlOf(model, m.framework, m.control)?.title ?? m.control,
        relationship: m.relationship,
        confidence: m.confidence,
        rationale: m.rationale,
        provenance: { ...m.provenance },
        derived: false,
      });
    }
    out.push(...deriveForSignal(model, links, signal));
  }
  const index = (m: MappingNode) => controlOf(model, m.framework, m.control_id)?.index ?? 0;
  return out.sort(
    (a, b) => byString(a.signal_id, b.signal_id) || rank(a.framework) - rank(b.framework) || index(a) - index(b) || byString(a.control_id, b.control_id),
  );
}

// ---- control-to-control crosswalks ----

const CROSSWALK_RANK: Record<CrosswalkRelationship, number> = { partial: 0, related: 1, equivalent: 2 };

function crosswalkRelationOfRow(relationship: RowRelationship, viaRevision4: boolean): { relationship: CrosswalkRelationship; strength: number } {
  if (viaRevision4) return { relationship: 'partial', strength: 0.5 };
  if (relationship === 'equal') return { relationship: 'equivalent', strength: 0.95 };
  if (relationship === 'subset' || relationship === 'superset') return { relationship: 'related', strength: 0.8 };
  return { relationship: 'partial', strength: 0.6 };
}

/** Controls of two frameworks that share n signals (authored mappings): 0.5, 0.6, 0.7, then 0.8 for 4 or more. */
export function sharedSignalStrength(n: number): { relationship: CrosswalkRelationship; strength: number } {
  return { relationship: n >= 3 ? 'related' : 'partial', strength: round2(Math.min(0.8, 0.4 + 0.1 * n)) };
}

interface CrosswalkBuild {
  a: ControlNode;
  b: ControlNode;
  relationship: CrosswalkRelationship;
  strength: number;
  basis: Set<string>;
  shared: Set<string>;
}

/** Control crosswalk records, each once, oriented by framework order (a before b). */
export function controlCrosswalks(model: RegistryModel, pairs: ControlPair[]): ControlCrosswalk[] {
  const rank = frameworkRank(model);
  const records = new Map<string, CrosswalkBuild>();
  const recordOf = (x: ControlNode, y: ControlNode): CrosswalkBuild => {
    const [a, b] = rank(x.framework) < rank(y.framework) ? [x, y] : [y, x];
    const key = `${a.framework}|${a.id}|${b.framework}|${b.id}`;
    let record = records.get(key);
    if (!record) {
      record = { a, b, relationship: 'partial', strength: 0, basis: new Set(), shared: new Set() };
      records.set(key, record);
    }
    return record;
  };
  const raise = (record: CrosswalkBuild, next: { relationship: CrosswalkRelationship; strength: number }) => {
    if (CROSSWALK_RANK[next.relationship] > CROSSWALK_RANK[record.relationship]) record.relationship = next.relationship;
    record.strength = Math.max(record.strength, next.strength);
  };

  for (const pair of pairs) {
    const a = controlOf(model, pair.fa, pair.ca);
    const b = controlOf(model, pair.fb, pair.cb);
    if (!a || !b) continue;
    const record = recordOf(a, b);
    record.basis.add(pair.stem);
    raise(record, crosswalkRelationOfRow(pair.relationship, pair.viaRevision4));
  }
  for (const signal of model.signals) {
    // Generated technical signals relate controls through a tool's framework map, not through a
    // shared judgement; pairing their many claimed controls would only add noise (and thousands of records).
    if (isTechnical(signal)) continue;
    const controls = signal.mappings
      .map((m) => controlOf(model, m.framework, m.control))
      .filter((c): c is ControlNode => c !== undefined);
    for (let i = 0; i < controls.length; i++) {
      for (let j = i + 1; j < controls.length; j++) {
        if (controls[i].framework === controls[j].framework) continue;
        recordOf(controls[i], controls[j]).shared.add(signal.id);
      }
    }
  }

  const out: ControlCrosswalk[] = [];
  for (const record of records.values()) {
    if (record.shared.size) {
      record.basis.add('shared_signals');
      raise(record, sharedSignalStrength(record.shared.size));
    }
    out.push({
      control_a: { framework: record.a.framework, control_id: record.a.id, title: record.a.title },
      control_b: { framework: record.b.framework, control_id: record.b.id, title: record.b.title },
      shared_signals: [...record.shared].sort(byString),
      strength: record.strength,
      relationship: record.relationship,
      basis: [...record.basis].sort(byString),
    });
  }
  const controlIndex = (ref: { framework: string; control_id: string }) => controlOf(model, ref.framework, ref.control_id)!.index;
  return out.sort(
    (x, y) =>
      rank(x.control_a.framework) - rank(y.control_a.framework) ||
      rank(x.control_b.framework) - rank(y.control_b.framework) ||
      controlIndex(x.control_a) - controlIndex(y.control_a) ||
      controlIndex(x.control_b) - controlIndex(y.control_b),
  );
}

/** The same record seen from control_b's framework. */
export function flipCrosswalk(record: ControlCrosswalk): ControlCrosswalk {
  return { ...record, control_a: record.control_b, control_b: record.control_a };
}

// ---- framework overlaps and signal coverage ----

/**
 * For every pair of gap-analysis frameworks: signals mapped (authored or derived) to both, the
 * number of control crosswalk records between them, and overlap_percentage = shared signals as a
 * percentage of the signals mapped to either framework (one decimal).
 */
export function frameworkOverlaps(model: RegistryModel, mappings: MappingNode[], crosswalks: ControlCrosswalk[]): FrameworkOverlap[] {
  const gap = model.frameworks.filter((f) => (GAP_FRAMEWORK_CODES as readonly string[]).includes(f.code)).map((f) => f.code);
  const signalsOf = new Map<string, Set<string>>(gap.map((code) => [code, new Set()]));
  for (const m of mappings) signalsOf.get(m.framework)?.add(m.signal_id);
  const crosswalkCount = new Map<string, number>();
  for (const c of crosswalks) {
    const key = `${c.control_a.framework}|${c.control_b.framework}`;
    crosswalkCount.set(key, (crosswalkCount.get(key) ?? 0) + 1);
  }
  const out: FrameworkOverlap[] = [];
  for (let i = 0; i < gap.length; i++) {
    for (let j = i + 1; j < gap.length; j++) {
      const a = signalsOf.get(gap[i])!;
      const b = signalsOf.get(gap[j])!;
      let shared = 0;
      for (const id of a) if (b.has(id)) shared++;
      const union = a.size + b.size - shared;
      out.push({
        framework_a: gap[i],
        framework_b: gap[j],
        shared_signals: shared,
        crosswalk_count: crosswalkCount.get(`${gap[i]}|${gap[j]}`) ?? 0,
        overlap_percentage: union ? round1((100 * shared) / union) : 0,
      });
    }
  }
  return out;
}

/** Coverage counts the 11 gap-analysis frameworks only: the listing-only catalogs would double-count FedRAMP's source (800-53). */
export function signalCoverage(model: RegistryModel, mappings: MappingNode[]): SignalCoverage[] {
  const rank = frameworkRank(model);
  const gapFrameworks = new Set(model.frameworks.filter((f) => f.gap_analysis).map((f) => f.code));
  const bySignal = new Map<string, Map<string, string[]>>(model.signals.map((s) => [s.id, new Map()]));
  for (const m of mappings) {
    if (!gapFrameworks.has(m.framework)) continue;
    const frameworks = bySignal.get(m.signal_id)!;
    const controls = frameworks.get(m.framework) ?? [];
    controls.push(m.control_id);
    frameworks.set(m.framework, controls);
  }
  return model.signals.map((signal) => {
    const frameworks = [...bySignal.get(signal.id)!.keys()].sort((a, b) => rank(a) - rank(b));
    return {
      signal_id: signal.id,
      frameworks,
      framework_count: frameworks.length,
      controls_by_framework: Object.fromEntries(frameworks.map((f) => [f, bySignal.get(signal.id)!.get(f)!])),
      is_multi_framework: frameworks.length >= 2,
    };
  });
}
