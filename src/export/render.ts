/**
 * The renderExport worker task: stored analysis bytes + options in, file bytes out, for the
 * formats the writer table renders in the pool (src/export/writers.ts). A writer's library is
 * loaded on the worker's first export of that format, so neither service start-up nor workers
 * that only analyse pay for it.
 */
import type { RenderExportTask } from '../schemas/export.js';
import { exportHeader, exportView, parseStoredAnalysis, type ControlCatalogue, type EvidenceLookup } from './model.js';
import { EXPORT_WRITERS, type RenderFile } from './writers.js';

const loaded = new Map<string, Promise<RenderFile>>();

export async function renderExport(task: RenderExportTask, lookup?: EvidenceLookup, catalogue?: ControlCatalogue): Promise<Uint8Array> {
  const writer = EXPORT_WRITERS[task.format];
  if (writer.runs !== 'worker-pool') throw new Error(`the ${task.format} export is streamed, not rendered in a worker`);
  let render = loaded.get(task.format);
  if (!render) loaded.set(task.format, (render = writer.load()));
  const stored = parseStoredAnalysis(task.payload);
  const view = exportView(stored, task.options, lookup, catalogue);
  const header = exportHeader(task.format, stored.data.analysis_id, task.account, task.generatedAt, task.options);
  const file = await (await render)(view, header);
  // A Buffer may be a view into a shared pool; hand back bytes that own their memory so they can be transferred.
  return file.byteOffset === 0 && file.byteLength === file.buffer.byteLength ? file : new Uint8Array(file);
}
