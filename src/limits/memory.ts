import type { RateLimits } from '../tiers.js';
import { decide, windowsAt, type RateDecision, type RateLimiter } from './types.js';

export type { RateDecision } from './types.js';

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

export class MemoryRateLimiter implements RateLimiter {
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
    const { minuteStart, dayStart } = windowsAt(now);
    let usage = this.usage.get(subject);
    if (!usage) {
      if (this.usage.size >= this.maxSubjects) this.makeRoom();
      usage = { minuteStart, minuteCount: 0, dayStart, dayCount: 0, daily: limits.perDay !== null };
      this.usage.set(subject, usage);
    }
    if (usage.minuteStart !== minuteStart) Object.assign(usage, { minuteStart, minuteCount: 0 });
    if (usage.dayStart !== dayStart) Object.assign(usage, { dayStart, dayCount: 0 });

    const overMinute = usage.minuteCount >= limits.perMinute;
    const overDay = limits.perDay !== null && usage.dayCount >= limits.perDay;
    const allowed = !overMinute && !overDay;
    if (allowed && count) {
      usage.minuteCount += 1;
      usage.dayCount += 1;
    }
    return decide(limits, now, usage.minuteCount, usage.dayCount, allowed);
  }

  async close(): Promise<void> {}

  /** Drops the entries whose windows have all ended, so idle subjects do not hold memory. */
  prune(): void {
    const { minuteStart, dayStart } = windowsAt(this.now());
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
