import {
  controlVerdict,
  DEFAULT_MAX_EVIDENCE_AGE_DAYS,
  evidenceKind,
  isStaleEvidence,
  pooledPosture,
  priorityLabel,
  remediationPriority,
  EFFORT_RANK,
  type AssessedStatus,
  type ControlCounts,
  type Effort,
  type Evidence,
  type MappingRelationship,
} from './scoring.js';
import { bySeverityDescending, type FindingStatus, type PostureStatus, type Severity } from '../core/vocabulary.js';
import { WithCustomFrameworks, type CustomFrameworkFacts } from './custom-frameworks.js';

/** A finding after request validation; a missing status (Variant B) has been read as open. */
export interface Finding {
  id: string;
  signal_id: string;
  status: FindingStatus;
  observed_at?: string;
  severity?: { level: Severity; score?: number };
  artifact?: { type?: string; id?: string; provider?: string };
  /** Set on findings converted from a scanner's file: the tool that reported them. */
  source?: { tool?: string };
}

export interface AnalysisOptions {
  include_resolved: boolean;
  min_confidence: number;
  include_remediation: boolean;
  include_evidence_requirements: boolean;
  include_cross_framework: boolean;
  /** Passing evidence older than this many days earns no credit (docs/scoring.md); the request fills in the default. */
  max_evidence_age_days?: number;
}

/** The registry facts the engine reads; src/registry's Registry provides them. */
export interface GapRegistry {
  /** `remediation_order`: the signal's place among the registry's signals, most severe first, then by id (a gap's steps come in this order). */
  signal(id: string): { id: string; title: string; severity: Severity; effort: Effort; remediation_hint: string; remediation_order: number } | undefined;
  mappingsOfSignal(id: string): ReadonlyArray<{ framework: string; control_id: string; relationship: MappingRelationship; confidence: number }>;
  /** `custom`: an account's own framework (src/gap/custom-frameworks.ts), with the revision assessed. */
  framework(code: string): { code: string; name: string; version: string; control_count: number; custom?: { revision: number } } | undefined;
  control(framework: string, id: string): { id: string; title: string; category: string; guidance: string; evidence: string[] } | undefined;
  controls(framework: string): ReadonlyArray<{ id: string; mapped_signals: ReadonlyArray<{ signal_id: string; confidence: number }> }>;
  /** The signal's remediation steps (its finding templates' steps, or its hint), as `remediationStepsFrom` splits them. */
  remediationSteps(signalId: string): SignalRemediation;
}

export interface RemediationStep {
  text: string;
  key: string;
}

/**
 * A signal's steps, split once: its fixes, trimmed, with a case-folded key to spot repeats across
 * signals; and whether it had a re-scan check ("Re-run the <platform> scan and confirm…"), a
 * check that the fix worked rather than a fix.
 */
export interface SignalRemediation {
  fixes: RemediationStep[];
  rescanCheck: boolean;
}

/**
 * Our finding templates end with a per-platform check ("Re-run the Azure scan and confirm the
 * mapped rules now pass."). A gap draws on many templates, so these would crowd out the fixes:
 * the engine lists fixes first and one platform-neutral check last.
 */
const VERIFICATION_STEP = /^re-run the .+ scan and confirm the mapped rules now pass\.$/i;
export const VERIFICATION_STEP_TEXT = 'Re-run the scans that reported these findings and confirm the mapped rules now pass.';

/** Steps as the engine uses them: the fixes and whether there was a re-scan check (SignalRemediation). */
export function remediationStepsFrom(templateSteps: readonly string[], hint: string): SignalRemediation {
  const texts = (templateSteps.length ? templateSteps : [hint]).map((step) => step.trim());
  return {
    fixes: texts.filter((text) => !VERIFICATION_STEP.test(text)).map((text) => ({ text, key: text.toLowerCase() })),
    rescanCheck: texts.some((text) => VERIFICATION_STEP.test(text)),
  };
}

type SignalFacts = NonNullable<ReturnType<GapRegistry['signal']>>;
type ControlFacts = NonNullable<ReturnType<GapRegistry['control']>>;

