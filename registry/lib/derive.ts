/**
 * Derivations over the checked model: mappings that follow from published crosswalks, the
 * control-to-control crosswalk records, framework overlaps and per-signal framework coverage.
 * The formulas are documented in docs/registry.md ("Derived data"); keep the two in step.
 */
import type { ObjectiveLink, Relationship } from '../../src/schemas/registry-source.js';
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
/** A published crosswalk row is not a judgement of the signal: what it derives stays below the default gap threshold (0.7). */
export const DERIVED_MAX_CONFIDENCE = 0.65;
/** Fan-out up to which a row keeps its full strength (one control related to many dilutes each link). */
export const FULL_STRENGTH_FAN_OUT = 3;
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

/**
 * confidence = 0.5 + 0.15 × strength(relationship) × min(1, 3 / fan-out) × source confidence, in
 * [0.5, 0.65]; a Rev 4 id counts at the weakest strength. Never reaches the default threshold.
 */
export function derivedConfidence(relationship: RowRelationship, viaRevision4: boolean, fanOut: number, sourceConfidence: number): number {
  const strength = viaRevision4 ? ROW_STRENGTH.intersect : ROW_STRENGTH[relationship];
  const value = round2(
    DERIVED_MIN_CONFIDENCE + (DERIVED_MAX_CONFIDENCE - DERIVED_MIN_CONFIDENCE) * strength * Math.min(1, FULL_STRENGTH_FAN_OUT / fanOut) * sourceConfidence,
  );
  return Math.min(DERIVED_MAX_CONFIDENCE, Math.max(DERIVED_MIN_CONFIDENCE, value));
}

// ---- mappings through security objectives ----

/**
 * The rubric (docs/registry.md, "Objectives"): how an objective's judged relationship to a control
 * becomes the mapping of every signal that evidences the objective. Only equal and subset_of reach
 * the default gap threshold, because only then is a failing instance of the objective a gap in the
 * control as written.
 */
export function objectiveMapping(link: ObjectiveLink, partialEvidence = false): { relationship: Relationship; confidence: number } {
  const full = fullEvidenceMapping(link);
  // A signal that only shows the objective may be unmet is never primary through it.
  return partialEvidence && full.relationship === 'primary' ? { relationship: 'supporting', confidence: PARTIAL_EVIDENCE_MAX_CONFIDENCE } : full;
}

/** Confidence of a mapping through an objective a signal is only partial evidence of, when the link would make it primary. */
export const PARTIAL_EVIDENCE_MAX_CONFIDENCE = 0.75;

function fullEvidenceMapping(link: ObjectiveLink): { relationship: Relationship; confidence: number } {
  switch (link.relationship) {
    case 'equal':
      return { relationship: 'primary', confidence: 0.95 };
    case 'subset_of':
      return link.core ? { relationship: 'primary', confidence: 0.9 } : { relationship: 'supporting', confidence: 0.75 };
    case 'superset_of':
      return { relationship: 'partial', confidence: 0.6 };
    case 'intersects_with':
      return { relationship: 'partial', confidence: 0.5 };
  }
}

/** Objective links of a signal, the strongest per control; a mapping authored on the signal itself wins. */
function objectiveMappings(model: RegistryModel, signal: SignalNode): MappingNode[] {
  const authored = new Set(signal.mappings.map((m) => `${m.framework}|${m.control}`));
  const best = new Map<string, MappingNode>();
  for (const objectiveId of model.objectivesOfSignal.get(signal.id) ?? []) {
    const objective = model.objectiveById.get(objectiveId)!;
    for (const link of objective.links) {
      const key = `${link.framework}|${link.control}`;
      if (authored.has(key)) continue;
      const target = controlOf(model, link.framework, link.control);
      if (!target) continue;
      const { relationship, confidence } = objectiveMapping(link, model.partialEvidence.has(`${signal.id}|${objective.id}`));
      const current = best.get(key);
      if (current && current.confidence >= confidence) continue;
      best.set(key, {
        signal_id: signal.id,
        framework: link.framework,
        control_id: link.control,
        control_title: target.title,
        relationship,
        confidence,
        rationale: link.rationale,
        provenance: { kind: 'objective', objective: objective.id, set_relationship: link.relationship },
        derived: true,
      });
    }
  }
  return [...best.values()];
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

/** A generated technical signal: no mapping of its own, its controls come through the objectives it evidences. */
export function isTechnical(signal: SignalNode): boolean {
  return signal.domain === 'GEN' && signal.mappings.length === 0;
}

/** Crosswalk derivation starts from a signal's authored primary mappings, only to controls nothing else reaches. */
function deriveForSignal(model: RegistryModel, links: CrosswalkLinks, signal: SignalNode, reached: Set<string>): MappingNode[] {
  if (isTechnical(signal)) return [];
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
      if (link.framework === source.framework || reached.has(key)) continue;
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
        relationship: 'partial',
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

/** Authored mappings, then those through objectives, then crosswalk-derived ones; sorted by signal, framework order, catalog order. */
export function allMappings(model: RegistryModel, pairs: ControlPair[]): MappingNode[] {
  const links = new CrosswalkLinks(pairs);
  const rank = frameworkRank(model);
  const out: MappingNode[] = [];
  for (const signal of model.signals) {
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
    const throughObjectives = objectiveMappings(model, signal);
    out.push(...throughObjectives);
    const reached = new Set([...signal.mappings.map((m) => `${m.framework}|${m.control}`), ...throughObjectives.map((m) => `${m.framework}|${m.control_id}`)]);
    out.push(...deriveForSignal(model, links, signal, reached));
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
    const controls = signal.mappings.map((m) => controlOf(model, m.framework, m.control)).filter((c): c is ControlNode => c !== undefined);
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
