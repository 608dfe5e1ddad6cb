/**
 * The scoring model, in one place: how a finding's status counts as evidence, how evidence decides
 * a control's status, confidence and severity, how control statuses pool into a posture, the
 * remediation priority, and the method text that reports print (built from the same constants).
 * Any change to how statuses, scores, postures or priorities are derived must bump SCORING_VERSION
 * so that stored results show which method produced them (docs/scoring.md explains the model with
 * worked examples; test/gap/scoring.test.ts checks that it states these constants).
 */
import { FINDING_STATUSES, SEVERITY_RANK, type ControlStatus, type FindingStatus, type PostureStatus, type Severity } from '../core/vocabulary.js';

export const SCORING_VERSION = '2.1.0';
/**
 * 1.1.0: data.resources (the artifacts findings name) and each gap's `resources` indices; summary.findings the observed_at span and the tools.
 * 1.2.0: data.scope (docs/posture.md); options.max_evidence_age_days, each framework's stale_evidence and summary.findings.stale_passing (docs/scoring.md);
 *   data.coverage_plan (docs/posture.md).
 */
export const RESULT_FORMAT_VERSION = '1.2.0';

/** How a finding's status counts as evidence about a control. */
export type EvidenceKind = 'failing' | 'accepted' | 'passing';

const EVIDENCE_OF_STATUS: Record<FindingStatus, EvidenceKind> = {
  open: 'failing',
  in_progress: 'failing',
  accepted: 'accepted',
  resolved: 'passing',
  false_positive: 'passing',
};

export function evidenceKind(status: FindingStatus): EvidenceKind {
  return EVIDENCE_OF_STATUS[status];
}

/** How old passing evidence may be, in days, unless the analysis sets `max_evidence_age_days`. */
export const DEFAULT_MAX_EVIDENCE_AGE_DAYS = 90;
const DAY_MS = 86_400_000;

/**
 * Passing evidence observed longer ago than the age limit before the analysis is stale: it no
 * longer shows the control passing, so it earns no credit (a control with nothing else is not
 * assessed, and says its evidence is stale). Failing and accepted findings count whatever their
 * age: a failure seen once stands until something newer says otherwise. A finding without
 * observed_at is taken as current (Variant B does not require the field).
 */
export function isStaleEvidence(kind: EvidenceKind, observedAt: string | undefined, asOf: number, maxAgeDays: number): boolean {
  return kind === 'passing' && observedAt !== undefined && asOf - Date.parse(observedAt) > maxAgeDays * DAY_MS;
}

export type MappingRelationship = 'primary' | 'supporting' | 'partial';
export type AssessedStatus = Exclude<ControlStatus, 'not_assessed'>;

/** One finding reaching a control through one mapping. */
export interface Evidence {
  kind: EvidenceKind;
  relationship: MappingRelationship;
  confidence: number;
}

export interface ControlVerdict {
  status: AssessedStatus;
  /** The highest mapping confidence among the evidence that decided the status. */
  confidence: number;
  /** The highest severity among failing or accepted evidence; null when there is none. */
  severity: Severity | null;
}

/**
 * The status rule. A failing finding through a primary mapping makes the control non-compliant.
 * Other adverse evidence (failing through supporting or partial mappings, or risk-accepted) makes
 * it partially compliant only beside passing evidence (mixed evidence earns partial credit); with
 * no passing evidence it is non-compliant, since credit rests on something observed to pass.
 * Passing evidence alone makes it compliant. One pass; `severityOf` is asked only of adverse evidence.
 */
export function controlVerdict<E extends Evidence>(evidence: readonly E[], severityOf: (evidence: E) => Severity): ControlVerdict {
  // The highest confidence seen per class; -1: none of that class.
  let failingPrimary = -1;
  let otherAdverse = -1;
  let passing = -1;
  let severity: Severity | null = null;
  for (const item of evidence) {
    if (item.kind === 'passing') {
      passing = Math.max(passing, item.confidence);
      continue;
    }
    if (item.kind === 'failing' && item.relationship === 'primary') failingPrimary = Math.max(failingPrimary, item.confidence);
    else otherAdverse = Math.max(otherAdverse, item.confidence);
    severity = higherSeverity(severity, severityOf(item));
  }
  if (failingPrimary >= 0) return { status: 'non_compliant', confidence: failingPrimary, severity };
  if (otherAdverse >= 0) return { status: passing >= 0 ? 'partially_compliant' : 'non_compliant', confidence: otherAdverse, severity };
  return { status: 'compliant', confidence: passing, severity };
}

