import { isUtf8 } from 'node:buffer';
import { ApiError } from './errors.js';

/**
 * The deepest nesting of arrays and objects a request body may have. Our deepest schema (a gap
 * analysis finding's artifact inside a finding inside the findings array) needs 5 levels; 64
 * leaves room for free-form metadata while keeping every recursive step (JSON.parse, schema
 * checks, the error that echoes a value back) far from the stack limit, which about 5,000 levels
 * reach.
 */
export const MAX_JSON_DEPTH = 64;

/** The bytes of JSON's structure, for the passes over raw JSON here and in src/gap/variant.ts. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const OPEN_ARRAY = 0x5b;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_ARRAY = 0x5d;
export const CLOSE_OBJECT = 0x7d;

/**
 * The byte offset at which the nesting of `bytes` first goes deeper than `limit`, or -1. One pass
 * over the bytes without parsing (strings are skipped with the native indexOf), so a body can be
 * refused before any recursive step touches it. Malformed JSON is left to the parser.
 */
export function nestingBeyond(bytes: Uint8Array, limit = MAX_JSON_DEPTH): number {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let depth = 0;
  for (let i = 0; i < buffer.length; i++) {
    const byte = buffer[i];
    if (byte === QUOTE) {
      i = endOfString(buffer, i);
      if (i < 0) return -1;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > limit) return i;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return -1;
}

/** The offset of the quote that closes the string opened at `start`, or -1 when it never closes. */
export function endOfString(buffer: Buffer, start: number): number {
  let quote = buffer.indexOf(QUOTE, start + 1);
  while (quote > 0) {
    let backslashes = 0;
    while (buffer[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = buffer.indexOf(QUOTE, quote + 1);
  }
  return -1;
}

/**
 * A request body as a JSON value: refused with json_too_deep when it nests beyond the limit, with
 * invalid_json when it does not parse. An empty body reads as {} so that the schema then names
 * any required field that is missing. Every JSON body, on the HTTP thread or in a worker, comes
 * through here.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return {};
  const offset = nestingBeyond(bytes);
  if (offset >= 0) throw new ApiError('json_too_deep', { limit: MAX_JSON_DEPTH, offset });
  // JSON text is UTF-8 (RFC 8259 8.1); decoding would replace a bad sequence with U+FFFD and
  // analyse, store and export text the client never sent.
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    throw new ApiError('invalid_json', { reason: `the body is not valid UTF-8 (byte ${at})`, offset: at });
  }
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (error) {
    throw new ApiError('invalid_json', { reason: (error as Error).message });
  }
}

/** The offset of the first byte that starts no valid UTF-8 sequence (RFC 3629: no overlongs, surrogates or values past U+10FFFF). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i];
    if (lead < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let min: number;
    if (lead >= 0xc2 && lead <= 0xdf) [length, min] = [2, 0x80];
    else if (lead >= 0xe0 && lead <= 0xef) [length, min] = [3, 0x800];
    else if (lead >= 0xf0 && lead <= 0xf4) [length, min] = [4, 0x10000];
    else return i;
    let code = lead & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      code = (code << 6) | (next & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += length;
  }
  return -1;
}

/**
 * A value as JSON in UTF-8, in bytes that own their memory (never a slice of Node's shared pool),
 * so a worker can transfer them to the HTTP thread. Written into a buffer sized by
 * `Buffer.byteLength`: a tenth of `TextEncoder.encode`'s time (docs/benchmarks.md).
 */
export function jsonBytes(value: unknown): Buffer {
  const text = JSON.stringify(value);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}
