/**
 * What every page of the pdf report shares: page geometry, colours, fonts, and the building blocks
 * pages are drawn with (headings, paragraphs, ruled tables, bar-marked blocks, legends), plus the
 * small formatters for scores, shares and dates.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type Doc = PDFKit.PDFDocument;

export const PAGE = { width: 595.28, height: 841.89 };
export const MARGIN = { top: 64, bottom: 64, left: 50, right: 50 };
export const LEFT = MARGIN.left;
export const WIDTH = PAGE.width - MARGIN.left - MARGIN.right;
export const BOTTOM = PAGE.height - MARGIN.bottom;

export const COLOR = {
  ink: '#1A1A1A',
  muted: '#5F6B7A',
  rule: '#D5DAE1',
  panel: '#F4F6F9',
  navy: '#1F3864',
  accent: '#2F5597',
  track: '#E9EDF2',
};

export const STATUS_COLOR: Record<string, string> = {
  compliant: '#2E7D32',
  partially_compliant: '#F2A900',
  at_risk: '#E67E22',
  non_compliant: '#C62828',
  not_assessed: '#B8C2CC',
};

/** Status colours for text on white: the amber is darkened to stay legible. */
export const STATUS_TEXT_COLOR: Record<string, string> = { ...STATUS_COLOR, partially_compliant: '#A86E00', at_risk: '#C0611A', not_assessed: '#5F6B7A' };

export const SEVERITY_COLOR: Record<string, string> = {
  critical: '#8E0000',
  high: '#C62828',
  medium: '#E67E22',
  low: '#2F5597',
  info: '#7F8C8D',
};

export const FONT = { regular: 'Helvetica', bold: 'Helvetica-Bold', italic: 'Helvetica-Oblique' };

export interface BlockLine {
  text: string;
  font: string;
  size: number;
  color: string;
  /** Points of space above the line. */
  before?: number;
  indent?: number;
  lineGap?: number;
  characterSpacing?: number;
}

/**
 * A text block with a coloured bar on its left, kept on one page: every line is measured with
 * the same font, width and spacing it is drawn with, so the measure is the drawn height.
 */
export function block(doc: Doc, lines: BlockLine[], barColor: string, spaceAfter: number): void {
  const x = LEFT + 14;
  const width = WIDTH - 14;
  const heights = lines.map((line) => {
    doc.font(line.font).fontSize(line.size);
    return doc.heightOfString(pdfText(line.text), {
      width: width - (line.indent ?? 0),
      lineGap: line.lineGap ?? 0,
      characterSpacing: line.characterSpacing ?? 0,
    });
  });
  const height = lines.reduce((sum, line, i) => sum + (line.before ?? 0) + heights[i], 0);
  ensure(doc, height + spaceAfter);
  const top = doc.y;
  doc.rect(LEFT, top, 3.5, height).fill(barColor);
  let y = top;
  lines.forEach((line, i) => {
    y += line.before ?? 0;
    doc.font(line.font).fontSize(line.size).fillColor(line.color);
    doc.text(pdfText(line.text), x + (line.indent ?? 0), y, {
      width: width - (line.indent ?? 0),
      lineGap: line.lineGap ?? 0,
      characterSpacing: line.characterSpacing ?? 0,
    });
    y += heights[i];
  });
  doc.x = LEFT;
  doc.y = top + height + spaceAfter;
}

export interface TableColumn {
  title: string;
  width: number;
  align?: 'left' | 'right';
}

export interface TableRow {
  cells: string[];
  /** Text colour per column index. */
  colors?: Record<number, string | undefined>;
  /** A second, smaller line under the row from the second column on (the register's resources). */
  detail?: string;
}

/** A ruled table with zebra rows; the header repeats on each page the table continues on. */
export function table(doc: Doc, columns: TableColumn[], rows: TableRow[], style: { fontSize: number; rowHeight: number }): void {
  const drawHeader = () => {
    const y = doc.y;
    doc.rect(LEFT, y, WIDTH, style.rowHeight + 2).fill(COLOR.navy);
    let x = LEFT;
    doc.font(FONT.bold).fontSize(style.fontSize).fillColor('#FFFFFF');
    for (const column of columns) {
      cellText(doc, column.title, x + 4, y + (style.rowHeight + 2 - style.fontSize) / 2 + 1, column.width - 8, column.align);
      x += column.width;
    }
    doc.x = LEFT;
    doc.y = y + style.rowHeight + 2;
  };
  ensure(doc, style.rowHeight * 3);
  drawHeader();
  const detailSize = style.fontSize - 1;
  rows.forEach((row, index) => {
    const height = style.rowHeight + (row.detail ? detailSize + 2 : 0);
    if (doc.y + height > BOTTOM) {
      doc.addPage();
      drawHeader();
    }
    const y = doc.y;
    if (index % 2 === 1) doc.rect(LEFT, y, WIDTH, height).fill(COLOR.panel);
    let x = LEFT;
    columns.forEach((column, c) => {
      const color = row.colors?.[c];
      doc
        .font(color ? FONT.bold : FONT.regular)
        .fontSize(style.fontSize)
        .fillColor(color ?? COLOR.ink);
      cellText(doc, pdfText(row.cells[c] ?? ''), x + 4, y + (style.rowHeight - style.fontSize) / 2 + 1, column.width - 8, column.align);
      x += column.width;
    });
    if (row.detail) {
      doc.font(FONT.regular).fontSize(detailSize).fillColor(COLOR.muted);
      cellText(doc, pdfText(row.detail), LEFT + columns[0].width + 4, y + style.rowHeight - 2, WIDTH - columns[0].width - 8);
    }
    doc
      .moveTo(LEFT, y + height)
      .lineTo(LEFT + WIDTH, y + height)
      .lineWidth(0.3)
      .strokeColor(COLOR.rule)
      .stroke();
    doc.x = LEFT;
    doc.y = y + height;
  });
}