/**
 * A signal as one analysis uses it: its facts and mappings, looked up once however many findings
 * name it, and what the analysis learns about it. Reaches point to it (an object, so no string
 * hashing per reach).
 */
interface AnalysisSignal {
  facts: SignalFacts;
  /** Its usable mappings, resolved to the reach lists they add to: each (finding, mapping) pair costs one push. */
  targets: Array<{ relationship: MappingRelationship; confidence: number; reaches: Reach[] }>;
  /** The requested frameworks where its failing findings open gaps, and the controls there. */
  gapControls: Map<string, Set<string>>;
  /**
   * How many frameworks it opens gaps in (gapControls' size, at least 1), and its effort's rank:
   * read for every signal of every gap, so kept on the record itself (measured: reading them
   * through the map and the facts was a fifth of a 10,000-finding analysis's remediation).
   */
  frameworksTouched: number;
  effortRank: number;
  /** The gap whose remediation last counted it: a mark, where a Set per gap cost a hash per reach. */
  countedFor?: ControlAssessment;
}

interface Reach extends Evidence {
  finding: Finding;
  /** Passing evidence past the age limit: kept apart, never counted (docs/scoring.md). */
  stale: boolean;
  signal: AnalysisSignal;
  /** The finding's own severity, else its signal's. */
  severity: Severity;
}

export interface ControlAssessment {
  framework: string;
  /** The registry's control, as the index holds it: the result writer escapes its text once per thread, keyed by it. */
  control: ControlFacts;
  status: AssessedStatus;
  confidence: number;
  /** Highest severity among failing or accepted findings; null for a compliant control. */
  severity: Severity | null;
  reaches: Reach[];
  /** Gaps only, with include_remediation. */
  remediation?: Remediation;
  /** Gaps only, with include_evidence_requirements: the registry's evidence items for the control. */
  evidence?: string[];
}

export interface FrameworkOutcome {
  code: string;
  name: string;
  version: string;
  /** Set for an account's own framework: the revision assessed. */
  custom?: { revision: number };
  controls_total: number;
  counts: ControlCounts;
  score: number | null;
  coverage: number;
  status: PostureStatus;
  critical_gaps: number;
  high_gaps: number;
  gaps: ControlAssessment[];
  compliant: ControlAssessment[];
  /** Controls that stale passing evidence reached, in control order, with their status without it. */
  stale: StaleEvidence[];
}

/** A control reached by passing evidence past the age limit: set aside, and said. */
export interface StaleEvidence {
  control: ControlFacts;
  /** What the current evidence makes it; not_assessed when there is none. */
  status: AssessedStatus | 'not_assessed';
  /** The stale passing findings. */
  reaches: Reach[];
}

export interface Remediation {
  priority: number;
  priority_label: 'critical' | 'high' | 'medium' | 'low';
  effort: Effort;
  guidance: string;
  steps: string[];
}

/**
 * A signal whose failing findings open gaps in two or more requested frameworks. The result writer
 * words it (src/gap/result.ts): a 10,000-finding analysis has some 3,800, naming 35,000 controls,
 * and building them as the answer's objects first cost as much again as writing them.
 */
export interface CommonGap {
  signal: SignalFacts;
  /** The frameworks it opens gaps in, sorted, each with its gap controls there, sorted. */
  affects: Array<{ framework: string; controls: string[] }>;
  /** Its gap controls across those frameworks. */
  control_count: number;
}

export interface FrameworkSynergy {
  primary_framework: string;
  synergy_with: string;
  overlap_percentage: number;
  note: string;
}

export interface AnalysisOutcome {
  frameworks: FrameworkOutcome[];
  overall: {
    counts: ControlCounts;
    controls_total: number;
    score: number | null;
    coverage: number;
    status: PostureStatus;
    critical_gaps: number;
    high_gaps: number;
  };
  findings: { submitted: number; analyzed: number; excluded_resolved: number; unmapped: number; stale_passing: number } & FindingsScope;
  common_gaps: CommonGap[];
  synergies: FrameworkSynergy[];
}

