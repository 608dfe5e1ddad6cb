/**
 * From the bytes of a scanner's file to normalised results: parse (JSON with the depth guard, or
 * delimited text), detect the format when asked to (`auto`), and hand the document to its reader.
 */
import { ApiError } from '../core/errors.js';
import { MAX_JSON_DEPTH, nestingBeyond } from '../core/json-body.js';
import { SCAN_FORMATS, type ReadOutcome, type ScanFormat } from './model.js';
import { asffFindings, isProwlerAsff, readAsff } from './readers/asff.js';
import { readCheckov } from './readers/checkov.js';
import { readKubeBench } from './readers/kube-bench.js';
import { readOcsf } from './readers/ocsf.js';
import { readProwlerCsv, readProwlerNative } from './readers/prowler.js';
import { readSarif } from './readers/sarif.js';
import { readTrivy } from './readers/trivy.js';
import { isObject, ScanShapeError, type Json, type JsonObject } from './shape.js';

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

const firstObject = (doc: Json): JsonObject | undefined => (Array.isArray(doc) ? doc.find(isObject) : isObject(doc) ? doc : undefined);

/** Detection rules in the order they are tried: each looks at the document's top level and its first record only. */
const DETECTORS: Array<[ScanFormat, (doc: Json) => boolean]> = [
  ['sarif', (doc) => isObject(doc) && Array.isArray(doc.runs) && (doc.version === '2.1.0' || /sarif/i.test(String(doc.$schema ?? '')))],
  ['prowler-asff', (doc) => isAsff(doc) && isProwlerAsff(firstAsff(doc)!)],
  ['asff', (doc) => isAsff(doc)],
  ['prowler-ocsf', (doc) => isOcsf(doc) && /^prowler$/i.test(productName(firstObject(doc)!))],
  ['ocsf', (doc) => isOcsf(doc)],
  ['prowler-native', (doc) => Array.isArray(doc) && !!firstObject(doc) && 'CheckID' in firstObject(doc)! && 'Status' in firstObject(doc)!],
  ['checkov', (doc) => { const first = firstObject(doc); return !!first && typeof first.check_type === 'string' && (isObject(first.results) || isObject(first.summary)); }],
  ['trivy', (doc) => isTrivy(doc)],
  ['kube-bench', (doc) => (isObject(doc) && Array.isArray(doc.Controls)) || (Array.isArray(doc) && !!firstObject(doc) && Array.isArray(firstObject(doc)!.tests))],
];

function firstAsff(doc: Json): JsonObject | undefined {
  const found = asffFindings(doc);
  return found?.findings.find(isObject);
}

function isAsff(doc: Json): boolean {
  const first = firstAsff(doc);
  return !!first && typeof first.SchemaVersion === 'string' && typeof first.ProductArn === 'string';
}

/** An OCSF event's `metadata.product.name`, or '' */
function productName(event: JsonObject): string {
  const metadata = event.metadata;
  const product = isObject(metadata) ? metadata.product : undefined;
  return isObject(product) && typeof product.name === 'string' ? product.name : '';
}

function isOcsf(doc: Json): boolean {
  const first = firstObject(doc);
  return !!first && typeof first.class_uid === 'number' && isObject(first.metadata);
}

function isTrivy(doc: Json): boolean {
  if (isObject(doc)) return (doc.SchemaVersion !== undefined && (Array.isArray(doc.Results) || typeof doc.ArtifactName === 'string')) || typeof doc.ClusterName === 'string' || Array.isArray(doc.Resources);
  const first = firstObject(doc);
  return !!first && typeof first.Target === 'string' && ['Vulnerabilities', 'Misconfigurations', 'Secrets', 'Class'].some((key) => key in first);
}

function readJsonDocument(document: Json, format: Exclude<ScanFormat, 'prowler-csv'>): ReadOutcome {
  switch (format) {
    case 'prowler-ocsf':
    case 'ocsf':
      return readOcsf(document, format);
    case 'prowler-asff':
    case 'asff':
      return readAsff(document, format);
    case 'prowler-native':
      return readProwlerNative(document);
    case 'sarif':
      return readSarif(document);
    case 'checkov':
      return readCheckov(document);
    case 'trivy':
      return readTrivy(document);
    case 'kube-bench':
      return readKubeBench(document);
  }
}

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

/**
 * JSON with the depth guard every JSON body gets (json_too_deep). Newline-delimited JSON (one
 * event per line, as some OCSF exporters write) reads as an array of its lines.
 */
function parseJson(bytes: Uint8Array, format: ScanFormat | null): Json {
  const offset = nestingBeyond(bytes);
  if (offset >= 0) throw new ApiError('json_too_deep', { limit: MAX_JSON_DEPTH, offset });
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').replace(/^\uFEFF/, '');
  try {
    return JSON.parse(source) as Json;
  } catch (error) {
    const lines = source.split(/\r?\n/).filter((line) => line.trim() !== '');
    if (lines.length > 1 && lines.every((line) => line.trimStart().startsWith('{'))) {
      return lines.map((line, index) => {
        try {
          return JSON.parse(line) as Json;
        } catch (lineError) {
          throw new ScanShapeError(format, { line: lineNumberOf(source, line, index) }, `is not valid JSON: ${(lineError as Error).message}`);
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

function lineNumberOf(source: string, line: string, nonEmptyIndex: number): number {
  let seen = -1;
  const all = source.split(/\r?\n/);
  for (let i = 0; i < all.length; i++) {
    if (all[i].trim() !== '') seen++;
    if (seen === nonEmptyIndex) return i + 1;
  }
  return nonEmptyIndex + 1;
}

export function readScan(bytes: Uint8Array, choice: FormatChoice): ReadScan {
  if (choice === 'prowler-csv') return { ...readProwlerCsv(bytes), considered: ['prowler-csv'] };
  const first = firstSignificantByte(bytes);
  const looksJson = first === 0x7b || first === 0x5b;
  if (choice !== 'auto') {
    if (!looksJson) throw new ScanShapeError(choice, { line: 1 }, `does not start a JSON document: ${choice} files are JSON`);
    return { ...readJsonDocument(parseJson(bytes, choice), choice), considered: [choice] };
  }
  if (first < 0) throw new UnknownScanFormatError([...SCAN_FORMATS], 'the body is empty');
  if (!looksJson) {
    const headerEnd = bytes.indexOf(0x0a);
    const header = Buffer.from(bytes.buffer, bytes.byteOffset, headerEnd < 0 ? bytes.byteLength : headerEnd).toString('utf8').toUpperCase();
    if (/(^|[;,\t])"?CHECK_ID"?([;,\t]|$)/.test(header.trim())) return { ...readProwlerCsv(bytes), considered: ['prowler-csv'] };
    throw new UnknownScanFormatError(['prowler-csv'], 'the body is not JSON and its first line is not a Prowler CSV header (no CHECK_ID column)');
  }
  const document = parseJson(bytes, null);
  if (Array.isArray(document) && document.length === 0) {
    throw new UnknownScanFormatError(DETECTORS.map(([name]) => name), 'the body is an empty array, which every array format allows: name the format (format=…)');
  }
  const considered: ScanFormat[] = [];
  for (const [format, matches] of DETECTORS) {
    considered.push(format);
    if (matches(document)) return { ...readJsonDocument(document, format as Exclude<ScanFormat, 'prowler-csv'>), considered };
  }
  throw new UnknownScanFormatError(considered, 'the JSON document matched none of the formats');
}
