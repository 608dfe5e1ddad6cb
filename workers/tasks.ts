/**
 * Piscina task module: thin wrappers over pure functions in src/, one per entry of the task table
 * in src/pool.ts. Each worker opens the compiled registry read-only once, when the thread starts,
 * and keeps it for its life.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { workerData } from 'node:worker_threads';
import { PerformanceObserver, constants, performance, type NodeGCPerformanceDetail, type PerformanceEntry } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { Registry } from '../src/registry/registry.js';
import { analyze as analyzeRequest, type AnalyzeTask, type AnalyzeOutput } from '../src/gap/analyze.js';
import { validateItems, type BatchOutcome, type ValidateBatchTask } from '../src/validation/validator.js';
import { gapIndexOf } from '../src/gap/gap-index.js';
import { warmCoveragePlans } from '../src/gap/coverage-plan.js';
import { compareStored, type CompareOutcome, type CompareTask } from '../src/gap/compare.js';
import { scanMemberSpans, type DataMemberSpans } from '../src/gap/variant.js';
import { registryControls, registryEvidence } from '../src/export/model.js';
import { withCustomCatalogue, withCustomEvidence } from '../src/custom-frameworks/export.js';
import { readFramework as readFrameworkOf, type ReadFrameworkOutput, type ReadFrameworkTask } from '../src/custom-frameworks/read-task.js';
import type { RenderExportTask } from '../src/schemas/export.js';
import type { TaskModule } from '../src/pool.js';
import {
  importAnalysis as importAnalysisOf,
  importFindings as importFindingsOf,
  type ImportAnalysisTask,
  type ImportFindingsOutput,
  type ImportFindingsTask,
} from '../src/ingest/import.js';

// Open the registry and build the gap index when the thread starts, not on its first task. The
// gap index holds every fact an analysis reads, so the registry's own value cache stays small
// and the search index is never loaded: a smaller live heap keeps full GC pauses short.
const registry = Registry.open((workerData as { registryDir: string }).registryDir, { cacheEntries: 256, searchIndex: 'lazy' });
gapIndexOf(registry);
// What coverage plans read (src/gap/coverage-plan.ts), built in the thread's first idle turn rather than in its first analysis.
setImmediate(() => warmCoveragePlans(registry));

/** Marks a result so Piscina transfers `buffers` to the main thread instead of copying them. */
function transferring<T>(value: T, ...buffers: ArrayBufferLike[]): T {
  return Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: value } as never) as unknown as T;
}

/**
 * The pdf and xlsx renderers load pdfkit and exceljs: about 0.5 s of module loading that would
 * sit on the start-up path of every thread. They are asked for when the thread says it is ready,
 * so the service is ready sooner; the loading runs once the thread's event loop turns (right
 * after that answer: threads wait for tasks in their event loop, src/pool.ts), so an export
 * seldom waits for them.
 */
let renderers: Promise<typeof import('../src/export/render.js')> | undefined;
const loadRenderers = () => (renderers ??= import('../src/export/render.js'));

/**
 * A scavenge in the middle of an analysis copies that analysis's live objects, so before an
 * analysis that would not fit in the room left in the young generation the thread scavenges first,
 * while almost nothing is alive (figures: docs/benchmarks.md). `gc` is there when the process runs
 * with --expose-gc (src/node-flags.ts); without it (the service started in a test's own process)
 * the scavenges come when V8 needs them.
 */
const collect = (globalThis as { gc?: (options?: { type: 'minor' }) => void }).gc;

/**
 * What an analysis allocates, from the size of its request: about 1 MB for 20 findings × 11
 * frameworks (4.8 KB), 8.8 MB for 500 (118 KB), 19 MB for 2,000 (475 KB). An overestimate only
 * moves the scavenge a little earlier.
 */
const analysisAllocation = (requestBytes: number) => 2 * 1024 * 1024 + 80 * requestBytes;

const youngGeneration = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!;

function makeRoom(bytes: number): void {
  if (collect && youngGeneration().space_available_size < bytes) collect({ type: 'minor' });
}

/** A task over a request of this size or more leaves a full GC owed (see afterTask). */
const COLLECT_AFTER_REQUEST_BYTES = 1024 * 1024;
/** How long a thread must have been without a task before it runs an owed full GC. */
const IDLE_BEFORE_COLLECTION_MS = 250;

let collectionOwed = false;
let idleCollection: NodeJS.Timeout | undefined;

