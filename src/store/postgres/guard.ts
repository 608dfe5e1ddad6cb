import { performance } from 'node:perf_hooks';
import { ApiError } from '../../core/errors.js';
import type { StoreHealth } from '../types.js';

/** Why a store call was refused (details.reason of store_unavailable). */
export type RefusalReason = 'timeout' | 'unreachable' | 'account_busy';

export interface GuardOptions {
  /** A call's deadline, queueing included (STORE_TIMEOUT_MS). */
  timeoutMs: number;
  /** Store calls one account may have running at once on this node; more wait their turn within the deadline. */
  accountConcurrency: number;
  /** One round trip to the database (SELECT 1). */
  probe: () => Promise<unknown>;
  /** Told when the database stops answering (false) and answers again (true). */
  onChange?: (available: boolean, error?: unknown) => void;
}

/** Seconds a refused caller is told to wait: about the time a probe takes to notice the database is back. */
export const STORE_RETRY_AFTER_S = 1;
/** While the database answers, one probe this often notices a hang that no request happened to meet. */
const HEARTBEAT_MS = 250;
/** A probe gets at most this long (or the deadline, if shorter) before the database counts as not answering. */
const PROBE_TIMEOUT_MS = 1000;

/** Errors of the connection itself, as opposed to those of one statement. */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Whether an error says the database cannot be reached or is refusing work as a whole: a lost or
 * refused connection, SQLSTATE class 08 (connection exception), 53 (insufficient resources, e.g.
 * too many connections) or 57P0x (shutting down, starting up).
 */
export function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return CONNECTION_CODES.has(code) || code.startsWith('08') || code.startsWith('53') || /^57P0[1-4]$/.test(code);
}

/** statement_timeout (or a cancel) ended the statement. */
const isStatementTimeout = (error: unknown) => (error as { code?: unknown } | null)?.code === '57014';

interface AccountTurns {
  running: number;
  waiting: Array<() => void>;
}

/**
 * Every call to PostgreSQL goes through here. It gives each call a deadline (the answer past it is
 * 503 store_unavailable with Retry-After, never a hang), refuses at once while the database is
 * known not to answer (so callers do not queue behind a hung server), probes in the background to
 * notice it answering again, and lets no account hold more than `accountConcurrency` calls at once.
 */
export class StoreGuard {
  private available = true;
  private since = Date.now();
  private probing = false;
  private failedProbes = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly accounts = new Map<string, AccountTurns>();
  private closed = false;
  /** Refusals by reason, since start (metrics). */
  readonly refused: Record<RefusalReason, number> = { timeout: 0, unreachable: 0, account_busy: 0 };

