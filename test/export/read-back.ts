/**
 * Readers that turn every export format back into data the tests can compare with the analysis:
 * JSON.parse, fast-csv's parser, exceljs, and pdf.js for pdf text and pages (an npm package, so
 * `npm test` needs nothing beyond Node). Poppler's pdftoppm renders a page where it is installed
 * (Debian package poppler-utils) and a tiny PNG decoder counts the ink on it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { parseString } from 'fast-csv';
import ExcelJS from 'exceljs';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';

export async function collect(stream: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Every record, header included, exactly as an RFC 4180 reader sees it. */
export function parseCsv(text: string): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    const rows: string[][] = [];
    parseString(text, { headers: false, strictColumnHandling: false })
      .on('data', (row: string[]) => rows.push(row))
      .on('error', reject)
      .on('end', () => resolve(rows));
  });
}

export async function readWorkbook(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook;
}

/** A sheet's rows as objects keyed by its header row. */
export function sheetRecords(sheet: ExcelJS.Worksheet): Array<Record<string, ExcelJS.CellValue>> {
  const header = (sheet.getRow(1).values as ExcelJS.CellValue[]).map(String);
  const records: Array<Record<string, ExcelJS.CellValue>> = [];
  sheet.eachRow((row, number) => {
    if (number === 1) return;
    const values = row.values as ExcelJS.CellValue[];
    records.push(Object.fromEntries(header.map((name, i) => [name, values[i]]).filter(([name]) => name !== 'undefined')));
  });
  return records;
}

function withTempFile<T>(bytes: Buffer, name: string, run: (path: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'csr-export-'));
  try {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return run(path, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function openPdf(bytes: Buffer) {
  // pdf.js takes ownership of (detaches) the array it is given: hand it a copy.
  return getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false, verbosity: 0 }).promise;
}

/**
 * The text of a pdf, one line per printed line: pdf.js gives positioned runs of text; runs on the
 * same baseline are joined left to right, with two spaces where the page leaves a gap (a column
 * boundary), so a table row reads as one line as in pdftotext's layout mode.
 */
export async function pdfToText(bytes: Buffer, pages?: { first: number; last: number }): Promise<string> {
  const document = await openPdf(bytes);
  try {
    const first = pages?.first ?? 1;
    const last = Math.min(pages?.last ?? document.numPages, document.numPages);
    const text: string[] = [];
    for (let number = first; number <= last; number++) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const lines = new Map<number, TextItem[]>();
      for (const item of content.items) {
        if (!('str' in item) || item.str === '') continue;
        const baseline = Math.round(item.transform[5]);
        const line = lines.get(baseline) ?? lines.get(baseline - 1) ?? lines.get(baseline + 1);
        if (line) line.push(item);
        else lines.set(baseline, [item]);
      }
      for (const baseline of [...lines.keys()].sort((a, b) => b - a)) {
        const runs = lines.get(baseline)!.sort((a, b) => a.transform[4] - b.transform[4]);
        let line = '';
        let end = -Infinity;
        for (const run of runs) {
          const start = run.transform[4];
          if (line !== '' && start - end > 1) line += '  ';
          line += run.str;
          end = start + run.width;
        }
        text.push(line);
      }
      text.push('\f');
      page.cleanup();
    }
    return text.join('\n');
  } finally {
    await document.destroy();
  }
}

export async function pdfPageCount(bytes: Buffer): Promise<number> {
  const document = await openPdf(bytes);
  try {
    return document.numPages;
  } finally {
    await document.destroy();
  }
}

/** Whether a command-line tool is on PATH (the rendered-page check needs poppler's pdftoppm). */
export function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The first page rendered at 50 dpi by pdftoppm, as PNG bytes. */
export function firstPagePng(bytes: Buffer): Buffer {
  return withTempFile(bytes, 'report.pdf', (path, dir) => {
    execFileSync('pdftoppm', ['-png', '-r', '50', '-f', '1', '-l', '1', '-singlefile', path, join(dir, 'page')]);
    return readFileSync(join(dir, 'page.png'));
  });
}

/**
 * Share of pixels that are not white in an 8-bit RGB/RGBA/grey PNG (what pdftoppm writes):
 * chunks → inflate the IDAT stream → undo the per-row filters → count.
 */
export function inkShare(png: Buffer): number {
  let offset = 8;
  let width = 0;
  let height = 0;
  let colorType = 2;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8) throw new Error(`unsupported PNG bit depth ${data[8]}`);
      colorType = data[9];
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[colorType as 0 | 2 | 4 | 6];
  if (!channels) throw new Error(`unsupported PNG colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  let previous = Buffer.alloc(stride);
  let ink = 0;
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? line[x - channels] : 0;
      const up = previous[x];
      const upLeft = x >= channels ? previous[x - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      line[x] = (line[x] + predictor) & 0xff;
    }
    const colour = colorType === 0 || colorType === 4 ? 1 : 3;
    for (let x = 0; x < width; x++) {
      let white = true;
      for (let c = 0; c < colour; c++) if (line[x * channels + c] < 240) white = false;
      if (!white) ink += 1;
    }
    previous = line;
  }
  return ink / (width * height);
}
