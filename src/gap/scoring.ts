/**
 * The scoring model's constants. Any change to how statuses, scores, postures or priorities are
 * derived must bump SCORING_VERSION so that stored results show which method produced them
 * (docs/scoring.md explains the model with worked examples).
 */
import { SEVERITY_RANK, type FindingStatus, type PostureStatus, type Severity } from '../core/vocabulary.js';

export const SCORING_VERSION = '1.0.0';
export const RESULT_FORMAT_VERSION = '1.0.0';


/** How a finding's status counts as evidence about a control. */
export type EvidenceKind = 'failing' | 'accepted' | 'passing';

export function evidenceKind(status: FindingStatus): EvidenceKind {
  if (status === 'open' || status === 'in_progress') return 'failing';
  if (status === 'accepted') return 'accepted';
  return 'passing';
}

export function higherSeverity(a: Severity | null, b: Severity): Severity {
  return a === null || SEVERITY_RANK[b] > SEVERITY_RANK[a] ? b : a;
}

export const COMPLIANT_SCORE = 90;
export const AT_RISK_SCORE = 60;

/** Score = 100 × (compliant + 0.5 × partially compliant) / assessed, one decimal; null when nothing was assessed. */
export function postureScore(compliant: number, partial: number, assessed: number): number | null {
  if (assessed === 0) return null;
  return Math.round((1000 * (compliant + 0.5 * partial)) / assessed) / 10;
}

export function postureStatus(score: number | null, hasCriticalOrHighGap: boolean): PostureStatus {
  if (score === null) return 'not_assessed';
  if (score >= COMPLIANT_SCORE) return hasCriticalOrHighGap ? 'at_risk' : 'compliant';
  if (score >= AT_RISK_SCORE) return 'at_risk';
  return 'non_compliant';
}

const BASE_PRIORITY: Record<Severity, number> = { critical: 1, high: 2, medium: 3, low: 4, info: 5 };

/**
 * Remediation priority 1 (most urgent) to 5: the gap's severity sets the base, and a fix that
 * closes gaps in three or more of the requested frameworks moves up one step.
 */
export function remediationPriority(severity: Severity, frameworksTouched: number): number {
  const base = BASE_PRIORITY[severity];
  return frameworksTouched >= 3 ? Math.max(1, base - 1) : base;
}

export function priorityLabel(priority: number): 'critical' | 'high' | 'medium' | 'low' {
  if (priority <= 1) return 'critical';
  if (priority === 2) return 'high';
  if (priority === 3) return 'medium';
  return 'low';
}

export const EFFORT_RANK = { low: 0, medium: 1, high: 2 } as const;
export type Effort = keyof typeof EFFORT_RANK;
