/**
 * The renderExport worker task: stored analysis bytes + options in, file bytes out. pdf and xlsx
 * are built whole (their formats need the full document before the first byte is final), so they
 * run in the pool, off the thread that serves requests.
 */
import type { RenderExportTask } from '../schemas/export.js';
import { exportHeader, exportView, parseStoredAnalysis, type EvidenceLookup } from './model.js';
import { renderPdf } from './pdf.js';
import { renderXlsx } from './xlsx.js';

export async function renderExport(task: RenderExportTask, lookup?: EvidenceLookup): Promise<Uint8Array> {
  const stored = parseStoredAnalysis(task.payload);
  const view = exportView(stored, task.options, lookup);
  const header = exportHeader(task.format, stored.data.analysis_id, task.account, task.generatedAt, task.options);
  const file = task.format === 'pdf' ? await renderPdf(view, header) : await renderXlsx(view, header);
  // A Buffer may be a view into a shared pool; hand back bytes that own their memory so they can be transferred.
  return file.byteOffset === 0 && file.byteLength === file.buffer.byteLength ? file : new Uint8Array(file);
}

/** Evidence items from a registry, for analyses stored without include_evidence_requirements. */
export function registryEvidence(registry: { control(framework: string, id: string): { evidence?: string[] } | undefined }): EvidenceLookup {
  return (framework, controlId) => registry.control(framework, controlId)?.evidence;
}