/** What the submitted findings cover, for a report's scope: when they were observed and which tools reported them. */
export interface FindingsScope {
  /** Earliest and latest observed_at (UTC); null when no finding gives one. */
  observed_from: string | null;
  observed_to: string | null;
  /** The tools the findings name (source.tool), sorted; empty when none does. */
  sources: string[];
}

function findingsScope(findings: readonly Finding[]): FindingsScope {
  let earliest = Infinity;
  let latest = -Infinity;
  const tools = new Set<string>();
  for (const finding of findings) {
    if (finding.observed_at !== undefined) {
      const at = Date.parse(finding.observed_at);
      if (at < earliest) earliest = at;
      if (at > latest) latest = at;
    }
    const tool = finding.source?.tool;
    if (typeof tool === 'string' && tool !== '') tools.add(tool);
  }
  return {
    observed_from: Number.isFinite(earliest) ? new Date(earliest).toISOString() : null,
    observed_to: Number.isFinite(latest) ? new Date(latest).toISOString() : null,
    sources: [...tools].sort(byCodeUnits),
  };
}

/** Control ids sort naturally (A.5.2 before A.5.10); one shared collator, since creating one per compare is costly. */
const controlOrder = new Intl.Collator('en', { numeric: true });

const rankOfRelationship = (relationship: Reach['relationship']) => (relationship === 'primary' ? 0 : 1);

/**
 * The findings in id order, each once. Reaches are made in this order, so a control's reaches
 * need sorting only by relationship and confidence (a stable sort keeps the ids in order): one
 * sort of the findings instead of an id comparison inside every control's sort (measured: the
 * comparisons were a fifth of a 10,000-finding analysis).
 */
function inIdOrder(findings: readonly Finding[]): readonly Finding[] {
  return [...findings].sort((a, b) => byCodeUnits(a.id, b.id));
}

/**
 * Maps findings to controls and scores them (docs/scoring.md). Pure: the same findings, options,
 * registry and custom frameworks always give the same outcome. `custom` are the account's own
 * frameworks that `frameworks` may name beside the registry's.
 */