/** As many items as fit on one line of `width` points at the current font, then how many more there are. */
export function listThatFits(doc: Doc, prefix: string, items: readonly string[], width: number, more: (rest: number) => string): string {
  let line = prefix;
  for (let i = 0; i < items.length; i++) {
    const candidate = `${line}${i ? '; ' : ''}${pdfText(items[i])}`;
    const rest = items.length - i - 1;
    if (doc.widthOfString(rest ? `${candidate}${more(rest)}` : candidate) > width && i > 0) return `${line}${more(items.length - i)}`;
    line = candidate;
  }
  return line;
}

export function heading(doc: Doc, text: string): void {
  ensure(doc, 120);
  doc.font(FONT.bold).fontSize(18).fillColor(COLOR.navy).text(text, LEFT, doc.y, { width: WIDTH });
  const y = doc.y + 3;
  doc.rect(LEFT, y, 40, 2.5).fill(COLOR.accent);
  doc.x = LEFT;
  doc.y = y + 12;
}

export function subheading(doc: Doc, text: string): void {
  ensure(doc, 40);
  doc.font(FONT.bold).fontSize(11.5).fillColor(COLOR.ink).text(text, LEFT, doc.y, { width: WIDTH });
  doc.moveDown(0.3);
}

export function paragraph(doc: Doc, text: string): void {
  doc.font(FONT.regular).fontSize(9.5).fillColor(COLOR.ink).text(pdfText(text), LEFT, doc.y, { width: WIDTH, lineGap: 2 });
}

export function label(doc: Doc, text: string, x: number, y: number): void {
  doc.font(FONT.bold).fontSize(8).fillColor(COLOR.muted).text(text, x, y, { characterSpacing: 0.8, lineBreak: false });
}

export function legend(doc: Doc, y: number, items: Array<[string, string]>): void {
  let x = LEFT + 62;
  doc.font(FONT.regular).fontSize(7.5);
  for (const [text, color] of items) {
    doc.rect(x, y + 1, 8, 8).fill(color);
    doc.fillColor(COLOR.ink).text(text, x + 12, y + 1.5, { lineBreak: false });
    x += 12 + doc.widthOfString(text) + 16;
  }
  doc.x = LEFT;
  doc.y = y + 16;
}

/** Starts a new page unless `height` points fit above the bottom margin. */
export function ensure(doc: Doc, height: number): void {
  if (doc.y + height > BOTTOM) {
    doc.addPage();
    doc.x = LEFT;
  }
}

/**
 * One line of a table cell, cut to its width. Drawn without pdfkit's line wrapper, which would
 * start a new page for a line near the bottom margin even when the row fits.
 */
export function cellText(doc: Doc, text: string, x: number, y: number, width: number, align: 'left' | 'right' = 'left'): void {
  const fitted = fit(doc, text, width);
  const offset = align === 'right' ? width - doc.widthOfString(fitted) : 0;
  doc.text(fitted, x + offset, y, { lineBreak: false });
}

/** Cuts a one-line text to `width` points, marking the cut with an ellipsis. */
export function fit(doc: Doc, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (doc.widthOfString(`${text.slice(0, mid)}…`) <= width) low = mid;
    else high = mid - 1;
  }
  return `${text.slice(0, low).trimEnd()}…`;
}

/** The characters the built-in fonts can show (WinAnsi): Latin-1 plus the cp1252 punctuation. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const REPLACEMENTS: Record<string, string> = {
  '≥': '>=',
  '≤': '<=',
  '→': '->',
  '←': '<-',
  '×': 'x',
  '≠': '!=',
  '‐': '-',
  '‑': '-',
  '−': '-',
  ' ': ' ',
  '✓': 'v',
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  ı: 'i',
};

function inWinAnsi(char: string, code: number): boolean {
  return (code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(char) || char === '\n';
}

/** Latin letters beyond Latin-1 (Extended-A/B, Extended Additional): neither font has them, their base letters read well. */
const isExtendedLatin = (code: number) => (code >= 0x100 && code <= 0x24f) || (code >= 0x1e00 && code <= 0x1eff);

