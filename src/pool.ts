import { Piscina } from 'piscina';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { projectRoot } from './paths.js';
import { WORKER_SEMI_SPACE_MB } from './node-flags.js';
import { ApiError, busyError } from './core/errors.js';
import type { AnalyzeOutput, AnalyzeTask } from './gap/analyze.js';
import type { CompareOutcome, CompareTask } from './gap/compare.js';
import type { DataMemberSpans } from './gap/variant.js';
import type { BatchOutcome, ValidateBatchTask } from './validation/validator.js';
import type { RenderExportTask } from './schemas/export.js';
import type { ImportAnalysisTask, ImportFindingsOutput, ImportFindingsTask } from './ingest/import.js';
import type { ReadFrameworkOutput, ReadFrameworkTask } from './custom-frameworks/read-task.js';

/**
 * The worker tasks, each a name with its input and its result: workers/tasks.ts implements this
 * table and every caller of the pool is checked against it.
 */
export interface WorkerTasks {
  ready: { input: null; output: true };
  analyze: { input: AnalyzeTask; output: AnalyzeOutput };
  compare: { input: CompareTask; output: CompareOutcome };
  validateBatch: { input: ValidateBatchTask; output: BatchOutcome };
  renderExport: { input: RenderExportTask; output: Uint8Array };
  importFindings: { input: ImportFindingsTask; output: ImportFindingsOutput };
  importAnalysis: { input: ImportAnalysisTask; output: AnalyzeOutput };
  dataMemberSpans: { input: { payload: Uint8Array }; output: DataMemberSpans };
  readFramework: { input: ReadFrameworkTask; output: ReadFrameworkOutput };
}

export type TaskName = keyof WorkerTasks;

/** What a task module must export: one function per task, sync or async. */
export type TaskModule = { [Name in TaskName]: (input: WorkerTasks[Name]['input']) => WorkerTasks[Name]['output'] | Promise<WorkerTasks[Name]['output']> };

/** Whether the pool can take work now, and if not, why (for /readyz). */
export interface PoolHealth {
  ready: boolean;
  reason?: 'starting' | 'queue_full';
  queued: number;
  queue_limit: number;
}

/**
 * The worker pool for heavy tasks (gap analysis, scanner import, batch validation, compare,
 * pdf/xlsx rendering).
 * The queue is bounded: when it is full the caller gets 503 service_busy with Retry-After instead
 * of an ever-growing backlog. Every task has a time budget: a task still unanswered when it runs
 * out is refused with 503 task_timeout and, if it was running, its thread is replaced, so a stuck
 * or crashed task can never wedge the pool.
 */
export interface TaskPool {
  /**
   * Runs a task. `closed`: the client went away; a task not yet on a thread is not started (its
   * promise rejects with the signal's reason). In a flood, clients that gave up while waiting for
   * a turn were still analysed, their bodies being in the socket's buffer ahead of its close.
   */
  run<Name extends TaskName>(
    task: Name,
    input: WorkerTasks[Name]['input'],
    transferList?: ArrayBuffer[],
    closed?: AbortSignal,
  ): Promise<WorkerTasks[Name]['output']>;
  /**
   * A turn to bring a request's work to the pool, taken before its body is read. At most
   * TURNS_PER_THREAD × threads requests hold one; the others wait for theirs with their bodies
   * unread, first in, first out, up to the queue limit (beyond it: service_busy at once), each
   * for at most the task budget (then task_timeout). Without turns, under a flood each place a
   * task freed in the queue was refilled at once with a newly read body, most for clients that had
   * given up, and the queue held up to 1 GB of them (docs/benchmarks.md). `closed` aborts
   * when the client goes away: a waiting request leaves the queue (its promise rejects with the
   * signal's reason), a held turn is released.
   */
  takeTurn(closed: AbortSignal): PoolTurn | Promise<PoolTurn>;
  /** Tasks waiting for a thread plus requests waiting for a turn (the metrics' queue depth). */
  readonly queueSize: number;
  readonly health: PoolHealth;
  /** Resolves when every thread has loaded its modules, opened the registry and built its index. */
  readonly ready: Promise<void>;
  readonly isReady: boolean;
  /** Memory of answers already sent, for workers to write later answers into. */
  readonly answerBuffers: AnswerBuffers;
  /** Ends the threads; every task not yet finished, waiting or running, rejects with 503 shutting_down. */
  close(): Promise<void>;
}

/** A task waiting for a thread, or a request waiting for a turn. */
interface Waiting {
  admit(): void;
  refuse(error: ApiError): void;
}

/**
 * Whose work a request brings to the pool: the pipeline marks the `closed` signal it hands to a
 * handler with the caller's account, and the pool reads it back from the signal `run` is given,
 * so every caller of the pool counts under its account without passing it along.
 */