export function assess(
  registry: GapRegistry,
  findings: readonly Finding[],
  frameworks: readonly string[],
  options: AnalysisOptions,
  custom: readonly CustomFrameworkFacts[] = [],
  /** When the analysis is made (ms): passing evidence older than its age limit by then is stale. Without it, no evidence is. */
  asOf?: number,
): AnalysisOutcome {
  const base = registry;
  const withCustom = custom.length ? new WithCustomFrameworks(base, custom) : undefined;
  // What depends on the registry alone is kept per registry: a built-in framework's under the base.
  const keptBy = (code: string) => (withCustom?.isCustom(code) ? withCustom : base);
  if (withCustom) registry = withCustom;
  const requested = new Set(frameworks);
  // Findings grouped by framework, then control: stable registry strings as keys, no key building.
  const reachesByFramework = new Map<string, Map<string, Reach[]>>(frameworks.map((code) => [code, new Map()]));
  let excludedResolved = 0;
  let unmapped = 0;
  let analyzed = 0;
  let stalePassing = 0;
  const maxAgeDays = options.max_evidence_age_days ?? DEFAULT_MAX_EVIDENCE_AGE_DAYS;

  const ofSignal = new Map<string, AnalysisSignal>();
  for (const finding of inIdOrder(findings)) {
    if (finding.status === 'resolved' && !options.include_resolved) {
      excludedResolved += 1;
      continue;
    }
    analyzed += 1;
    const kind = evidenceKind(finding.status);
    let signal = ofSignal.get(finding.signal_id);
    if (!signal) {
      const targets = [];
      for (const mapping of registry.mappingsOfSignal(finding.signal_id)) {
        if (!requested.has(mapping.framework) || mapping.confidence < options.min_confidence) continue;
        const byControl = reachesByFramework.get(mapping.framework)!;
        let reaches = byControl.get(mapping.control_id);
        if (!reaches) byControl.set(mapping.control_id, (reaches = []));
        targets.push({ relationship: mapping.relationship, confidence: mapping.confidence, reaches });
      }
      const facts = registry.signal(finding.signal_id)!;
      signal = { facts, targets, gapControls: new Map(), frameworksTouched: 1, effortRank: EFFORT_RANK[facts.effort] };
      ofSignal.set(finding.signal_id, signal);
    }
    const severity = finding.severity?.level ?? signal.facts.severity;
    if (!signal.targets.length) unmapped += 1;
    const stale = asOf !== undefined && isStaleEvidence(kind, finding.observed_at, asOf, maxAgeDays);
    if (stale) stalePassing += 1;
    for (const target of signal.targets) {
      target.reaches.push({ finding, kind, relationship: target.relationship, confidence: target.confidence, signal, severity, stale });
    }
  }

  const assessments = new Map<string, ControlAssessment[]>();
  const staleEvidence = new Map<string, StaleEvidence[]>();
  for (const [framework, byControl] of reachesByFramework) {
    const assessed: ControlAssessment[] = [];
    const staleHere: StaleEvidence[] = [];
    for (const [controlId, reaches] of byControl) {
      const control = registry.control(framework, controlId);
      if (!control) continue;
      // Stale passing evidence is set aside before the status rule sees the rest (docs/scoring.md).
      const current = stalePassing ? reaches.filter((reach) => !reach.stale) : reaches;
      const assessment = current.length ? assessControl(framework, control, current) : undefined;
      if (assessment) assessed.push(assessment);
      if (current.length < reaches.length)
        staleHere.push({ control, status: assessment?.status ?? 'not_assessed', reaches: reaches.filter((reach) => reach.stale) });
    }
    assessments.set(framework, assessed);
    staleEvidence.set(framework, staleHere);
  }

  const outcomes: FrameworkOutcome[] = frameworks.map((code) => {
    const framework = registry.framework(code)!;
    const assessed = assessments.get(code)!;
    const counts: ControlCounts = { compliant: 0, partially_compliant: 0, non_compliant: 0, not_assessed: 0 };
    for (const assessment of assessed) counts[assessment.status] += 1;
    counts.not_assessed = framework.control_count - assessed.length;
    const rank = controlRanks(keptBy(code), code);
    const byControlOrder = (a: ControlAssessment, b: ControlAssessment) => rank.get(a.control.id)! - rank.get(b.control.id)!;
    const gaps = assessed.filter((a) => a.status !== 'compliant').sort((a, b) => byGapOrder(a, b) || byControlOrder(a, b));
    const compliant = assessed.filter((a) => a.status === 'compliant').sort(byControlOrder);
    const stale = staleEvidence.get(code)!.sort((a, b) => rank.get(a.control.id)! - rank.get(b.control.id)!);
    const criticalGaps = gaps.filter((g) => g.severity === 'critical').length;
    const highGaps = gaps.filter((g) => g.severity === 'high').length;
    const posture = pooledPosture([{ counts, critical_gaps: criticalGaps, high_gaps: highGaps }]);
    return {
      code,
      name: framework.name,
      version: framework.version,
      custom: framework.custom,
      controls_total: framework.control_count,
      counts,
      score: posture.score,
      coverage: posture.coverage,
      status: posture.status,
      critical_gaps: criticalGaps,
      high_gaps: highGaps,
      gaps,
      compliant,
      stale,
    };
  });
  const overall = pooledPosture(outcomes);

  // Which requested frameworks each failing signal opens gaps in, for priorities and insights.
  for (const outcome of outcomes) {
    for (const gap of outcome.gaps) {
      for (const reach of gap.reaches) {
        if (reach.kind !== 'failing') continue;
        const { gapControls } = reach.signal;
        let controls = gapControls.get(outcome.code);
        if (!controls) gapControls.set(outcome.code, (controls = new Set()));
        controls.add(gap.control.id);
      }
    }
  }
  for (const signal of ofSignal.values()) signal.frameworksTouched = Math.max(1, signal.gapControls.size);

  for (const outcome of outcomes) {
    for (const gap of outcome.gaps) {
      if (options.include_remediation) gap.remediation = remediationFor(registry, gap);
      if (options.include_evidence_requirements) gap.evidence = gap.control.evidence;
    }
  }

  return {
    frameworks: outcomes,
    overall: {
      counts: overall.counts,
      controls_total: overall.controls_total,
      score: overall.score,
      coverage: overall.coverage,
      status: overall.status,
      critical_gaps: overall.critical_gaps,
      high_gaps: overall.high_gaps,
    },
    findings: { submitted: findings.length, analyzed, excluded_resolved: excludedResolved, unmapped, stale_passing: stalePassing, ...findingsScope(findings) },
    common_gaps: options.include_cross_framework ? commonGaps(ofSignal.values()) : [],
    synergies: options.include_cross_framework
      ? frameworkSynergies(registry, frameworks, options.min_confidence, withCustom ? (code) => withCustom.isCustom(code) : () => false)
      : [],
  };
}

