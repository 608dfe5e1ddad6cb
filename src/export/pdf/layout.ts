/**
 * What every page of the pdf report shares: page geometry, colours, fonts, and the building blocks
 * pages are drawn with (headings, paragraphs, ruled tables, bar-marked blocks, legends), plus the
 * small formatters for scores, shares and dates.
 */

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
    return doc.heightOfString(pdfText(line.text), { width: width - (line.indent ?? 0), lineGap: line.lineGap ?? 0, characterSpacing: line.characterSpacing ?? 0 });
  });
  const height = lines.reduce((sum, line, i) => sum + (line.before ?? 0) + heights[i], 0);
  ensure(doc, height + spaceAfter);
  const top = doc.y;
  doc.rect(LEFT, top, 3.5, height).fill(barColor);
  let y = top;
  lines.forEach((line, i) => {
    y += line.before ?? 0;
    doc.font(line.font).fontSize(line.size).fillColor(line.color);
    doc.text(pdfText(line.text), x + (line.indent ?? 0), y, { width: width - (line.indent ?? 0), lineGap: line.lineGap ?? 0, characterSpacing: line.characterSpacing ?? 0 });
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
  rows.forEach((row, index) => {
    if (doc.y + style.rowHeight > BOTTOM) {
      doc.addPage();
      drawHeader();
    }
    const y = doc.y;
    if (index % 2 === 1) doc.rect(LEFT, y, WIDTH, style.rowHeight).fill(COLOR.panel);
    let x = LEFT;
    columns.forEach((column, c) => {
      const color = row.colors?.[c];
      doc.font(color ? FONT.bold : FONT.regular).fontSize(style.fontSize).fillColor(color ?? COLOR.ink);
      cellText(doc, pdfText(row.cells[c] ?? ''), x + 4, y + (style.rowHeight - style.fontSize) / 2 + 1, column.width - 8, column.align);
      x += column.width;
    });
    doc.moveTo(LEFT, y + style.rowHeight).lineTo(LEFT + WIDTH, y + style.rowHeight).lineWidth(0.3).strokeColor(COLOR.rule).stroke();
    doc.x = LEFT;
    doc.y = y + style.rowHeight;
  });
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
const REPLACEMENTS: Record<string, string> = { '≥': '>=', '≤': '<=', '→': '->', '←': '<-', '×': 'x', '≠': '!=', '‐': '-', '‑': '-', '−': '-', ' ': ' ', '✓': 'v', Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', ı: 'i' };

/**
 * Text as the built-in Helvetica can draw it: known symbols spelled out, accents kept where
 * Latin-1 has them, anything else replaced by "?" rather than drawn as a wrong glyph.
 */
export function pdfText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if ((code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(char) || char === '\n') out += char;
    else if (REPLACEMENTS[char] !== undefined) out += REPLACEMENTS[char];
    else if (code === 0x09) out += ' ';
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) continue;
    else {
      const base = char.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += base && [...base].every((c) => c.charCodeAt(0) < 0x100) ? base : '?';
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

