/**
 * From the bytes of a scanner's file to normalised results: tell its syntax (JSON, delimited text
 * or XML) from its first byte, parse it (JSON with the depth guard, XML with the bounds of xml.ts),
 * find its format in the readers' table (formats.ts) or check the named one, and hand the
 * document to that row's reader.
 *
 * A named format must match: a file the table recognises as another format is refused naming it,
 * and a file no detection recognises is read only when the reader finds results in it, so that no
 * file answers "0 results" for being read as something it is not.
 */
import { ApiError } from '../core/errors.js';
import { MAX_JSON_DEPTH, nestingBeyond } from '../core/json-body.js';
import { SCAN_READERS, SCAN_ROWS, XML_SKIPPED_ELEMENTS, type ScanReaderRow, type ScanSyntax } from './formats.js';
import type { ReadOutcome, ScanFormat } from './model.js';
import { ScanShapeError, type Json } from './shape.js';
import { parseXml, type XmlDocument } from './xml.js';

export type FormatChoice = ScanFormat | 'auto';

export interface ReadScan extends ReadOutcome {
  /** The formats detection looked at, in order (just the given one when a format was named). */
  considered: ScanFormat[];
}

/** A file that `auto` could not place in any format. */
export class UnknownScanFormatError extends Error {
  constructor(
    readonly considered: ScanFormat[],
    readonly reason: string,
  ) {
    super(`no scanner format matched: ${reason}`);
    this.name = 'UnknownScanFormatError';
  }
}

const SYNTAX_WORDS: Record<ScanSyntax, string> = { json: 'JSON', delimited: 'delimited text (CSV)', xml: 'XML' };

/** The first byte that is not white space (or a byte-order mark), or -1. */
function firstSignificantByte(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    if (byte === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf) {
      i += 2;
      continue;
    }
    return byte;
  }
  return -1;
}

function syntaxOf(first: number): ScanSyntax {
  if (first === 0x7b || first === 0x5b) return 'json';
  if (first === 0x3c) return 'xml';
  return 'delimited';
}

/**
 * JSON with the depth guard every JSON body gets (json_too_deep). Newline-delimited JSON (one
 * event per line, as some OCSF exporters and Prowler 2 write) reads as an array of its lines.
 */
function parseJson(bytes: Uint8Array, format: ScanFormat | null): Json {
  const offset = nestingBeyond(bytes);
  if (offset >= 0) throw new ApiError('json_too_deep', { limit: MAX_JSON_DEPTH, offset });
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  try {
    return JSON.parse(source) as Json;
  } catch (error) {
    const lines = source.split(/\r?\n/).filter((line) => line.trim() !== '');
    if (lines.length > 1 && lines.every((line) => line.trimStart().startsWith('{'))) {
      return lines.map((line, index) => {
        try {
          return JSON.parse(line) as Json;
        } catch (lineError) {
          throw new ScanShapeError(format, { line: lineNumberOf(source, index) }, `is not valid JSON: ${(lineError as Error).message}`);
        }
      });
    }
    // V8 gives the position of most syntax errors, not of every one ("Unexpected token").
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const where: ScanShapeError['where'] = position ? { line: source.slice(0, Number(position[1])).split('\n').length } : {};
    throw new ScanShapeError(format, where, `is not valid JSON: ${message}`);
  }
}

function lineNumberOf(source: string, nonEmptyIndex: number): number {
  let seen = -1;
  const all = source.split(/\r?\n/);
  for (let i = 0; i < all.length; i++) {
    if (all[i].trim() !== '') seen++;
    if (seen === nonEmptyIndex) return i + 1;
  }
  return nonEmptyIndex + 1;
}

/** The header line's column names (trimmed, upper-cased, quotes dropped) with the delimiter it uses most. */
function headerColumns(bytes: Uint8Array): Set<string> {
  const end = bytes.indexOf(0x0a);
  const line = Buffer.from(bytes.buffer, bytes.byteOffset, end < 0 ? bytes.byteLength : end)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trim();
  const delimiter = [';', ',', '\t'].reduce((best, d) => (line.split(d).length > line.split(best).length ? d : best), ',');
  return new Set(line.split(delimiter).map((name) => name.trim().replace(/^"|"$/g, '').trim().toUpperCase()));
}

/** A parsed file, ready for the detections and readers of its syntax. */
type Parsed = { syntax: 'json'; doc: Json } | { syntax: 'delimited'; columns: Set<string>; bytes: Uint8Array } | { syntax: 'xml'; doc: XmlDocument };

