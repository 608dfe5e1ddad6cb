/**
 * CSV as spreadsheets save it (RFC 4180): fields quoted with ", quotes doubled inside, line
 * breaks inside quoted fields, CRLF or LF. The delimiter is a comma, or a semicolon when the
 * header line has semicolons and no comma (Excel in locales that write decimal commas).
 */

export interface CsvRow {
  /** The spreadsheet's row number: 1 for the header, counting lines a quoted field spans as one row. */
  row: number;
  cells: string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly row: number,
    message: string,
  ) {
    super(message);
  }
}

export function parseCsv(text: string): CsvRow[] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const delimiter = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  const rows: CsvRow[] = [];
  let cells: string[] = [];
  let cell = '';
  let row = 1;
  let i = 0;
  const endRow = () => {
    cells.push(cell);
    cell = '';
    // Lines with nothing on them (a trailing newline, blank lines between rows) are no rows.
    if (!(cells.length === 1 && cells[0] === '')) rows.push({ row, cells });
    cells = [];
    row += 1;
  };
  while (i < text.length) {
    const char = text[i];
    if (char === '"' && cell === '') {
      const start = row;
      i += 1;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) throw new CsvSyntaxError(start, 'a quoted field never closes');
        cell += text.slice(i, quote);
        i = quote + 1;
        if (text[i] === '"') {
          cell += '"';
          i += 1;
          continue;
        }
        break;
      }
      const next = text[i];
      if (next !== undefined && next !== delimiter && next !== '\n' && next !== '\r')
        throw new CsvSyntaxError(start, 'text follows a closing quote inside a field');
      continue;
    }
    if (char === delimiter) {
      cells.push(cell);
      cell = '';
      i += 1;
    } else if (char === '\r' || char === '\n') {
      endRow();
      i += char === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      const stop = nextSpecial(text, i, delimiter);
      cell += text.slice(i, stop);
      i = stop;
    }
  }
  if (cell !== '' || cells.length) endRow();
  return rows;
}

function nextSpecial(text: string, from: number, delimiter: string): number {
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (char === delimiter || char === '\n' || char === '\r') return i;
  }
  return text.length;
}

/** A cell as CSV writes it: quoted when it holds the delimiter, a quote or a line break. */
export function csvCell(value: string): string {
  return /[",\r\n;]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
