/**
 * The domain's shared words, defined once: schemas, the registry compiler, the gap engine, exports
 * and the HTTP layer all import them from here.
 */

/** The 11 frameworks gap analysis assesses, in the order the spec lists them. */
export const GAP_FRAMEWORK_CODES = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA'] as const;
/** Frameworks served in the listing and crosswalks only (not assessed by gap analysis). */
export const LISTING_FRAMEWORK_CODES = ['NIST80053R5', 'NIST800171R3', 'NYDFS500', 'NIS2'] as const;
export const FRAMEWORK_CODES = [...GAP_FRAMEWORK_CODES, ...LISTING_FRAMEWORK_CODES] as const;
export type GapFrameworkCode = (typeof GAP_FRAMEWORK_CODES)[number];

/** Severity levels, most severe first (the order lists and reports use). */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Higher is more severe: info 0 … critical 4. */
export const SEVERITY_RANK: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1, info: 0 };

/** Sort order, most severe first; an absent severity sorts as info. */
export function bySeverityDescending(a: Severity | null | undefined, b: Severity | null | undefined): number {
  return SEVERITY_RANK[b ?? 'info'] - SEVERITY_RANK[a ?? 'info'];
}

/** A finding's status as submitted (spec 2.6). */
export const FINDING_STATUSES = ['open', 'in_progress', 'resolved', 'accepted', 'false_positive'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

/** A control's status in an analysis. */
export const CONTROL_STATUSES = ['compliant', 'partially_compliant', 'non_compliant', 'not_assessed'] as const;
export type ControlStatus = (typeof CONTROL_STATUSES)[number];

/** A framework's (or the overall) posture in an analysis. */
export const POSTURE_STATUSES = ['compliant', 'at_risk', 'non_compliant', 'not_assessed'] as const;
export type PostureStatus = (typeof POSTURE_STATUSES)[number];