/**
 * The most characters of one field a report lays out; the rest is cut with an ellipsis. pdfkit
 * wraps a word wider than its line a character at a time, in time that grows with the square of
 * its length: a 100 KB source.tool without a space took 16 s to lay out (docs/benchmarks.md).
 * 2,000 characters take 12 ms at worst; the longest text of our own (a control's description) is
 * about 650.
 */
export const PDF_TEXT_MAX_CHARS = 2000;

/** `text` cut to `max` characters with an ellipsis, never between the halves of a surrogate pair. */
export function boundedText(text: string, max = PDF_TEXT_MAX_CHARS): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * Text as the report draws it: bounded (PDF_TEXT_MAX_CHARS), known symbols spelled out, control
 * characters dropped, Latin letters outside Latin-1 reduced to their base letter (Č → C) or "?";
 * every other script is kept for the embedded Unicode font (drawAnyScript), which shows what it
 * has a glyph for.
 */
export function pdfText(text: string): string {
  let out = '';
  for (const char of boundedText(text)) {
    const code = char.codePointAt(0)!;
    if (inWinAnsi(char, code)) out += char;
    else if (REPLACEMENTS[char] !== undefined) out += REPLACEMENTS[char];
    else if (code === 0x09) out += ' ';
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) continue;
    else if (isExtendedLatin(code)) {
      const base = char.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += base && [...base].every((c) => c.charCodeAt(0) < 0x100) ? base : '?';
    } else out += char;
  }
  return out;
}

/** Printable ASCII and Latin-1: nearly every string a report draws, checked without a loop. */
const LATIN_1 = /^[\x20-\x7e\xa0-\xff\n]*$/;

/** True when the built-in Helvetica can draw every character (WinAnsi). */
export function fitsWinAnsi(text: string): boolean {
  if (LATIN_1.test(text)) return true;
  for (const char of text) if (!inWinAnsi(char, char.codePointAt(0)!)) return false;
  return true;
}

/**
 * Noto Sans JP (SIL OFL 1.1, npm @embedpdf/fonts-jp): Latin-1, Greek, Cyrillic, kana and the
 * JIS kanji in one font. Read once per worker; pdfkit embeds only the glyphs a report uses.
 */
const UNICODE_FONT_FILES = { regular: 'NotoSansJP-Regular.otf', bold: 'NotoSansJP-Bold.otf' };
let unicodeFonts: { regular: Buffer; bold: Buffer } | undefined;

function loadUnicodeFonts(): { regular: Buffer; bold: Buffer } {
  if (!unicodeFonts) {
    const dir = join(dirname(createRequire(import.meta.url).resolve('@embedpdf/fonts-jp')), '..', 'fonts');
    unicodeFonts = { regular: readFileSync(join(dir, UNICODE_FONT_FILES.regular)), bold: readFileSync(join(dir, UNICODE_FONT_FILES.bold)) };
  }
  return unicodeFonts;
}

const UNICODE_FOR: Record<string, string> = { [FONT.regular]: 'Unicode', [FONT.bold]: 'Unicode-Bold', [FONT.italic]: 'Unicode' };

/**
 * Names in any script print: a string Helvetica cannot draw is drawn (and measured) in the
 * embedded Unicode font, with the same size and weight; everything else stays in Helvetica, so a
 * report without such names costs what it did. Every text call goes through text, widthOfString
 * or heightOfString, so wrapping these three covers them all. A character the Unicode font has
 * no glyph for either is drawn as "?" rather than as an empty box.
 */
export function drawAnyScript(doc: Doc): void {
  let registered = false;
  const fontName = () => (doc as unknown as { _font: { name: string } })._font.name;
  for (const method of ['text', 'widthOfString', 'heightOfString'] as const) {
    const original = (doc[method] as (...args: unknown[]) => unknown).bind(doc);
    (doc as unknown as Record<string, unknown>)[method] = (text: unknown, ...rest: unknown[]) => {
      const current = fontName();
      const fallback = typeof text === 'string' && UNICODE_FOR[current] && !fitsWinAnsi(text) ? UNICODE_FOR[current] : undefined;
      if (!fallback) return original(text, ...rest);
      if (!registered) {
        const fonts = loadUnicodeFonts();
        doc.registerFont('Unicode', fonts.regular);
        doc.registerFont('Unicode-Bold', fonts.bold);
        registered = true;
      }
      doc.font(fallback);
      try {
        return original(withGlyphs(doc, text as string), ...rest);
      } finally {
        doc.font(current);
      }
    };
  }
}

function withGlyphs(doc: Doc, text: string): string {
  const font = (doc as unknown as { _font: { font: { hasGlyphForCodePoint(code: number): boolean } } })._font.font;
  let out = '';
  const has = (char: string) => char === '\n' || font.hasGlyphForCodePoint(char.codePointAt(0)!);
  for (const char of text) {
    if (has(char)) out += char;
    else {
      // An accented letter the font lacks (Greek with tonos) reads well as its base letter; JIS has no final sigma.
      const base = char === 'ς' ? 'σ' : char.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += base && [...base].every(has) ? base : '?';
    }
  }
  return out;
}

export function score(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(1);
}

export function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

export function dateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 16)} UTC`;
}