/** `reaches` come in finding id order; the stable sort leaves ties in it (primary first, then by confidence, then finding id). */
function assessControl(framework: string, control: ControlFacts, reaches: Reach[]): ControlAssessment {
  const { status, confidence, severity } = controlVerdict(reaches, (reach) => reach.severity);
  const ordered = reaches.sort((a, b) => rankOfRelationship(a.relationship) - rankOfRelationship(b.relationship) || b.confidence - a.confidence);
  return { framework, control, status, confidence, severity, reaches: ordered };
}

/** Gaps most worth fixing first: non-compliant before partial, then severity (then control order). */
function byGapOrder(a: ControlAssessment, b: ControlAssessment): number {
  return (a.status === 'non_compliant' ? 0 : 1) - (b.status === 'non_compliant' ? 0 : 1) || bySeverityDescending(a.severity, b.severity);
}

const controlRankCache = new WeakMap<GapRegistry, Map<string, Map<string, number>>>();

/**
 * Each control's position in natural id order (A.5.2 before A.5.10) within its framework. The
 * order depends only on the registry, so it is computed once per framework: a locale-aware
 * comparison inside every sort cost about a millisecond per analysis.
 */
function controlRanks(registry: GapRegistry, framework: string): Map<string, number> {
  let byFramework = controlRankCache.get(registry);
  if (!byFramework) controlRankCache.set(registry, (byFramework = new Map()));
  let ranks = byFramework.get(framework);
  if (!ranks) {
    const ids = registry
      .controls(framework)
      .map((c) => c.id)
      .sort(controlOrder.compare);
    byFramework.set(framework, (ranks = new Map(ids.map((id, i) => [id, i]))));
  }
  return ranks;
}

/** A gap reached by hundreds of findings would otherwise list hundreds of steps. */
export const MAX_REMEDIATION_STEPS = 6;

function remediationFor(registry: GapRegistry, gap: ControlAssessment): Remediation {
  // Most severe signals first, so their steps come first when the list is cut.
  const signals: AnalysisSignal[] = [];
  for (const reach of gap.reaches) {
    if (reach.kind === 'passing' || reach.signal.countedFor === gap) continue;
    reach.signal.countedFor = gap;
    signals.push(reach.signal);
  }
  signals.sort((a, b) => a.facts.remediation_order - b.facts.remediation_order);
  let frameworksTouched = 1;
  let effort: Effort = 'low';
  let effortRank: number = EFFORT_RANK[effort];
  const steps: string[] = [];
  const stepKeys: string[] = [];
  let rescanCheck = false;
  for (const signal of signals) {
    if (signal.frameworksTouched > frameworksTouched) frameworksTouched = signal.frameworksTouched;
    if (signal.effortRank > effortRank) {
      effortRank = signal.effortRank;
      effort = signal.facts.effort;
    }
    const { fixes, rescanCheck: signalRescanCheck } = registry.remediationSteps(signal.facts.id);
    if (signalRescanCheck) rescanCheck = true;
    // Once the list is full, a signal can only raise the priority, the effort or the re-scan check.
    for (let i = 0; i < fixes.length && steps.length < MAX_REMEDIATION_STEPS; i++) {
      if (stepKeys.includes(fixes[i].key)) continue;
      stepKeys.push(fixes[i].key);
      steps.push(fixes[i].text);
    }
  }
  // Fixes first; one re-scan check last, within the same limit.
  if (rescanCheck) steps.splice(MAX_REMEDIATION_STEPS - 1, Infinity, VERIFICATION_STEP_TEXT);
  // The control's guidance, then the most severe signal's hint unless that hint is already a step
  // (signals without finding templates contribute their hint as their step).
  const hint = signals.length ? signals[0].facts.remediation_hint.trim() : undefined;
  const guidance = [gap.control.guidance, hint && !steps.includes(hint) ? hint : undefined].filter(Boolean).join(' ');
  const priority = remediationPriority(gap.severity ?? 'info', frameworksTouched);
  return { priority, priority_label: priorityLabel(priority), effort, guidance, steps };
}