const signalOwners = new WeakMap<AbortSignal, string>();

export function markOwner(closed: AbortSignal, owner: string): AbortSignal {
  signalOwners.set(closed, owner);
  return closed;
}

/**
 * Those waiting for a thread (or a turn), served fairly between accounts: the next admitted is the
 * oldest of the account with the fewest in service (running, or holding a turn); among equals,
 * the account served least recently, then the one waiting longest. Served first in, first out,
 * one account's pdf exports held every other account's work behind them all (docs/benchmarks.md);
 * now another account's task waits for the first thread to come free. Work without an owner
 * counts under one shared name.
 */
export class FairLine {
  private readonly waiting = new Map<string, Array<{ entry: Waiting; order: number }>>();
  private readonly inService = new Map<string, number>();
  /** When each account waiting or in service last started (an arrival number); never: absent. */
  private readonly lastStart = new Map<string, number>();
  private arrivals = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  add(owner: string, entry: Waiting): void {
    let line = this.waiting.get(owner);
    if (!line) this.waiting.set(owner, (line = []));
    line.push({ entry, order: this.arrivals++ });
    this.count++;
  }

  remove(owner: string, entry: Waiting): void {
    const line = this.waiting.get(owner);
    const at = line ? line.findIndex((waiting) => waiting.entry === entry) : -1;
    if (at < 0) return;
    line!.splice(at, 1);
    if (line!.length === 0) {
      this.waiting.delete(owner);
      if (!this.inService.has(owner)) this.lastStart.delete(owner);
    }
    this.count--;
  }

  /** The next to admit, now counted in service under its owner; undefined when no one waits. */
  next(): { owner: string; entry: Waiting } | undefined {
    let chosen: string | undefined;
    let chosenLine: Array<{ entry: Waiting; order: number }> | undefined;
    for (const [owner, line] of this.waiting) {
      if (!chosenLine || this.before(owner, line[0].order, chosen!, chosenLine[0].order)) {
        chosen = owner;
        chosenLine = line;
      }
    }
    if (chosen === undefined) return undefined;
    const { entry } = chosenLine!.shift()!;
    if (chosenLine!.length === 0) this.waiting.delete(chosen);
    this.count--;
    this.start(chosen);
    return { owner: chosen, entry };
  }

  /** Every waiting entry, the line emptied. */
  drain(): Waiting[] {
    const all = [...this.waiting.values()].flat().sort((a, b) => a.order - b.order);
    this.waiting.clear();
    this.lastStart.clear();
    this.count = 0;
    return all.map(({ entry }) => entry);
  }

  start(owner: string): void {
    this.inService.set(owner, this.served(owner) + 1);
    this.lastStart.set(owner, this.arrivals++);
  }

  finish(owner: string): void {
    const served = this.served(owner) - 1;
    if (served > 0) this.inService.set(owner, served);
    else {
      this.inService.delete(owner);
      if (!this.waiting.has(owner)) this.lastStart.delete(owner);
    }
  }

  private served(owner: string): number {
    return this.inService.get(owner) ?? 0;
  }

  /** Whether `owner`'s oldest (arrived at `order`) goes before `other`'s. */
  private before(owner: string, order: number, other: string, otherOrder: number): boolean {
    const served = this.served(owner) - this.served(other);
    if (served !== 0) return served < 0;
    const last = (this.lastStart.get(owner) ?? -1) - (this.lastStart.get(other) ?? -1);
    if (last !== 0) return last < 0;
    return order < otherOrder;
  }
}

/** The name work without an account counts under. */
const NO_OWNER = '';

/** A request's place among those bringing work to the pool: release it once its work is handed over and answered. */
export interface PoolTurn {
  /** Gives the turn to the next waiting request; later calls do nothing. */
  release(): void;
}

/**
 * Turns per thread: one request whose task runs on the thread, one whose body is read and ready
 * behind it, so that a thread finishing a task finds the next one waiting.
 */
export const TURNS_PER_THREAD = 2;

/** Buffers below this size are not kept: the cost they spare is small, and Node's shared pool slabs (8 KB) must never be handed on. */
const ANSWER_BUFFER_MIN_BYTES = 64 * 1024;
/** At most this many buffers and bytes are kept; beyond that a sent answer's memory is left to the collector. */
const ANSWER_BUFFERS_MAX_COUNT = 4;
const ANSWER_BUFFERS_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The memory of analysis answers the HTTP thread has sent and stored, given back to the workers
 * to write later answers into. A worker's answer arrives as a transferred ArrayBuffer, memory
 * outside the HTTP thread's heap that only its collector could free: V8 starts a full GC of
 * that heap for every 64 MB of it, and with analyses back to back that kept the thread that
 * serves every request marking its heap. A buffer transferred back to a worker leaves the HTTP
 * thread's account at once, and a worker that writes into it faults in no new pages
 * (docs/benchmarks.md). The caller must give a buffer only once nothing reads it any more: the
 * answer sent and stored.
 */