export function higherSeverity(a: Severity | null, b: Severity): Severity {
  return a === null || SEVERITY_RANK[b] > SEVERITY_RANK[a] ? b : a;
}

/** Posture thresholds on the 0–100 score. */
export const COMPLIANT_SCORE = 90;
export const AT_RISK_SCORE = 60;
/** What a partially compliant control counts for in the score, against 1 for a compliant one. */
export const PARTIAL_CREDIT = 0.5;

/** Score = 100 × (compliant + 0.5 × partially compliant) / assessed, one decimal; null when nothing was assessed. */
export function postureScore(compliant: number, partial: number, assessed: number): number | null {
  if (assessed === 0) return null;
  return Math.round((1000 * (compliant + PARTIAL_CREDIT * partial)) / assessed) / 10;
}

export function postureStatus(score: number | null, hasCriticalOrHighGap: boolean): PostureStatus {
  if (score === null) return 'not_assessed';
  if (score >= COMPLIANT_SCORE) return hasCriticalOrHighGap ? 'at_risk' : 'compliant';
  if (score >= AT_RISK_SCORE) return 'at_risk';
  return 'non_compliant';
}

export type ControlCounts = Record<ControlStatus, number>;

/** What a posture is pooled from: control counts by status and the critical and high gaps among them. */
export interface PostureTally {
  counts: ControlCounts;
  critical_gaps: number;
  high_gaps: number;
}

export interface Posture {
  status: PostureStatus;
  score: number | null;
  /** Assessed / total controls, three decimals. */
  coverage: number;
  controls_total: number;
  controls_assessed: number;
  counts: ControlCounts;
  critical_gaps: number;
  high_gaps: number;
}

/**
 * The posture of one framework, or of several pooled: their control counts and gaps are added up
 * and the score and status computed over the sum (an overall score is never an average of scores).
 */
export function pooledPosture(tallies: Iterable<PostureTally>): Posture {
  const counts: ControlCounts = { compliant: 0, partially_compliant: 0, non_compliant: 0, not_assessed: 0 };
  let critical = 0;
  let high = 0;
  for (const tally of tallies) {
    counts.compliant += tally.counts.compliant;
    counts.partially_compliant += tally.counts.partially_compliant;
    counts.non_compliant += tally.counts.non_compliant;
    counts.not_assessed += tally.counts.not_assessed;
    critical += tally.critical_gaps;
    high += tally.high_gaps;
  }
  const assessed = counts.compliant + counts.partially_compliant + counts.non_compliant;
  const total = assessed + counts.not_assessed;
  const score = postureScore(counts.compliant, counts.partially_compliant, assessed);
  return {
    status: postureStatus(score, critical + high > 0),
    score,
    coverage: total === 0 ? 0 : Math.round((1000 * assessed) / total) / 1000,
    controls_total: total,
    controls_assessed: assessed,
    counts,
    critical_gaps: critical,
    high_gaps: high,
  };
}

export const BASE_PRIORITY: Readonly<Record<Severity, number>> = { critical: 1, high: 2, medium: 3, low: 4, info: 5 };
/** A fix that closes gaps in this many requested frameworks or more moves up one priority step. */
export const WIDE_FIX_FRAMEWORKS = 3;

/**
 * Remediation priority 1 (most urgent) to 5: the gap's severity sets the base, and a fix that
 * closes gaps in three or more of the requested frameworks moves up one step.
 */
export function remediationPriority(severity: Severity, frameworksTouched: number): number {
  const base = BASE_PRIORITY[severity];
  return frameworksTouched >= WIDE_FIX_FRAMEWORKS ? Math.max(1, base - 1) : base;
}