  constructor(private readonly options: GuardOptions) {
    this.heartbeat = setInterval(() => {
      if (this.available) this.check();
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  health(): StoreHealth {
    return {
      kind: 'postgres',
      available: this.available,
      since: new Date(this.since).toISOString(),
      timeout_ms: this.options.timeoutMs,
      refused: { ...this.refused },
    };
  }

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.retryTimer);
  }

  /**
   * Runs `work` within the deadline (`timeoutMs`, the store's unless given), counting it against
   * `account`'s turns when one is named. Errors of the work pass through unless they are the
   * database's unavailability, which becomes store_unavailable.
   */
  async run<T>(account: string | undefined, work: () => Promise<T>, timeoutMs = this.options.timeoutMs): Promise<T> {
    if (!this.available) throw this.refuse('unreachable');
    const deadline = performance.now() + timeoutMs;
    const release = account === undefined ? undefined : await this.turn(account, deadline);
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<T>;
    try {
      running = work();
    } catch (error) {
      running = Promise.reject(error);
    }
    // The turn is given back when the work ends, not at the deadline: work that outlives its caller still holds a connection.
    if (release) running.then(release, release);
    try {
      return await Promise.race([
        running,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(this.refuse('timeout')), Math.max(0, deadline - performance.now()));
        }),
      ]);
    } catch (error) {
      if (error instanceof ApiError) {
        // A call past its deadline: find out at once whether the database answers at all.
        if (error.code === 'store_unavailable' && error.details?.reason === 'timeout') this.check();
        throw error;
      }
      if (isStatementTimeout(error)) throw this.refuse('timeout');
      if (isUnavailable(error)) {
        this.setAvailable(false, error);
        this.check();
        throw this.refuse('unreachable');
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private refuse(reason: RefusalReason): ApiError {
    this.refused[reason] += 1;
    const details = { reason, timeout_ms: this.options.timeoutMs, retry_after: STORE_RETRY_AFTER_S };
    const message =
      reason === 'account_busy'
        ? `This account already has ${this.options.accountConcurrency} store operations running on this node; retry in ${STORE_RETRY_AFTER_S} seconds`
        : undefined;
    return new ApiError('store_unavailable', details, { message, headers: { 'Retry-After': String(STORE_RETRY_AFTER_S) } });
  }

  /** Waits for one of the account's turns until the deadline; resolves to the function that gives it back. */
  private turn(account: string, deadline: number): Promise<() => void> {
    let turns = this.accounts.get(account);
    if (!turns) {
      turns = { running: 0, waiting: [] };
      this.accounts.set(account, turns);
    }
    const held = turns;
    let given = false;
    const release = () => {
      if (given) return;
      given = true;
      const next = held.waiting.shift();
      if (next) next();
      else if (--held.running === 0) this.accounts.delete(account);
    };
    if (held.running < this.options.accountConcurrency) {
      held.running += 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      // A turn handed over keeps `running` as it is: one call ends, this one begins.
      const take = () => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(
        () => {
          held.waiting.splice(held.waiting.indexOf(take), 1);
          reject(this.refuse('account_busy'));
        },
        Math.max(0, deadline - performance.now()),
      );
      held.waiting.push(take);
    });
  }

  private setAvailable(available: boolean, error?: unknown): void {
    if (this.available === available || this.closed) return;
    this.available = available;
    this.since = Date.now();
    this.options.onChange?.(available, error);
  }

  /**
   * One probe at a time. It answering marks the database available; no answer within the probe
   * timeout, or a connection error, marks it unavailable, and a failed probe is followed by the
   * next after 0, 50, 100 … ms, never more than 500 ms apart. A probe that hangs is waited for: it
   * answers as soon as the server does (a paused server resumed), or fails with its connection.
   */
  private check(): void {
    if (this.probing || this.closed) return;
    this.probing = true;
    clearTimeout(this.retryTimer);
    const timer = setTimeout(
      () => this.setAvailable(false, new Error(`no answer to a probe within ${Math.min(PROBE_TIMEOUT_MS, this.options.timeoutMs)} ms`)),
      Math.min(PROBE_TIMEOUT_MS, this.options.timeoutMs),
    );
    timer.unref();
    this.options.probe().then(
      () => {
        clearTimeout(timer);
        this.probing = false;
        this.failedProbes = 0;
        this.setAvailable(true);
      },
      (error) => {
        clearTimeout(timer);
        this.probing = false;
        this.setAvailable(false, error);
        if (this.closed) return;
        const delay = Math.min(25 * 2 ** this.failedProbes++, 500);
        this.retryTimer = setTimeout(() => this.check(), this.failedProbes === 1 ? 0 : delay);
        this.retryTimer.unref();
      },
    );
  }
}

/**
 * `target` with every method that returns a promise run through the guard. `accountOf` names the
 * account a call works for (its turns are counted), `sync` lists the methods to leave alone, and
 * `timeouts` gives background methods (the sweep) a deadline of their own.
 */
export function guarded<T extends object>(
  target: T,
  guard: StoreGuard,
  options: { sync?: readonly string[]; timeouts?: Record<string, number>; accountOf?: (method: string, args: unknown[]) => string | undefined } = {},
): T {
  const accountOf = options.accountOf ?? firstAccount;
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function' || typeof property !== 'string' || options.sync?.includes(property)) return value;
      let method = wrapped.get(property);
      if (!method) {
        const timeout = options.timeouts?.[property];
        method = (...args: unknown[]) =>
          guard.run(accountOf(property, args), () => (value as (...a: unknown[]) => Promise<unknown>).apply(object, args), timeout);
        wrapped.set(property, method);
      }
      return method;
    },
  });
}

/** The account a store call works for: its first argument, or that argument's `account` (an entry, a framework). */
export function firstAccount(_method: string, args: unknown[]): string | undefined {
  const [first] = args;
  if (typeof first === 'string') return first;
  const account = (first as { account?: unknown } | null | undefined)?.account;
  return typeof account === 'string' ? account : undefined;
}
