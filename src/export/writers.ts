/**
 * The export formats as one table: for each, the content type and file extension it is sent with,
 * the minimum tier that may ask for it, where the file is produced, and its writer. The route
 * (src/api/exports.ts) and the worker task (render.ts) read this table; neither names a format.
 *
 * - `http-thread`: streamed from the thread that serves requests, in chunks as the socket drains
 *   (json, csv: both can be written front to back).
 * - `worker-pool`: rendered whole in a pool worker and sent with backpressure (pdf, xlsx: both
 *   formats need the complete document before the first byte is final). Their libraries take about
 *   a second to load, so a worker loads a writer on its first export of that format.
 *
 * The spec tiers csv at Pro and xlsx at Teams (Variant A) and leaves pdf untiered; pdf is rendered
 * in the pool like xlsx, so it takes xlsx's tier (docs/exports.md). json is the stored result,
 * available wherever GET :id is (Pro).
 */
import type { Tier } from '../tiers.js';
import type { ExportFormat, ResolvedExportOptions } from '../schemas/export.js';
import { csvExport } from './csv.js';
import { jsonExport } from './json.js';
import { exportView, parseStoredAnalysis, type EvidenceLookup, type ExportHeader, type ExportView } from './model.js';

interface FormatFacts {
  contentType: string;
  extension: string;
  tier: Tier;
}

/** What a streamed writer is given: the stored analysis bytes and the resolved request. */
export interface StreamRequest {
  payload: Buffer;
  header: ExportHeader;
  options: ResolvedExportOptions;
  evidence?: EvidenceLookup;
}

export interface StreamedWriter extends FormatFacts {
  runs: 'http-thread';
  /** Parses (when it must) before returning, so a fault is still an ordinary 500 before the response starts. */
  stream(request: StreamRequest): AsyncIterable<Buffer>;
}

export type RenderFile = (view: ExportView, header: ExportHeader) => Promise<Buffer>;

export interface RenderedWriter extends FormatFacts {
  runs: 'worker-pool';
  load(): Promise<RenderFile>;
}

export type ExportWriter = StreamedWriter | RenderedWriter;

export const EXPORT_WRITERS: Readonly<Record<ExportFormat, ExportWriter>> = {
  json: {
    contentType: 'application/json; charset=utf-8',
    extension: 'json',
    tier: 'pro',
    runs: 'http-thread',
    stream: ({ payload, header, options, evidence }) => jsonExport(payload, header, options, evidence),
  },
  csv: {
    contentType: 'text/csv; charset=utf-8',
    extension: 'csv',
    tier: 'pro',
    runs: 'http-thread',
    stream: ({ payload, options, evidence }) => csvExport(exportView(parseStoredAnalysis(payload), options, evidence)),
  },
  pdf: {
    contentType: 'application/pdf',
    extension: 'pdf',
    tier: 'teams',
    runs: 'worker-pool',
    load: async () => (await import('./pdf/index.js')).renderPdf,
  },
  xlsx: {
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extension: 'xlsx',
    tier: 'teams',
    runs: 'worker-pool',
    load: async () => (await import('./xlsx.js')).renderXlsx,
  },
};