export function priorityLabel(priority: number): 'critical' | 'high' | 'medium' | 'low' {
  if (priority <= 1) return 'critical';
  if (priority === 2) return 'high';
  if (priority === 3) return 'medium';
  return 'low';
}

export const EFFORT_RANK = { low: 0, medium: 1, high: 2 } as const;
export type Effort = keyof typeof EFFORT_RANK;

/** One titled paragraph of the method as reports print it. */
export interface MethodSection {
  title: string;
  text: string;
}

/** What an analysis chose that the method text quotes (its stored `options`). */
export interface MethodContext {
  min_confidence?: number;
  include_resolved?: boolean;
  max_evidence_age_days?: number;
}

const STATUS_WORDS: Record<FindingStatus, string> = {
  open: 'open',
  in_progress: 'in-progress',
  accepted: 'risk-accepted',
  resolved: 'resolved',
  false_positive: 'false-positive',
};

function statusesOf(kind: EvidenceKind): string {
  const words = FINDING_STATUSES.filter((status) => EVIDENCE_OF_STATUS[status] === kind).map((status) => STATUS_WORDS[status]);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : words[0];
}

/**
 * The scoring method as the pdf report prints it, built from the constants and tables above so
 * that a change of the model changes the text (test/gap/scoring.test.ts holds them together).
 */
export function scoringMethod(context: MethodContext = {}): MethodSection[] {
  const floor = typeof context.min_confidence === 'number' ? ` (${context.min_confidence})` : '';
  const resolved =
    context.include_resolved === undefined
      ? 'Resolved findings are left out unless the analysis asks to include them.'
      : `Resolved findings are ${context.include_resolved ? 'included as passing evidence in this analysis.' : 'left out in this analysis.'}`;
  const priorities = (Object.keys(BASE_PRIORITY) as Severity[]).map((severity) => `${severity} ${BASE_PRIORITY[severity]}`).join(', ');
  return [
    {
      title: 'Findings to controls',
      text:
        'Each finding names a registry signal. A finding reaches a control through every mapping of its signal into a selected framework ' +
        `whose confidence is at least the analysis's minimum confidence${floor}. ${resolved}`,
    },
    {
      title: 'Control status',
      text:
        `Non-compliant: a failing (${statusesOf('failing')}) finding reaches the control through a primary mapping, ` +
        `or only adverse evidence reaches it (failing findings through supporting or partial mappings, or ${statusesOf('accepted')} findings): no credit without passing evidence. ` +
        'Partially compliant: such adverse evidence is mixed with passing evidence for the same control. ' +
        `Compliant: only passing evidence (${statusesOf('passing')} findings) reaches it. ` +
        'Not assessed: no finding reaches it; a control without evidence is never counted compliant.',
    },
    {
      title: 'Evidence age',
      text:
        `Passing evidence observed more than ${
          typeof context.max_evidence_age_days === 'number'
            ? `${context.max_evidence_age_days} days before this analysis`
            : `the analysis's maximum evidence age before it (${DEFAULT_MAX_EVIDENCE_AGE_DAYS} days unless it sets another)`
        } is stale: ` +
        'it earns no credit, and a control reached only by stale passing evidence is not assessed and listed as stale. ' +
        'Failing and risk-accepted findings count whatever their age; a finding without an observation time is taken as current.',
    },
    {
      title: 'Posture score',
      text:
        `Score = 100 x (compliant + ${PARTIAL_CREDIT} x partially compliant) / assessed controls, to one decimal. Coverage = assessed / total controls. ` +
        `Posture: compliant at ${COMPLIANT_SCORE} or more with no critical or high gap; at risk at ${AT_RISK_SCORE} or more ` +
        `(or ${COMPLIANT_SCORE} or more with a critical or high gap); non-compliant below ${AT_RISK_SCORE}. ` +
        'Several frameworks are pooled by adding up their control counts, never by averaging their scores.',
    },
    {
      title: 'Severity and priority',
      text:
        "A gap's severity is the highest among its failing or accepted findings. " +
        `Remediation priority runs from 1 (most urgent) to 5 by severity (${priorities}) and moves up one step when the fix closes gaps in ` +
        `${WIDE_FIX_FRAMEWORKS} or more selected frameworks.`,
    },
  ];
}