/**
 * Called at the end of every task. A task over a request of COLLECT_AFTER_REQUEST_BYTES or more
 * leaves garbage in both generations that V8 otherwise clears up in the middle of later tasks, so
 * it leaves a full GC owed, run once the thread has had no task for IDLE_BEFORE_COLLECTION_MS (run
 * at once, it made large tasks sent back to back wait for it). Figures: docs/benchmarks.md. The
 * end of a task also stops the replays that follow a full GC (see replayAfterIdleCollections).
 */
function afterTask(requestBytes: number): void {
  replaysLeft = 0;
  busyUntil = performance.now();
  if (!collect) return;
  if (requestBytes >= COLLECT_AFTER_REQUEST_BYTES) collectionOwed = true;
  if (!collectionOwed) return;
  clearTimeout(idleCollection);
  idleCollection = setTimeout(() => {
    collectionOwed = false;
    // `gc()` without an argument: Node 20's V8 reads an options object only for `type: 'minor'`
    // and `execution: 'async'`, and takes any other object as the old truthy flag for a scavenge,
    // so `{ type: 'major' }` scavenged instead.
    collect();
    startReplays();
  }, IDLE_BEFORE_COLLECTION_MS);
}

/**
 * A full GC while the thread has no task frees the hidden classes its optimized analysis code
 * checks for, and the next analyses ran unoptimized until TurboFan compiled them again. So after
 * such a GC (the owed one, or V8's memory reducer) the thread replays its latest analysis, if its
 * request was under COLLECT_AFTER_REQUEST_BYTES (else the warm-up's), up to REPLAYS_WHEN_IDLE
 * times, one per turn of the event loop, so a task that arrives waits for one replay at most; and
 * it replays its first analysis once idle, since the warm-up's request has other fields than the
 * clients'. The request stays in this thread's memory only. How it was found, and figures:
 * docs/benchmarks.md, "Replays after an idle full GC".
 */
const REPLAYS_WHEN_IDLE = 16;

/** The latest analysis this thread ran whose request was small enough to replay. */
let latestAnalysis: Pick<AnalyzeTask, 'body' | 'tier'> | undefined;
let replaysLeft = 0;
/** When the thread last finished a task or a replay (performance.now()): a full GC after it began idle. */
let busyUntil = 0;

function replay(): void {
  if (replaysLeft === 0) return;
  replaysLeft--;
  const task = latestAnalysis ? { ...latestAnalysis, id: 'replay', createdAt: new Date().toISOString() } : warmUpTask();
  analyzeInRoom(task);
  busyUntil = performance.now();
  setImmediate(replay);
}

function startReplays(): void {
  replaysLeft = REPLAYS_WHEN_IDLE;
  setImmediate(replay);
}

/**
 * V8's own full GCs while the thread is idle (its memory reducer), seen through the GC entries
 * of the performance timeline. Node hands those over on a later turn of the event loop, so the
 * owed collection starts its replays itself (afterTask), and its own entry, older than the
 * replays, starts nothing.
 */
function replayAfterIdleCollections(): void {
  new PerformanceObserver((list) => {
    const collectedWhileIdle = list
      .getEntries()
      .some(
        (entry) =>
          (entry as PerformanceEntry & { detail: NodeGCPerformanceDetail }).detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR && entry.startTime >= busyUntil,
      );
    if (collectedWhileIdle && replaysLeft === 0) startReplays();
  }).observe({ entryTypes: ['gc'] });
}

/** An analysis, once the young generation has room for what it allocates: the warm-up's and a task's. */
function analyzeInRoom(task: AnalyzeTask): AnalyzeOutput {
  makeRoom(analysisAllocation(task.body.byteLength));
  return analyzeRequest(registry, task);
}

/**
 * A thread's first analyses are slow: V8 compiles their code, and each page of the young
 * generation costs a page fault the first time it is written. So before the thread says it is
 * ready it analyses a request made from the registry (500 findings over its signals, every
 * status, every gap-analysis framework, evidence asked for) at least WARM_UP_MIN_ANALYSES times,
 * then until its young generation (at full size from the start, src/node-flags.ts) has been
 * emptied twice at a size that no longer grows, at most WARM_UP_MAX_ANALYSES times. Figures, and
 * what it adds to the time to `/readyz`: docs/benchmarks.md.
 */
const WARM_UP_MIN_ANALYSES = 4;
const WARM_UP_MAX_ANALYSES = 32;
const WARM_UP_STATUSES = ['open', 'in_progress', 'accepted', 'false_positive', 'resolved'];

let warmUpBody: Buffer | undefined;

