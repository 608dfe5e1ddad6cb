/**
 * Spreadsheets (CSV and XLSX): one control a row under a header row that names the columns
 * (SPREADSHEET_COLUMNS, any order, any case). List cells hold entries separated by semicolons or
 * line breaks. A problem names the spreadsheet's row number and the column.
 */
import { checkedControl, type Draft, type DraftControl } from './define.js';
import { CsvSyntaxError, csvCell, parseCsv, type CsvRow } from './csv.js';
import { frameworkInvalid, type CustomFrameworkFormat } from './model.js';
import { CORRESPONDENCE_RELATIONSHIPS, DEFAULT_SIGNAL_CONFIDENCE, DEFAULT_SIGNAL_RELATIONSHIP } from '../schemas/custom-framework.js';

export interface SpreadsheetColumn {
  name: string;
  required: boolean;
  /** What the template's Read me sheet and docs/custom-frameworks.md say of it. */
  help: string;
  example: string;
}

export const SPREADSHEET_COLUMNS: readonly SpreadsheetColumn[] = [
  {
    name: 'control_id',
    required: true,
    help: 'Control id, unique in the framework (letters, digits, space and . _ ( ) / : # + -, up to 100)',
    example: 'ACME-AC-01',
  },
  { name: 'title', required: true, help: 'Control title (up to 500 characters)', example: 'Multi-factor authentication for administrators' },
  { name: 'description', required: false, help: 'What the control requires', example: 'Administrative access to production systems requires a second factor.' },
  { name: 'category', required: false, help: 'Control category or family (General when empty)', example: 'Access control' },
  { name: 'level', required: false, help: 'Level, baseline or tier, free text', example: 'High' },
  { name: 'guidance', required: false, help: 'How to meet the control', example: 'Enforce MFA in the identity provider for every administrator role.' },
  {
    name: 'evidence',
    required: false,
    help: 'Evidence items an assessor asks for, separated by ; or line breaks',
    example: 'IdP MFA policy export; List of administrator accounts',
  },
  {
    name: 'signals',
    required: false,
    help: `Signals that evidence the control directly: "SIGNAL_ID [relationship] [confidence]" each, separated by ; or line breaks (relationship primary, supporting or partial, default ${DEFAULT_SIGNAL_RELATIONSHIP}; confidence 0-1, default ${DEFAULT_SIGNAL_CONFIDENCE})`,
    example: 'CSR-IAM-MFA-DISABLED-001 primary 0.9',
  },
  {
    name: 'corresponds_to',
    required: false,
    help: `Built-in controls it corresponds to: "FRAMEWORK:CONTROL_ID relationship" each (relationship ${CORRESPONDENCE_RELATIONSHIPS.join(', ')}), separated by ; or line breaks`,
    example: 'SOC2:CC6.1 subset_of; ISO27001:A.8.5 equal',
  },
];

const COLUMN_NAMES = new Set(SPREADSHEET_COLUMNS.map((column) => column.name));