export class AnswerBuffers {
  private readonly kept: ArrayBuffer[] = [];
  private keptBytes = 0;

  /** A kept buffer, no longer kept: the caller transfers it to a worker or gives it back. */
  take(): ArrayBuffer | undefined {
    const buffer = this.kept.pop();
    if (buffer) this.keptBytes -= buffer.byteLength;
    return buffer;
  }

  /** Keeps a buffer nothing reads any more, if it is worth keeping and there is room; a transferred (detached) one is ignored. */
  give(buffer: ArrayBufferLike): void {
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < ANSWER_BUFFER_MIN_BYTES) return;
    if (this.kept.length >= ANSWER_BUFFERS_MAX_COUNT || this.keptBytes + buffer.byteLength > ANSWER_BUFFERS_MAX_BYTES) return;
    this.kept.push(buffer);
    this.keptBytes += buffer.byteLength;
  }
}

/** A worker thread's young generation: V8 counts three semi-spaces (see createTaskPool). */
const WORKER_YOUNG_GENERATION_MB = 3 * WORKER_SEMI_SPACE_MB;

export const WORKER_ENTRY = join(projectRoot, 'dist', 'workers', 'tasks.js');

export interface TaskPoolOptions {
  threads: number;
  queueLimit: number;
  registryDir: string;
  /** Longest a task may wait for a thread, and longest it may then run on it. */
  taskTimeoutMs: number;
  /** The task module; tests substitute their own to exercise failing and stuck tasks. */
  filename?: string;
  /** Told of every task's end: its name, how it ended, and its time from submission (metrics). */
  onTaskDone?: (task: TaskName, outcome: 'ok' | 'failed' | 'timeout', seconds: number) => void;
}

