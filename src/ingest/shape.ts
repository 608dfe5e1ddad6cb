/**
 * Reading an untyped scanner document with a JSON pointer at hand, so that a file which stops
 * matching its format is refused with the place where it stopped (docs/ingest.md, errors).
 */
import type { ScanFormat } from './model.js';

/** The file does not match the format it was read as. */
export class ScanShapeError extends Error {
  constructor(
    readonly format: ScanFormat | null,
    /** Where the file stopped matching; empty only for JSON the parser refused without saying where. */
    readonly where: { pointer: string } | { line: number } | Record<string, never>,
    readonly reason: string,
    /** For a named format the file does not match: the format detection recognised instead, or null for none. */
    readonly found?: ScanFormat | null,
  ) {
    super(`${format ?? 'scan'}: ${'pointer' in where ? where.pointer || '(root)' : 'line' in where ? `line ${where.line}` : ''} ${reason}`);
    this.name = 'ScanShapeError';
  }
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Appends a key or index to a JSON pointer (RFC 6901 escaping). */
export function at(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A cursor over one format's document: each accessor refuses a value of the wrong kind. */
export class Shape {
  constructor(readonly format: ScanFormat) {}

  fail(pointer: string, reason: string): never {
    throw new ScanShapeError(this.format, { pointer }, reason);
  }

  object(value: unknown, pointer: string): JsonObject {
    if (!isObject(value)) this.fail(pointer, `must be an object (found ${kindOf(value)})`);
    return value;
  }

  array(value: unknown, pointer: string): Json[] {
    if (!Array.isArray(value)) this.fail(pointer, `must be an array (found ${kindOf(value)})`);
    return value;
  }

  /** An optional array: absent or null reads as empty. */
  arrayOrEmpty(value: unknown, pointer: string): Json[] {
    return value === undefined || value === null ? [] : this.array(value, pointer);
  }

  string(value: unknown, pointer: string): string {
    if (typeof value === 'number') return String(value);
    if (typeof value !== 'string' || value === '') this.fail(pointer, `must be a non-empty string (found ${kindOf(value)})`);
    return value;
  }
}

/** A string field when present (numbers written as text), else null. */
export function text(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
