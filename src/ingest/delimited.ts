/**
 * Delimited text (CSV and its semicolon and tab cousins) as a header and rows, each row with the
 * line it starts on, so that a row which does not fit is refused by its line number.
 */
import type { ScanFormat } from './model.js';
import { ScanShapeError } from './shape.js';

export interface DelimitedTable {
  delimiter: string;
  /** Header name (trimmed, upper case) → column index. */
  columns: Map<string, number>;
  rows: Array<{ cells: string[]; line: number }>;
}

const QUOTE = '"';

/** The delimiter the header line uses most: semicolon (Prowler), comma or tab. */
function delimiterOf(headerLine: string): string {
  const counts = [';', ',', '\t'].map((d) => [d, headerLine.split(d).length - 1] as const);
  return counts.reduce((best, next) => (next[1] > best[1] ? next : best))[0];
}

export function parseDelimited(bytes: Uint8Array, format: ScanFormat, requiredColumns: readonly string[]): DelimitedTable {
  let textValue = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (textValue.charCodeAt(0) === 0xfeff) textValue = textValue.slice(1);
  const firstBreak = textValue.search(/\r?\n/);
  const delimiter = delimiterOf(firstBreak < 0 ? textValue : textValue.slice(0, firstBreak));

  const records: Array<{ cells: string[]; line: number }> = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let quoteLine = 0;
  for (let i = 0; i < textValue.length; i++) {
    const char = textValue[i];
    if (quoted) {
      if (char === QUOTE) {
        if (textValue[i + 1] === QUOTE) {
          cell += QUOTE;
          i++;
        } else quoted = false;
      } else {
        if (char === '\n') line++;
        cell += char;
      }
      continue;
    }
    if (char === QUOTE && cell === '') {
      quoted = true;
      quoteLine = line;
    } else if (char === delimiter) {
      cells.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && textValue[i + 1] === '\n') i++;
      cells.push(cell);
      if (cells.length > 1 || cells[0] !== '') records.push({ cells, line: recordLine });
      cells = [];
      cell = '';
      line++;
      recordLine = line;
    } else {
      cell += char;
    }
  }
  if (quoted) throw new ScanShapeError(format, { line: quoteLine }, 'opens a quoted field that never closes');
  cells.push(cell);
  if (cells.length > 1 || cells[0] !== '') records.push({ cells, line: recordLine });

  const [header, ...rows] = records;
  if (!header) throw new ScanShapeError(format, { line: 1 }, 'is empty: expected a header row');
  const columns = new Map(header.cells.map((name, index) => [name.trim().toUpperCase(), index]));
  const missing = requiredColumns.filter((name) => !columns.has(name));
  if (missing.length) throw new ScanShapeError(format, { line: header.line }, `is a header without the column(s) ${missing.join(', ')}`);
  for (const row of rows) {
    // Some writers (Prowler 2) end every row with a delimiter the header lacks: empty cells past the header are nothing.
    while (row.cells.length > header.cells.length && row.cells[row.cells.length - 1] === '') row.cells.pop();
    if (row.cells.length !== header.cells.length) {
      throw new ScanShapeError(format, { line: row.line }, `has ${row.cells.length} fields where the header has ${header.cells.length}`);
    }
  }
  return { delimiter, columns, rows };
}
