/**
 * The csv export (RFC 4180: CRLF line ends, quotes doubled, fields quoted when they need it):
 * one row per assessed control per selected framework. Rows are produced as the socket takes
 * them: the formatter pulls from a lazy row generator through a stream pipeline, so backpressure
 * reaches the producer and memory stays at a few chunks beyond the parsed analysis.
 */
import { pipeline, Readable } from 'node:stream';
import { format } from 'fast-csv';
import { coalesce } from './chunks.js';
import { controlRows, LIST_SEPARATOR, neutralizeFormula, type ControlRow, type ExportView } from './model.js';
import type { ResolvedExportOptions } from '../schemas/export.js';

const BASE_COLUMNS = ['framework', 'control_id', 'control_title', 'category', 'status', 'severity', 'confidence', 'signal_ids', 'finding_ids', 'resources'];
const REMEDIATION_COLUMNS = ['remediation_priority', 'remediation_priority_rank', 'remediation_effort', 'remediation_guidance', 'remediation_steps'];
const EVIDENCE_COLUMNS = ['evidence_requirements'];

export function csvColumns(options: Pick<ResolvedExportOptions, 'include_remediation' | 'include_evidence'>): string[] {
  return [...BASE_COLUMNS, ...(options.include_remediation ? REMEDIATION_COLUMNS : []), ...(options.include_evidence ? EVIDENCE_COLUMNS : [])];
}

type Cell = string | number;

export function csvRecord(row: ControlRow, options: Pick<ResolvedExportOptions, 'include_remediation' | 'include_evidence'>): Cell[] {
  const cells: Cell[] = [
    row.framework,
    row.control_id,
    row.control_title,
    row.category,
    row.status,
    row.severity ?? '',
    row.confidence,
    row.signal_ids.join(LIST_SEPARATOR),
    row.finding_ids.join(LIST_SEPARATOR),
    row.resources.join(LIST_SEPARATOR),
  ];
  if (options.include_remediation) {
    const r = row.remediation;
    cells.push(r?.priority ?? '', r?.priority_rank ?? '', r?.effort ?? '', r?.guidance ?? '', r ? r.steps.join(LIST_SEPARATOR) : '');
  }
  if (options.include_evidence) cells.push((row.evidence ?? []).join(LIST_SEPARATOR));
  return cells.map((cell) => (typeof cell === 'string' ? neutralizeFormula(cell) : cell));
}

function* records(view: ExportView): Generator<Cell[]> {
  for (const row of controlRows(view)) yield csvRecord(row, view.options);
}

export function csvExport(view: ExportView): AsyncIterable<Buffer> {
  const formatter = format<Cell[], Cell[]>({ headers: csvColumns(view.options), alwaysWriteHeaders: true, rowDelimiter: '\r\n', includeEndRowDelimiter: true });
  // A small object buffer: the generator runs only a few rows ahead of the socket.
  const source = Readable.from(records(view), { objectMode: true, highWaterMark: 16 });
  // pipeline destroys both ends on error or early exit; the error then reaches the consumer's loop.
  pipeline(source, formatter, () => undefined);
  return coalesce(formatter);
}
