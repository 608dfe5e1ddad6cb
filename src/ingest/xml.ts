/**
 * XML scanner files (Nessus) are untrusted input: read with fast-xml-parser, never by hand, with
 * entity processing off, a document type declaration refused before parsing (no DTD, so no
 * external entities and no entity expansion: XXE and billion laughs cannot start), nesting bounded
 * like JSON's (MAX_JSON_DEPTH) and the size bounded. The five predefined entities and character
 * references are decoded by `xmlText`, which expands nothing else.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { MAX_JSON_DEPTH } from '../core/json-body.js';
import type { ScanFormat } from './model.js';
import { isObject, ScanShapeError, type JsonObject } from './shape.js';

/** Above the largest body limit the service can be configured with, so the body limit answers first. */
export const MAX_XML_BYTES = 256 * 1024 * 1024;
export const MAX_XML_DEPTH = MAX_JSON_DEPTH;

/** An element: attributes under `@_name`, text under `#text`, children by tag name (one object, or an array when repeated). */
export type XmlElement = JsonObject;

/** The document: its root element's name and the element. */
export interface XmlDocument {
  root: string;
  element: XmlElement;
}

function parser(skipped: readonly string[]): XMLParser {
  return new XMLParser({
    // Elements no reader reads (long descriptions, plugin output) are kept as raw text, not parsed.
    stopNodes: skipped.map((name) => `*.${name}`),
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    processEntities: false,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    trimValues: true,
    maxNestedTags: MAX_XML_DEPTH,
  });
}

/** Where the text first declares a DTD or an entity, or -1 (compared without regard to case, as `<!doctype` is refused too). */
function declarationAt(source: string): number {
  const match = /<!(DOCTYPE|ENTITY)/i.exec(source);
  return match ? match.index : -1;
}

function lineAt(source: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (source.charCodeAt(i) === 0x0a) line++;
  return line;
}

export function parseXml(bytes: Uint8Array, format: ScanFormat | null, skipped: readonly string[] = []): XmlDocument {
  if (bytes.byteLength > MAX_XML_BYTES) throw new ScanShapeError(format, { line: 1 }, `is larger than the ${MAX_XML_BYTES} bytes an XML file may have`);
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const declared = declarationAt(source);
  if (declared >= 0)
    throw new ScanShapeError(
      format,
      { line: lineAt(source, declared) },
      'declares a DTD or an entity (<!DOCTYPE, <!ENTITY): refused, as XML scanner files have none and entities are not expanded',
    );
  // The parser is lenient (an unclosed element ends the document quietly): a truncated file must not read as a shorter scan.
  const valid = XMLValidator.validate(source);
  if (valid !== true) throw new ScanShapeError(format, { line: valid.err.line }, `is not well-formed XML: ${valid.err.msg}`);
  let parsed: unknown;
  try {
    parsed = parser(skipped).parse(source);
  } catch (error) {
    const message = (error as Error).message;
    const line = /line[:\s]+(\d+)/i.exec(message);
    throw new ScanShapeError(format, line ? { line: Number(line[1]) } : {}, `is not well-formed XML: ${message}`);
  }
  const roots = isObject(parsed) ? Object.keys(parsed).filter((key) => !key.startsWith('?') && !key.startsWith('#')) : [];
  if (roots.length !== 1) throw new ScanShapeError(format, { line: 1 }, `must have one root element (found ${roots.length})`);
  const element = (parsed as JsonObject)[roots[0]];
  return { root: roots[0], element: isObject(element) ? element : { '#text': typeof element === 'string' ? element : '' } };
}

/** The children of an element under one tag name, always as a list. */
export function xmlChildren(element: XmlElement, tag: string): XmlElement[] {
  const value = element[tag];
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.map((item) => (isObject(item) ? item : { '#text': typeof item === 'string' || typeof item === 'number' ? String(item) : '' }));
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(raw: string): string {
  return raw.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[name.toLowerCase()] ?? whole;
  });
}

/** An element's text (or a child element's, or an attribute's with `@_name`), decoded; null when absent or empty. */
export function xmlText(element: XmlElement | undefined, key?: string): string | null {
  if (!element) return null;
  const value = key === undefined ? element : element[key];
  const raw = isObject(value) ? value['#text'] : Array.isArray(value) ? (isObject(value[0]) ? value[0]['#text'] : value[0]) : value;
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  const text = decode(String(raw)).trim();
  return text === '' ? null : text;
}