function commonGaps(signals: Iterable<AnalysisSignal>): CommonGap[] {
  const result: CommonGap[] = [];
  for (const { facts, gapControls } of signals) {
    if (gapControls.size < 2) continue;
    let controlCount = 0;
    const affects = [...gapControls.keys()].sort().map((framework) => {
      const controls = [...gapControls.get(framework)!].sort();
      controlCount += controls.length;
      return { framework, controls };
    });
    result.push({ signal: facts, affects, control_count: controlCount });
  }
  return result.sort((a, b) => b.control_count - a.control_count || byCodeUnits(a.signal.id, b.signal.id));
}

const synergyCache = new Map<string, number>();

/**
 * For each ordered pair (A, B): the share of A's mapped controls (mappings at or above the
 * confidence floor) whose signals also map into B. Between built-in frameworks it depends only on
 * the registry, so it is cached per worker for the life of the loaded registry; a pair with a
 * custom framework is computed each time.
 */
function frameworkSynergies(
  registry: GapRegistry,
  frameworks: readonly string[],
  minConfidence: number,
  isCustom: (code: string) => boolean,
): FrameworkSynergy[] {
  const frameworksOfSignal = new Map<string, Set<string>>();
  const reach = (signalId: string) => {
    let set = frameworksOfSignal.get(signalId);
    if (!set) {
      set = new Set(
        registry
          .mappingsOfSignal(signalId)
          .filter((m) => m.confidence >= minConfidence)
          .map((m) => m.framework),
      );
      frameworksOfSignal.set(signalId, set);
    }
    return set;
  };
  // Into a custom framework: the signals its controls have at the floor, read off its own few
  // controls rather than asking every signal of the other framework where it maps, which doubled
  // the analysis (docs/benchmarks.md).
  const intoCustom = new Map<string, Set<string>>();
  const signalsInto = (code: string) => {
    let set = intoCustom.get(code);
    if (!set) {
      set = new Set(registry.controls(code).flatMap((control) => control.mapped_signals.filter((s) => s.confidence >= minConfidence).map((s) => s.signal_id)));
      intoCustom.set(code, set);
    }
    return set;
  };
  const result: FrameworkSynergy[] = [];
  for (const a of frameworks) {
    for (const b of frameworks) {
      if (a === b) continue;
      const cacheKey = isCustom(a) || isCustom(b) ? undefined : `${a}|${b}|${minConfidence}`;
      let percentage = cacheKey === undefined ? undefined : synergyCache.get(cacheKey);
      if (percentage === undefined) {
        let mapped = 0;
        let shared = 0;
        const into = isCustom(b) ? signalsInto(b) : undefined;
        for (const control of registry.controls(a)) {
          const signals = control.mapped_signals.filter((s) => s.confidence >= minConfidence);
          if (!signals.length) continue;
          mapped += 1;
          if (signals.some((s) => (into ? into.has(s.signal_id) : reach(s.signal_id).has(b)))) shared += 1;
        }
        percentage = mapped ? Math.round((1000 * shared) / mapped) / 10 : 0;
        if (cacheKey !== undefined) synergyCache.set(cacheKey, percentage);
      }
      result.push({
        primary_framework: a,
        synergy_with: b,
        overlap_percentage: percentage,
        note: `${percentage}% of ${a} controls with mapped signals share a signal with ${b}: evidence collected for one supports the other.`,
      });
    }
  }
  return result;
}

/** Plain ordering for ids: deterministic and cheap, unlike locale-aware comparison. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