/** A1-style letters of a zero-based column index. */
export function columnLetter(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** Rows as cells of text, whichever file they came from. */
export function readRows(format: CustomFrameworkFormat, rows: readonly CsvRow[]): Draft {
  if (rows.length === 0) throw frameworkInvalid(format, undefined, 'the spreadsheet is empty: it needs a header row and one control a row');
  const header = rows[0];
  const indexOf = new Map<string, number>();
  header.cells.forEach((cell, i) => {
    const name = cell
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_');
    if (name === '') return;
    const at = { row: header.row, column: cell.trim(), columnLetter: columnLetter(i) };
    if (!COLUMN_NAMES.has(name))
      throw frameworkInvalid(format, at, `${JSON.stringify(cell.trim())} is not a column of the template (${[...COLUMN_NAMES].join(', ')})`);
    if (indexOf.has(name)) throw frameworkInvalid(format, at, `column ${name} appears twice`);
    indexOf.set(name, i);
  });
  for (const column of SPREADSHEET_COLUMNS) {
    if (column.required && !indexOf.has(column.name)) {
      throw frameworkInvalid(
        format,
        { row: header.row, column: column.name, columnLetter: columnLetter(header.cells.length) },
        `the header row has no ${column.name} column`,
      );
    }
  }
  const controls: DraftControl[] = [];
  for (const { row, cells } of rows.slice(1)) {
    if (cells.every((cell) => cell.trim() === '')) continue;
    const cell = (name: string) => {
      const index = indexOf.get(name);
      return index === undefined ? '' : (cells[index] ?? '').trim();
    };
    const at = (field: string): { row: number; column: string; columnLetter: string } => {
      const name = field === 'id' ? 'control_id' : field;
      const index = indexOf.get(name) ?? indexOf.get('control_id')!;
      return { row, column: COLUMN_NAMES.has(name) ? name : 'control_id', columnLetter: columnLetter(index) };
    };
    const input: Record<string, unknown> = { id: cell('control_id'), title: cell('title') };
    if (input.id === '') throw frameworkInvalid(format, at('id'), 'control_id is empty');
    if (input.title === '') throw frameworkInvalid(format, at('title'), 'title is empty', { control_id: input.id as string });
    for (const name of ['description', 'category', 'guidance'] as const) if (cell(name)) input[name] = cell(name);
    if (cell('level')) input.level = cell('level');
    if (cell('evidence')) input.evidence = entries(cell('evidence'));
    input.signals = entries(cell('signals')).map((entry) => {
      const [signal_id, second, third] = entry.split(/\s+/);
      // The confidence may come without a relationship: "CSR-…-001 0.9".
      const [relationship, confidence] = second !== undefined && /^[\d.]+$/.test(second) && third === undefined ? [undefined, second] : [second, third];
      if (confidence !== undefined && !/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(confidence)) {
        throw frameworkInvalid(format, at('signals'), `confidence ${JSON.stringify(confidence)} in "${entry}" must be a number from 0 to 1`, {
          control_id: input.id as string,
        });
      }
      return { signal_id, ...(relationship !== undefined && { relationship }), ...(confidence !== undefined && { confidence: Number(confidence) }) };
    });
    input.corresponds_to = entries(cell('corresponds_to')).map((entry) => {
      const words = entry.split(/\s+/);
      const relationship = words.length > 1 ? words.pop()! : '';
      if (!(CORRESPONDENCE_RELATIONSHIPS as readonly string[]).includes(relationship)) {
        throw frameworkInvalid(format, at('corresponds_to'), `"${entry}" must end with its relationship: ${CORRESPONDENCE_RELATIONSHIPS.join(', ')}`, {
          control_id: input.id as string,
        });
      }
      const target = words.join(' ');
      const colon = target.indexOf(':');
      if (colon <= 0 || colon === target.length - 1) {
        throw frameworkInvalid(format, at('corresponds_to'), `"${entry}" must name FRAMEWORK:CONTROL_ID before its relationship`, {
          control_id: input.id as string,
        });
      }
      return { framework: target.slice(0, colon), control_id: target.slice(colon + 1), relationship };
    });
    controls.push(checkedControl(format, input, (field) => at(field)));
  }
  return { format, controls, at: () => undefined };
}

/** Entries of a list cell: separated by semicolons or line breaks, blanks dropped. */
function entries(cell: string): string[] {
  return cell
    .split(/[;\r\n]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

export function readCsv(bytes: Buffer): Draft {
  const text = bytes.toString('utf8');
  if (text.includes('\u0000')) throw frameworkInvalid('csv', undefined, 'the file is not text: send CSV in UTF-8, or XLSX with its own Content-Type');
  let rows: CsvRow[];
  try {
    rows = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw frameworkInvalid('csv', { row: error.row, column: '(row)', columnLetter: 'A' }, error.message);
    throw error;
  }
  return readRows('csv', rows);
}

/** The first worksheet named Controls, else the first one, as rows of text. */
export async function readXlsx(bytes: Buffer): Promise<Draft> {
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (error) {
    throw frameworkInvalid('xlsx', undefined, `the file cannot be read as XLSX: ${(error as Error).message}`);
  }
  const sheet = workbook.worksheets.find((s) => s.name.toLowerCase() === 'controls') ?? workbook.worksheets[0];
  if (!sheet) throw frameworkInvalid('xlsx', undefined, 'the workbook has no worksheet');
  const rows: CsvRow[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      cells[column - 1] = cellText(cell.value);
    });
    for (let i = 0; i < cells.length; i++) cells[i] ??= '';
    rows.push({ row: rowNumber, cells });
  });
  return readRows('xlsx', rows);
}

/** A cell's value as text: rich text joined, formulas by their result, hyperlinks by their text. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    const object = value as { richText?: Array<{ text: string }>; result?: unknown; text?: unknown };
    if (object.richText) return object.richText.map((run) => run.text).join('');
    if ('result' in object) return cellText(object.result);
    if ('text' in object) return cellText(object.text);
  }
  return String(value);
}

/** Values of the example row that depend on the registry (a real signal and control), by column. */
export type TemplateExample = Partial<Record<string, string>>;

function exampleRow(example: TemplateExample): string[] {
  return SPREADSHEET_COLUMNS.map((column) => example[column.name] ?? column.example);
}

/** The CSV template: the header row and one example row, which uploads as it is. */
export function csvTemplate(example: TemplateExample = {}): string {
  const header = SPREADSHEET_COLUMNS.map((column) => column.name).join(',');
  return `${header}\r\n${exampleRow(example).map(csvCell).join(',')}\r\n`;
}

/** The XLSX template: a Controls sheet (header and one example row) and a Read me sheet describing the columns. */
export async function xlsxTemplate(example: TemplateExample = {}): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Compliance Signal Registry';
  const controls = workbook.addWorksheet('Controls', { views: [{ state: 'frozen', ySplit: 1 }] });
  controls.columns = SPREADSHEET_COLUMNS.map((column) => ({
    header: column.name,
    key: column.name,
    width: Math.max(14, Math.min(60, column.example.length + 4)),
  }));
  controls.getRow(1).font = { bold: true };
  controls.addRow(exampleRow(example));
  const readMe = workbook.addWorksheet('Read me');
  readMe.columns = [
    { header: 'column', key: 'name', width: 18 },
    { header: 'required', key: 'required', width: 10 },
    { header: 'what it holds', key: 'help', width: 110 },
  ];
  readMe.getRow(1).font = { bold: true };
  for (const column of SPREADSHEET_COLUMNS) readMe.addRow({ name: column.name, required: column.required ? 'yes' : 'no', help: column.help });
  readMe.addRow({});
  readMe.addRow({
    name: 'Upload',
    help: 'POST /v1/frameworks?code=…&name=…&version=… with this file as the body (one control a row on the Controls sheet); PUT /v1/frameworks/{code}?version=… for a new version.',
  });
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