export function createTaskPool(options: TaskPoolOptions): TaskPool {
  const piscina = new Piscina({
    filename: options.filename ?? WORKER_ENTRY,
    minThreads: options.threads,
    maxThreads: options.threads,
    workerData: { registryDir: options.registryDir },
    // A worker's task allocates a whole request and answer at once, and with V8's default 16 MB
    // semi-spaces it spent much of its time in scavenges copying objects still in use; so workers
    // get 128 MB semi-spaces (young generation = 3 × semi-space), from the start
    // (--min-semi-space-size, src/node-flags.ts). The HTTP thread keeps the default: larger
    // semi-spaces there made reads beside analyses slower. Figures: docs/benchmarks.md.
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    // A thread waits for its next task in its event loop, not blocked in Atomics.wait, so the
    // work it leaves for when it is idle runs then: the full GC after a large task and the
    // replays after a full GC (workers/tasks.ts `afterTask`, `replayAfterIdleCollections`), and
    // loading the pdf/xlsx renderers (analyses back to back were as fast either way).
    atomics: 'disabled',
  });
  // One `ready` task per thread: each thread answers it once its module has loaded. Waiting for
  // them also keeps close() from tearing a thread down mid-load, which can abort the process.
  let isReady = false;
  const ready = Promise.all(Array.from({ length: options.threads }, () => piscina.run(null, { name: 'ready' }))).then(() => {
    isReady = true;
  });

  // The queue is ours, not Piscina's: a task goes to Piscina only when a thread is free for it.
  // Piscina keeps abortable tasks (every task here has a time budget) in a side queue that
  // maxQueue does not count, and with stricterFIFO it puts a newly submitted task at the *head*
  // of that queue when no thread is free: last in, first out, which gave concurrent analyses a
  // p99 many times their p50 (docs/benchmarks.md).
  const waiting = new FairLine();
  let running = 0;
  // Once the pool closes, every task it has not finished is answered 503 shutting_down: the
  // HTTP server has drained first (src/server.ts), so these are tasks of clients that went away
  // or outlived the drain, and Piscina's own "aborted"/"terminating" errors would be logged as
  // failures of the service.
  let closing = false;
  const shuttingDown = () => new ApiError('shutting_down');
  const isFull = () => waiting.length >= options.queueLimit;
  // Turns: see TaskPool.takeTurn.
  const turnLimit = options.threads * TURNS_PER_THREAD;
  let turnsHeld = 0;
  const waitingForTurn = new FairLine();
  const turnLineFull = () => waitingForTurn.length >= options.queueLimit;
  const queued = () => waiting.length + waitingForTurn.length;
  const timeoutError = () => new ApiError('task_timeout', { timeout_ms: options.taskTimeoutMs, retry_after: 1 }, { headers: { 'Retry-After': '1' } });

  /**
   * Waits in `line`, first in, first out, until admitted (then resolves with what `admitted`
   * makes); leaves it, rejecting, when the task budget runs out (task_timeout) or the client goes
   * away (the signal's reason). Tasks wait so for a thread, requests for a turn.
   */
  function waitInLine<T>(line: FairLine, owner: string, closed: AbortSignal | undefined, admitted: () => T): Promise<T> {
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(budget);
        closed?.removeEventListener('abort', onClose);
      };
      const entry: Waiting = {
        admit: () => {
          leave();
          resolve(admitted());
        },
        refuse: (error: ApiError) => {
          leave();
          reject(error);
        },
      };
      const dequeue = (error: unknown) => {
        leave();
        line.remove(owner, entry);
        reject(error);
      };
      const budget = setTimeout(() => dequeue(timeoutError()), options.taskTimeoutMs);
      const onClose = () => dequeue(closed!.reason);
      closed?.addEventListener('abort', onClose, { once: true });
      line.add(owner, entry);
    });
  }

  /** Resolves when a thread is free for this task; rejects when its budget runs out or its client leaves first. */
  function takeThread(owner: string, closed: AbortSignal | undefined): Promise<void> {
    if (closed?.aborted) return Promise.reject(closed.reason);
    if (running < options.threads) {
      running++;
      waiting.start(owner);
      return Promise.resolve();
    }
    return waitInLine(waiting, owner, closed, () => undefined);
  }

  function heldTurn(owner: string, closed: AbortSignal): PoolTurn {
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      closed.removeEventListener('abort', release);
      waitingForTurn.finish(owner);
      const next = waitingForTurn.next();
      if (next) next.entry.admit();
      else turnsHeld--;
    };
    if (closed.aborted) release();
    else closed.addEventListener('abort', release, { once: true });
    return { release };
  }

  function takeTurn(closed: AbortSignal): PoolTurn | Promise<PoolTurn> {
    if (closing) throw shuttingDown();
    const owner = signalOwners.get(closed) ?? NO_OWNER;
    if (turnsHeld < turnLimit) {
      turnsHeld++;
      waitingForTurn.start(owner);
      return heldTurn(owner, closed);
    }
    if (turnLineFull()) throw busyError(options.queueLimit);
    return waitInLine(waitingForTurn, owner, closed, () => heldTurn(owner, closed));
  }

  /** Hands the finished task's thread to the next waiting task (FairLine). */
  function releaseThread(owner: string): void {
    waiting.finish(owner);
    const next = waiting.next();
    if (next) next.entry.admit();
    else running--;
  }

  return {
    ready,
    get isReady() {
      return isReady;
    },
    answerBuffers: new AnswerBuffers(),
    async run(task, input, transferList, closed) {
      if (closing) throw shuttingDown();
      if (isFull()) throw busyError(options.queueLimit);
      // Two budgets of TASK_TIMEOUT_MS: one to get a thread, one to run on it. With one budget
      // from submission, a queue holding more work than the budget had tasks spend it waiting and
      // running ones cut short, their threads replaced, and throughput fell to a third under a
      // flood (docs/benchmarks.md). A task that got its thread is stopped only if it is stuck.
      const submitted = performance.now();
      const done = (outcome: 'ok' | 'failed' | 'timeout') => options.onTaskDone?.(task, outcome, (performance.now() - submitted) / 1000);
      const owner = (closed && signalOwners.get(closed)) ?? NO_OWNER;
      try {
        await takeThread(owner, closed);
      } catch (error) {
        if (error instanceof ApiError) done(closing ? 'failed' : 'timeout');
        throw error;
      }
      const signal = AbortSignal.timeout(options.taskTimeoutMs);
      try {
        const output = await piscina.run(input, { name: task, transferList, signal });
        done('ok');
        return output;
      } catch (error) {
        done(signal.aborted ? 'timeout' : 'failed');
        if (closing) throw shuttingDown();
        if (signal.aborted) throw timeoutError();
        throw error;
      } finally {
        releaseThread(owner);
      }
    },
    takeTurn,
    get queueSize() {
      return queued();
    },
    get health(): PoolHealth {
      // Full when a new request would be refused at once: no turn to wait for, or no place to wait for a thread.
      const full = isFull() || turnLineFull();
      const reason = !isReady ? 'starting' : full ? 'queue_full' : undefined;
      return { ready: reason === undefined, reason, queued: queued(), queue_limit: options.queueLimit };
    },
    async close() {
      closing = true;
      for (const entry of waitingForTurn.drain()) entry.refuse(shuttingDown());
      for (const entry of waiting.drain()) entry.refuse(shuttingDown());
      await ready.catch(() => undefined);
      await piscina.destroy();
    },
  };
}
