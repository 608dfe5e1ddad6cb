import { ApiError } from '../core/errors.js';
import type { RateLimits } from '../tiers.js';

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** Seconds until the window that refused the request resets (only when refused). */
  retryAfter?: number;
  limit?: number;
  resetAt?: number;
}

/**
 * Counts requests per subject (`account:<name>` or an address) in fixed UTC windows. The memory
 * limiter answers synchronously (one node); the Redis limiter answers with a promise (every node
 * shares its counts), and the pipeline awaits only then.
 */
export interface RateLimiter {
  /** Counts one request for `subject` when it is within every window. */
  consume(subject: string, limits: RateLimits): RateDecision | Promise<RateDecision>;
  /** Drops state whose windows have ended (the memory limiter's housekeeping; Redis expires keys itself). */
  prune(): void;
  close(): Promise<void>;
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
export const UNLIMITED = 'unlimited';

/** The fixed windows `now` falls in. */
export function windowsAt(now: number): { minuteStart: number; dayStart: number } {
  return { minuteStart: now - (now % MINUTE_MS), dayStart: now - (now % DAY_MS) };
}

/**
 * The verdict and its headers from the counts after this request (counted only when allowed):
 * one function, so that both limiters answer with the same headers.
 */
export function decide(limits: RateLimits, now: number, minuteCount: number, dayCount: number, allowed: boolean): RateDecision {
  const { minuteStart, dayStart } = windowsAt(now);
  const minuteReset = minuteStart + MINUTE_MS;
  const dayReset = dayStart + DAY_MS;
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limits.perMinute),
    'X-RateLimit-Remaining': String(Math.max(0, limits.perMinute - minuteCount)),
    'X-RateLimit-Reset': String(Math.ceil(minuteReset / 1000)),
    'X-RateLimit-Daily-Limit': limits.perDay === null ? UNLIMITED : String(limits.perDay),
    'X-RateLimit-Daily-Remaining': limits.perDay === null ? UNLIMITED : String(Math.max(0, limits.perDay - dayCount)),
  };
  if (allowed) return { allowed, headers };
  const overDay = limits.perDay !== null && dayCount >= limits.perDay;
  // When both windows are exhausted the caller must wait for the later reset.
  const resetAt = overDay ? dayReset : minuteReset;
  const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
  return { allowed, headers, retryAfter, resetAt, limit: overDay ? (limits.perDay as number) : limits.perMinute };
}

export function rateLimitedError(decision: RateDecision): ApiError {
  const retryAfter = decision.retryAfter ?? 1;
  return new ApiError(
    'rate_limited',
    { limit: decision.limit, remaining: 0, reset_at: new Date(decision.resetAt ?? Date.now()).toISOString(), retry_after: retryAfter },
    { headers: Object.assign({}, decision.headers, { 'Retry-After': String(retryAfter) }) },
  );
}