function parse(bytes: Uint8Array, syntax: ScanSyntax, format: ScanFormat | null): Parsed {
  if (syntax === 'json') return { syntax, doc: parseJson(bytes, format) };
  if (syntax === 'xml') return { syntax, doc: parseXml(bytes, format, XML_SKIPPED_ELEMENTS) };
  return { syntax, columns: headerColumns(bytes), bytes };
}

function detects(row: ScanReaderRow, parsed: Parsed): boolean {
  if (row.syntax !== parsed.syntax) return false;
  if (row.syntax === 'json' && parsed.syntax === 'json') return row.detect(parsed.doc);
  if (row.syntax === 'xml' && parsed.syntax === 'xml') return row.detect(parsed.doc);
  if (row.syntax === 'delimited' && parsed.syntax === 'delimited') return row.detect(parsed.columns);
  return false;
}

function readWith(row: ScanReaderRow, parsed: Parsed): ReadOutcome {
  if (row.syntax === 'json' && parsed.syntax === 'json') return row.read(parsed.doc);
  if (row.syntax === 'xml' && parsed.syntax === 'xml') return row.read(parsed.doc);
  if (row.syntax === 'delimited' && parsed.syntax === 'delimited') return row.read(parsed.bytes);
  throw new Error(`a ${row.syntax} reader was handed ${parsed.syntax}`);
}

/** The first row of the table whose detection recognises the file, and the rows looked at. */
function detect(parsed: Parsed): { format: ScanFormat | null; considered: ScanFormat[] } {
  const considered: ScanFormat[] = [];
  for (const [format, row] of SCAN_ROWS) {
    if (row.syntax !== parsed.syntax) continue;
    considered.push(format);
    if (detects(row, parsed)) return { format, considered };
  }
  return { format: null, considered };
}

const isEmptyJsonArray = (parsed: Parsed) => parsed.syntax === 'json' && Array.isArray(parsed.doc) && parsed.doc.length === 0;

/** A named format: read when the file matches it, refused naming what the file is when it does not. */
function readNamed(bytes: Uint8Array, format: ScanFormat, first: number): ReadScan {
  const row = SCAN_READERS[format];
  const syntax = syntaxOf(first);
  if (first < 0) throw new ScanShapeError(format, { line: 1 }, `is empty: a ${row.label} file was expected`);
  if (syntax !== row.syntax) {
    let found: ScanFormat | null = null;
    try {
      found = detect(parse(bytes, syntax, null)).format;
    } catch {
      found = null;
    }
    const what = found ? `a ${SCAN_READERS[found].label} file (format=${found})` : `${SYNTAX_WORDS[syntax]}`;
    throw new ScanShapeError(format, { line: 1 }, `is ${what}, not ${SYNTAX_WORDS[row.syntax]}: ${format} files are ${SYNTAX_WORDS[row.syntax]}`, found);
  }
  const parsed = parse(bytes, syntax, format);
  // An empty array is an empty scan of any format that writes arrays: with the format named, it holds no results.
  if (detects(row, parsed) || isEmptyJsonArray(parsed)) return { ...readWith(row, parsed), considered: [format] };
  const found = detect(parsed).format;
  const where = syntax === 'json' ? { pointer: '' } : { line: 1 };
  if (found) throw new ScanShapeError(format, where, `is a ${SCAN_READERS[found].label} file (format=${found}), not ${row.label}`, found);
  // No detection recognises the file: the named reader may still read it, and says where it stops
  // matching; a file it reads nothing from is not taken for an empty scan.
  const read = readWith(row, parsed);
  if (read.results.length === 0) throw new ScanShapeError(format, where, `has none of the fields of ${row.label}, and no other format recognises it`, null);
  return { ...read, considered: [format] };
}

export function readScan(bytes: Uint8Array, choice: FormatChoice): ReadScan {
  const first = firstSignificantByte(bytes);
  if (choice !== 'auto') return readNamed(bytes, choice, first);
  if (first < 0)
    throw new UnknownScanFormatError(
      SCAN_ROWS.map(([format]) => format),
      'the body is empty',
    );
  const parsed = parse(bytes, syntaxOf(first), null);
  if (isEmptyJsonArray(parsed)) {
    throw new UnknownScanFormatError(
      SCAN_ROWS.filter(([, row]) => row.syntax === 'json').map(([format]) => format),
      'the body is an empty array, which every array format allows: name the format (format=…)',
    );
  }
  const { format, considered } = detect(parsed);
  if (!format) {
    const reason =
      parsed.syntax === 'delimited'
        ? `the body is not JSON or XML, and its first line is not the header of a delimited format (${considered.join(', ')})`
        : `the ${SYNTAX_WORDS[parsed.syntax]} document matched none of the formats`;
    throw new UnknownScanFormatError(considered, reason);
  }
  return { ...readWith(SCAN_READERS[format], parsed), considered };
}
