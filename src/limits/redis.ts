import { Redis } from 'ioredis';
import type { RateLimits } from '../tiers.js';
import { MemoryRateLimiter } from './memory.js';
import { DAY_MS, decide, MINUTE_MS, windowsAt, type RateDecision, type RateLimiter } from './types.js';

/**
 * Check both windows and count the request in one step, on the server: nodes sharing a Redis can
 * never both take the last request of a window. KEYS: minute counter, day counter. ARGV: per-minute
 * limit, per-day limit (-1: none), and each counter's time to live in ms (its window's end plus a
 * margin for clock skew between nodes).
 */
const CONSUME_SCRIPT = `
local minute = tonumber(redis.call('GET', KEYS[1]) or '0')
local daily = ARGV[2] ~= '-1'
local day = 0
if daily then day = tonumber(redis.call('GET', KEYS[2]) or '0') end
local allowed = minute < tonumber(ARGV[1]) and ((not daily) or day < tonumber(ARGV[2]))
if allowed then
  minute = redis.call('INCR', KEYS[1])
  if minute == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
  if daily then
    day = redis.call('INCR', KEYS[2])
    if day == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
  end
end
return {allowed and 1 or 0, minute, day}
`;

/** Counters outlive their window by this much, so a node whose clock runs behind still finds them. */
const SKEW_MARGIN_MS = 60_000;

export interface RedisLimiterOptions {
  /** How long one call may take before this node answers from its own counts instead. */
  timeoutMs: number;
  now?: () => number;
  /** Told when the shared counts become unreachable (true) and reachable again (false). */
  onFallback?: (fallingBack: boolean, error?: unknown) => void;
  /** Calls in a row that Redis fails to answer before the node stops asking it (the breaker opens); default 3. */
  breakerFailures?: number;
}

type ConsumeReply = [number, number, number];

interface LimiterClient extends Redis {
  csrConsume(minuteKey: string, dayKey: string, perMinute: number, perDay: number, minuteTtl: number, dayTtl: number): Promise<ConsumeReply>;
}

/** Between two probes of an open breaker (after the previous one failed or timed out). */
const PROBE_INTERVAL_MS = 100;

/**
 * Rate limits shared by every node through Redis, with the memory limiter's windows and headers.
 * When Redis cannot answer (down, unreachable, slower than `timeoutMs`) the node fails open to a
 * limiter of its own: the same limits counted on this node alone, so a caller gets at most the
 * limit per node until Redis is back (docs/cluster.md). `fallbacks` counts such answers.
 *
 * A circuit breaker keeps a hung Redis from costing every request its timeout: after
 * `breakerFailures` calls in a row fail (at once when the connection is gone), the breaker opens
 * and requests are counted locally without asking Redis; a PING probes it in the background, and
 * the first answer (or the client's reconnection) closes the breaker and sharing resumes.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly client: LimiterClient;
  private readonly local: MemoryRateLimiter;
  private readonly now: () => number;
  private open = false;
  private failures = 0;
  private probing = false;
  private probeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Requests answered from this node's own counts because Redis did not answer. */
  fallbacks = 0;
  /** Times the breaker opened, since start. */
  openings = 0;

  constructor(
    url: string,
    private readonly options: RedisLimiterOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.local = new MemoryRateLimiter(this.now, 100_000);
    this.client = new Redis(url, {
      // Fail at once while disconnected instead of queueing: the request must not wait for a reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.timeoutMs,
      connectTimeout: Math.max(1000, options.timeoutMs),
      // Reconnect at once, then back off to half a second.
      retryStrategy: (attempt) => Math.min((attempt - 1) * 50, 500),
      lazyConnect: false,
    }) as LimiterClient;
    this.client.defineCommand('csrConsume', { numberOfKeys: 2, lua: CONSUME_SCRIPT });
    // Connection errors surface through failed calls; without a listener ioredis would print each one.
    this.client.on('error', () => {});
    // Connected and past ioredis's ready check: Redis answers.
    this.client.on('ready', () => this.closeBreaker());
  }

  /**
   * Resolves true once connected, or false after `timeoutMs` (the limiter then counts locally
   * until Redis answers). The service waits for this at start so its first requests are shared.
   */
  async ready(timeoutMs: number): Promise<boolean> {
    if (this.client.status === 'ready') return true;
    return new Promise((resolve) => {
      const done = (connected: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        if (!connected) this.openBreaker(new Error(`no connection to Redis within ${timeoutMs} ms`));
        resolve(connected);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.client.on('ready', onReady);
    });
  }

  /** Whether counts go to Redis (the breaker is closed). */
  get shared(): boolean {
    return !this.open;
  }

  async consume(subject: string, limits: RateLimits): Promise<RateDecision> {
    if (this.open) {
      this.fallbacks += 1;
      return this.local.consume(subject, limits);
    }
    const now = this.now();
    const { minuteStart, dayStart } = windowsAt(now);
    // One hash tag per subject keeps both counters in one slot (Redis Cluster runs the script then too).
    const minuteKey = `csr:rl:{${subject}}:m:${minuteStart}`;
    const dayKey = `csr:rl:{${subject}}:d:${dayStart}`;
    try {
      const [allowed, minuteCount, dayCount] = await this.client.csrConsume(
        minuteKey,
        dayKey,
        limits.perMinute,
        limits.perDay ?? -1,
        minuteStart + MINUTE_MS - now + SKEW_MARGIN_MS,
        dayStart + DAY_MS - now + SKEW_MARGIN_MS,
      );
      this.failures = 0;
      return decide(limits, now, minuteCount, dayCount, allowed === 1);
    } catch (error) {
      this.failures += 1;
      // Not connected: asking again would fail the same way, so open at once.
      if (this.failures >= (this.options.breakerFailures ?? 3) || this.client.status !== 'ready') this.openBreaker(error);
      this.fallbacks += 1;
      return this.local.consume(subject, limits);
    }
  }

  private openBreaker(error: unknown): void {
    if (this.open || this.closed) return;
    this.open = true;
    this.openings += 1;
    this.options.onFallback?.(true, error);
    this.probe();
  }

  private closeBreaker(): void {
    this.failures = 0;
    clearTimeout(this.probeTimer);
    if (!this.open) return;
    this.open = false;
    this.options.onFallback?.(false);
  }

  /** One PING at a time while the breaker is open; its answer closes it, its failure schedules the next. */
  private probe(): void {
    if (!this.open || this.probing || this.closed) return;
    this.probing = true;
    this.client.ping().then(
      () => {
        this.probing = false;
        this.closeBreaker();
      },
      () => {
        this.probing = false;
        this.probeTimer = setTimeout(() => this.probe(), PROBE_INTERVAL_MS);
        this.probeTimer.unref();
      },
    );
  }

  prune(): void {
    this.local.prune();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.probeTimer);
    this.client.disconnect();
  }
}
