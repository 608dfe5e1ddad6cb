/**
 * Subscription tiers and everything that depends on them: rate limits (spec 8.1), gap-analysis
 * limits and retention (spec 8.2). Teams is not in the spec's rate table; its figures sit between
 * Pro and Enterprise and are documented in docs/limits.md.
 */
export const TIERS = ['community', 'pro', 'teams', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}

export function tierAtLeast(actual: Tier, required: Tier): boolean {
  return TIERS.indexOf(actual) >= TIERS.indexOf(required);
}

export interface RateLimits {
  perMinute: number;
  /** null = no daily cap (Enterprise). */
  perDay: number | null;
}

/**
 * Requests without a valid key, per address: a minute window only, so an address is forgotten
 * when its minute ends (such requests are only ever refused, and the limit exists to slow key
 * guessing, not to meter use).
 */
export const ADDRESS_RATE_LIMITS: RateLimits = { perMinute: 60, perDay: null };

/** Addresses the per-address limiter tracks at most; a new one beyond it displaces the oldest. */
export const ADDRESS_LIMITER_CAPACITY = 100_000;

export const RATE_LIMITS: Record<Tier, RateLimits> = {
  community: { perMinute: 60, perDay: 10_000 },
  pro: { perMinute: 300, perDay: 100_000 },
  teams: { perMinute: 600, perDay: 300_000 },
  enterprise: { perMinute: 1_000, perDay: null },
};

export interface GapAnalysisLimits {
  allowed: boolean;
  maxFindings: number;
  maxFrameworks: number;
  retentionDays: number;
  compare: boolean;
}

export const GAP_ANALYSIS_LIMITS: Record<Tier, GapAnalysisLimits> = {
  community: { allowed: false, maxFindings: 0, maxFrameworks: 0, retentionDays: 0, compare: false },
  pro: { allowed: true, maxFindings: 100, maxFrameworks: 1, retentionDays: 30, compare: false },
  teams: { allowed: true, maxFindings: 500, maxFrameworks: 11, retentionDays: 90, compare: true },
  enterprise: { allowed: true, maxFindings: 10_000, maxFrameworks: 11, retentionDays: 365, compare: true },
};
