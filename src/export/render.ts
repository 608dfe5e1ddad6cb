/**
 * The renderExport worker task: stored analysis bytes + options in, file bytes out. pdf and xlsx
 * are built whole (their formats need the full document before the first byte is final), so they
 * run in the pool, off the thread that serves requests.
 *
 * pdfkit and exceljs take about a second to load; they are imported on a worker's first export
 * rather than at thread start, so neither service start-up nor workers that only analyse pay it.
 */
import type { RenderExportTask } from '../schemas/export.js';
import { exportHeader, exportView, parseStoredAnalysis, type EvidenceLookup } from './model.js';

let writers: Promise<[typeof import('./pdf.js'), typeof import('./xlsx.js')]> | undefined;

export async function renderExport(task: RenderExportTask, lookup?: EvidenceLookup): Promise<Uint8Array> {
  writers ??= Promise.all([import('./pdf.js'), import('./xlsx.js')]);
  const [{ renderPdf }, { renderXlsx }] = await writers;
  const stored = parseStoredAnalysis(task.payload);
  const view = exportView(stored, task.options, lookup);
  const header = exportHeader(task.format, stored.data.analysis_id, task.account, task.generatedAt, task.options);
  const file = task.format === 'pdf' ? await renderPdf(view, header) : await renderXlsx(view, header);
  // A Buffer may be a view into a shared pool; hand back bytes that own their memory so they can be transferred.
  return file.byteOffset === 0 && file.byteLength === file.buffer.byteLength ? file : new Uint8Array(file);
}
