import { ApiError } from '../core/errors.js';
import type { RateLimits } from '../tiers.js';

/**
 * Fixed windows per account, in memory: one per UTC minute and one per UTC day. Fixed windows make
 * X-RateLimit-Reset exact and cost two counters per account. A process restart forgets counts,
 * which errs in the caller's favour (documented in docs/limits.md).
 */
interface Usage {
  minuteStart: number;
  minuteCount: number;
  dayStart: number;
  dayCount: number;
  /** Whether a daily window counts for this subject: without one, the entry ends with its minute. */
  daily: boolean;
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** Seconds until the window that refused the request resets (only when refused). */
  retryAfter?: number;
  limit?: number;
  resetAt?: number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
export const UNLIMITED = 'unlimited';

export class RateLimiter {
  private readonly usage = new Map<string, Usage>();

  /**
   * `maxSubjects` bounds the table: a new subject beyond it first drops every entry whose windows
   * have ended, then, if still full, the oldest entry (for per-address limits, where anyone can
   * make new subjects).
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxSubjects = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.usage.size;
  }

  /** Counts one request for `subject` when it is within both windows. */
  consume(subject: string, limits: RateLimits): RateDecision {
    return this.decide(subject, limits, true);
  }

  /** The headers for `subject` without counting a request (for refusals before the limiter). */
  peek(subject: string, limits: RateLimits): RateDecision {
    return this.decide(subject, limits, false);
  }

  private decide(subject: string, limits: RateLimits, count: boolean): RateDecision {
    const now = this.now();
    const minuteStart = now - (now % MINUTE);
    const dayStart = now - (now % DAY);
    let usage = this.usage.get(subject);
    if (!usage) {
      if (this.usage.size >= this.maxSubjects) this.makeRoom();
      usage = { minuteStart, minuteCount: 0, dayStart, dayCount: 0, daily: limits.perDay !== null };
      this.usage.set(subject, usage);
    }
    if (usage.minuteStart !== minuteStart) Object.assign(usage, { minuteStart, minuteCount: 0 });
    if (usage.dayStart !== dayStart) Object.assign(usage, { dayStart, dayCount: 0 });

    const minuteReset = minuteStart + MINUTE;
    const dayReset = dayStart + DAY;
    const overMinute = usage.minuteCount >= limits.perMinute;
    const overDay = limits.perDay !== null && usage.dayCount >= limits.perDay;
    const allowed = !overMinute && !overDay;
    if (allowed && count) {
      usage.minuteCount += 1;
      usage.dayCount += 1;
    }
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(limits.perMinute),
      'X-RateLimit-Remaining': String(Math.max(0, limits.perMinute - usage.minuteCount)),
      'X-RateLimit-Reset': String(Math.ceil(minuteReset / 1000)),
      'X-RateLimit-Daily-Limit': limits.perDay === null ? UNLIMITED : String(limits.perDay),
      'X-RateLimit-Daily-Remaining': limits.perDay === null ? UNLIMITED : String(Math.max(0, limits.perDay - usage.dayCount)),
    };
    if (allowed) return { allowed, headers };
    // When both windows are exhausted the caller must wait for the later reset.
    const resetAt = overDay ? dayReset : minuteReset;
    const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
    return { allowed, headers, retryAfter, resetAt, limit: overDay ? (limits.perDay as number) : limits.perMinute };
  }

  /** Drops the entries whose windows have all ended, so idle subjects do not hold memory. */
  prune(): void {
    const now = this.now();
    const minuteStart = now - (now % MINUTE);
    const dayStart = now - (now % DAY);
    for (const [subject, usage] of this.usage) {
      if (usage.minuteStart !== minuteStart && (!usage.daily || usage.dayStart !== dayStart)) this.usage.delete(subject);
    }
  }

  private makeRoom(): void {
    this.prune();
    if (this.usage.size < this.maxSubjects) return;
    const oldest = this.usage.keys().next().value;
    if (oldest !== undefined) this.usage.delete(oldest);
  }
}

export function rateLimitedError(decision: RateDecision): ApiError {
  const retryAfter = decision.retryAfter ?? 1;
  return new ApiError(
    'rate_limited',
    { limit: decision.limit, remaining: 0, reset_at: new Date(decision.resetAt ?? Date.now()).toISOString(), retry_after: retryAfter },
    { headers: { ...decision.headers, 'Retry-After': String(retryAfter) } },
  );
}