/** The warm-up's request, made once from the registry. */
function warmUpTask(): AnalyzeTask {
  if (!warmUpBody) {
    const ids = registry.signalIds();
    const findings = Array.from({ length: 500 }, (_, i) => ({
      id: `warm-up-${i}`,
      signal_id: ids[(i * 7919) % ids.length],
      status: WARM_UP_STATUSES[i % WARM_UP_STATUSES.length],
    }));
    warmUpBody = Buffer.from(JSON.stringify({ frameworks: registry.gapFrameworkCodes(), findings, options: { include_evidence_requirements: true } }));
  }
  return { body: warmUpBody, tier: 'enterprise', id: 'warm-up', createdAt: new Date().toISOString() };
}

function warmUp(): void {
  let size = 0;
  let used = 0;
  let emptiedAtSize = 0;
  for (let i = 1; i <= WARM_UP_MAX_ANALYSES; i++) {
    analyzeInRoom(warmUpTask());
    const young = youngGeneration();
    if (young.space_size !== size) {
      size = young.space_size;
      emptiedAtSize = 0;
    } else if (young.space_used_size < used) {
      emptiedAtSize++;
    }
    used = young.space_used_size;
    if (i >= WARM_UP_MIN_ANALYSES && emptiedAtSize >= 2) return;
  }
}

warmUp();
replayAfterIdleCollections();

/** Answers once this thread's module (registry and gap index included) has loaded. */
export function ready(): true {
  setImmediate(loadRenderers);
  return true;
}

export function analyze(task: AnalyzeTask): AnalyzeOutput {
  const output = analyzeInRoom(task);
  // The thread's first analysis is replayed once the thread is idle (see REPLAYS_WHEN_IDLE).
  const firstOfThread = latestAnalysis === undefined;
  if (output.ok && task.body.byteLength < COLLECT_AFTER_REQUEST_BYTES) latestAnalysis = { body: task.body, tier: task.tier };
  afterTask(task.body.byteLength);
  if (firstOfThread && latestAnalysis) startReplays();
  const buffers: ArrayBufferLike[] = output.ok ? [output.payload.buffer] : [];
  if (output.unusedMemory) buffers.push(output.unusedMemory);
  return buffers.length ? transferring(output, ...buffers) : output;
}

/** POST /v1/gap-analysis/compare of large analyses: parsing two stored results is the heavy part. */
export function compare(task: CompareTask): CompareOutcome {
  const outcome = compareStored(task);
  afterTask(task.baseline.byteLength + task.current.byteLength);
  return outcome;
}

/** POST /v1/validate/batch above the inline size: schema checks only, no registry reads. */
export function validateBatch(task: ValidateBatchTask): BatchOutcome {
  const outcome = validateItems(task.schema, task.items);
  afterTask(0);
  return outcome;
}

/** POST/GET /v1/gap-analysis/:id/export of a format rendered in the pool (pdf, xlsx): the whole file, transferred back. */
export async function renderExport(task: RenderExportTask): Promise<Uint8Array> {
  // A full GC while this task awaits is not one of an idle thread.
  busyUntil = Infinity;
  try {
    const index = gapIndexOf(registry);
    const { renderExport: renderExportFile } = await loadRenderers();
    const file = await renderExportFile(
      task,
      withCustomEvidence(registryEvidence(index), task.customControls),
      withCustomCatalogue(registryControls(index), task.customControls),
    );
    return transferring(file, file.buffer);
  } finally {
    afterTask(task.payload.byteLength);
  }
}

/** POST /v1/findings/import above the inline size: read the scanner file, convert, serialize. */
export function importFindings(task: ImportFindingsTask): ImportFindingsOutput {
  const output = importFindingsOf(registry, task);
  afterTask(task.body.byteLength);
  return output.ok ? transferring(output, output.payload.buffer) : output;
}

/** POST /v1/gap-analysis/import above the inline size: convert the file, then the analysis create runs. */
export function importAnalysis(task: ImportAnalysisTask): AnalyzeOutput {
  const output = importAnalysisOf(registry, task);
  afterTask(task.body.byteLength);
  return output.ok ? transferring(output, output.payload.buffer) : output;
}

/** GET /v1/gap-analysis/:id?variant= of an analysis stored before its member spans were kept: a read of every byte. */
export function dataMemberSpans(task: { payload: Uint8Array }): DataMemberSpans {
  const spans = scanMemberSpans(task.payload);
  afterTask(0);
  return spans;
}

/** POST /v1/frameworks, PUT /v1/frameworks/:code above the inline size: read the file and check it against the registry. */
export async function readFramework(task: ReadFrameworkTask): Promise<ReadFrameworkOutput> {
  busyUntil = Infinity;
  try {
    return await readFrameworkOf(registry, task);
  } finally {
    afterTask(task.body.byteLength);
  }
}

({ ready, analyze, compare, validateBatch, renderExport, importFindings, importAnalysis, dataMemberSpans, readFramework }) satisfies TaskModule;
