/**
 * Piscina task module: thin wrappers over pure functions in src/, one per entry of the task table
 * in src/pool.ts. Each worker opens the compiled registry read-only once, when the thread starts,
 * and keeps it for its life.
 */
import { workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { Registry } from '../src/registry/registry.js';
import { analyze as analyzeRequest, type AnalyzeTask, type AnalyzeOutput } from '../src/gap/analyze.js';
import { validateItems, type BatchOutcome, type ValidateBatchTask } from '../src/validation/validator.js';
import { gapIndexOf } from '../src/gap/gap-index.js';
import { compareStored, type CompareOutcome, type CompareTask } from '../src/gap/compare.js';
import { registryControls, registryEvidence } from '../src/export/model.js';
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

/** Marks a result so Piscina transfers `buffers` to the main thread instead of copying them. */
function transferring<T>(value: T, ...buffers: ArrayBufferLike[]): T {
  return Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: value } as never) as unknown as T;
}

/**
 * The pdf and xlsx renderers load pdfkit and exceljs: about 0.5 s of module loading that would
 * sit on the start-up path of every thread. They load after the thread has said it is ready, so
 * the service is ready sooner and the first export seldom waits for them.
 */
let renderers: Promise<typeof import('../src/export/render.js')> | undefined;
const loadRenderers = () => (renderers ??= import('../src/export/render.js'));

/** Answers once this thread's module (registry and gap index included) has loaded. */
export function ready(): true {
  setImmediate(loadRenderers);
  return true;
}

export function analyze(task: AnalyzeTask): AnalyzeOutput {
  const output = analyzeRequest(registry, task);
  const buffers: ArrayBufferLike[] = output.ok ? [output.payload.buffer] : [];
  if (output.unusedMemory) buffers.push(output.unusedMemory);
  return buffers.length ? transferring(output, ...buffers) : output;
}

/** POST /v1/gap-analysis/compare of large analyses: parsing two stored results is the heavy part. */
export function compare(task: CompareTask): CompareOutcome {
  return compareStored(task);
}

/** POST /v1/validate/batch above the inline size: schema checks only, no registry reads. */
export function validateBatch(task: ValidateBatchTask): BatchOutcome {
  return validateItems(task.schema, task.items);
}

/** POST/GET /v1/gap-analysis/:id/export of a format rendered in the pool (pdf, xlsx): the whole file, transferred back. */
export async function renderExport(task: RenderExportTask): Promise<Uint8Array> {
  const index = gapIndexOf(registry);
  const { renderExport: renderExportFile } = await loadRenderers();
  const file = await renderExportFile(task, registryEvidence(index), registryControls(index));
  return transferring(file, file.buffer);
}

/** POST /v1/findings/import above the inline size: read the scanner file, convert, serialize. */
export function importFindings(task: ImportFindingsTask): ImportFindingsOutput {
  const output = importFindingsOf(registry, task);
  return output.ok ? transferring(output, output.payload.buffer) : output;
}

/** POST /v1/gap-analysis/import above the inline size: convert the file, then the analysis create runs. */
export function importAnalysis(task: ImportAnalysisTask): AnalyzeOutput {
  const output = importAnalysisOf(registry, task);
  return output.ok ? transferring(output, output.payload.buffer) : output;
}

({ ready, analyze, compare, validateBatch, renderExport, importFindings, importAnalysis }) satisfies TaskModule;
