import { CLOSE_ARRAY, CLOSE_OBJECT, COMMA, endOfString, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../core/json-body.js';

/**
 * One of the spec's two shapes of an analysis result (SPEC 2.7). An analysis answers with both
 * side by side, unless `?variant=a|b` asks for one (docs/api.md).
 */
export type ResultVariant = 'a' | 'b';
export const RESULT_VARIANTS = ['a', 'b'] as const satisfies readonly ResultVariant[];

/**
 * The members of `data` that one variant alone has; the others (created_at, status,
 * frameworks_requested, options) are in both. `resources` goes with Variant B, whose gaps alone
 * refer to it by index.
 */
const ONLY_IN: Record<ResultVariant, ReadonlySet<string>> = {
  a: new Set(['analysis_id', 'summary', 'frameworks', 'cross_framework_insights']),
  b: new Set(['id', 'posture', 'by_framework', 'cross_framework', 'resources']),
};

/**
 * Where each member of an analysis result's `data` lies in its JSON bytes: the offset of its
 * name's opening quote and the offset just past its value, in pairs, in order. Kept with the
 * stored analysis, so that one variant is cut out of the stored answer without parsing it.
 */
export type DataMemberSpans = number[];

const COMMA_BYTES = Buffer.from(',');
const DATA_OPENING = Buffer.from('{"data":{');

/**
 * The stored answer with the other variant's members left out: a copy of the bytes around them,
 * no parsing (figures: docs/api.md). The copy is in memory of its own (never a slice of Node's
 * shared pool), so that once sent it can be kept for a worker's next answer (src/pool.ts
 * `AnswerBuffers`).
 */
export function resultInVariant(payload: Buffer, spans: DataMemberSpans, variant: ResultVariant): Buffer {
  const left = ONLY_IN[variant === 'a' ? 'b' : 'a'];
  const parts: Buffer[] = [payload.subarray(0, spans[0])];
  let kept = 0;
  for (let k = 0; k < spans.length; k += 2) {
    if (left.has(memberName(payload, spans[k]))) continue;
    if (kept++) parts.push(COMMA_BYTES);
    parts.push(payload.subarray(spans[k], spans[k + 1]));
  }
  parts.push(payload.subarray(spans[spans.length - 1]));
  const answer = Buffer.allocUnsafeSlow(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) offset += part.copy(answer, offset);
  return answer;
}

/** Member names are the schema's: ASCII, nothing escaped. */
function memberName(payload: Buffer, start: number): string {
  return payload.toString('latin1', start + 1, payload.indexOf(QUOTE, start + 1));
}

/**
 * The spans found by reading the stored bytes, for analyses stored before their spans were kept.
 * One pass over compact JSON as the service writes it, strings skipped with the native indexOf;
 * it runs in a worker (figures: docs/api.md).
 */
export function scanMemberSpans(payload: Uint8Array): DataMemberSpans {
  const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (!bytes.subarray(0, DATA_OPENING.length).equals(DATA_OPENING)) throw new Error('A stored analysis does not start with {"data":{');
  const spans: DataMemberSpans = [];
  let at = DATA_OPENING.length;
  while (bytes[at] === QUOTE) {
    const start = at;
    let depth = 0;
    // Past the name and its colon, to the comma or brace that ends the value at this depth.
    for (at = closingQuote(bytes, start) + 2; at < bytes.length; at++) {
      const byte = bytes[at];
      if (byte === QUOTE) at = closingQuote(bytes, at);
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) depth++;
      else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        if (depth === 0) break;
        depth--;
      } else if (byte === COMMA && depth === 0) break;
    }
    spans.push(start, at);
    if (bytes[at] !== COMMA) break;
    at++;
  }
  return spans;
}

function closingQuote(bytes: Buffer, start: number): number {
  const end = endOfString(bytes, start);
  if (end < 0) throw new Error(`A stored analysis has a string that never closes (offset ${start})`);
  return end;
}
