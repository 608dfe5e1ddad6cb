import t from 'tap';
import { jsonBytes, MAX_JSON_DEPTH, nestingBeyond, parseJsonBody } from '../../src/core/json-body.js';
import { ApiError } from '../../src/core/errors.js';

const bytes = (text: string) => Buffer.from(text);
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

t.test('nesting is counted over arrays and objects, outside strings', async (t) => {
  t.equal(nestingBeyond(bytes(nested(MAX_JSON_DEPTH))), -1, 'the limit itself is allowed');
  t.equal(nestingBeyond(bytes(nested(MAX_JSON_DEPTH + 1))), MAX_JSON_DEPTH, 'one more is refused at the byte that passes it');
  t.equal(nestingBeyond(bytes(`{"a":"${'['.repeat(500)}"}`)), -1, 'brackets inside a string do not count');
  t.equal(nestingBeyond(bytes(`{"a":"\\"${'['.repeat(500)}"}`)), -1, 'an escaped quote does not end the string');
  const afterBackslash = `{"a":"\\\\", "b":${nested(100)}}`;
  t.equal(nestingBeyond(bytes(afterBackslash)), afterBackslash.indexOf('[') + MAX_JSON_DEPTH - 1, 'an escaped backslash does end it');
  t.equal(nestingBeyond(bytes('{"a":[{"b":[{"c":1}]}]}'), 3), 11);
  t.equal(nestingBeyond(bytes('"never closed [[[[')), -1, 'malformed input is left to the parser');
  t.equal(nestingBeyond(new Uint8Array(bytes(nested(70))).subarray(1), 64), 64, 'a view into a larger buffer');
});

t.test('parseJsonBody refuses deep bodies before parsing and names the limit', async (t) => {
  const error = t.throws(() => parseJsonBody(bytes(`{"ids":${nested(100_000)}}`))) as unknown as ApiError;
  t.ok(error instanceof ApiError);
  t.equal(error.code, 'json_too_deep');
  t.same(error.details, { limit: MAX_JSON_DEPTH, offset: 7 + MAX_JSON_DEPTH - 1 });
  t.same(parseJsonBody(new Uint8Array()), {}, 'an empty body reads as {}');
  t.same(parseJsonBody(bytes('{"a":[1,{"b":"]"}]}')), { a: [1, { b: ']' }] });
  t.equal((t.throws(() => parseJsonBody(bytes('{"a":'))) as unknown as ApiError).code, 'invalid_json');
});

t.test('jsonBytes: UTF-8 JSON in memory of its own, so a worker can transfer it', async (t) => {
  for (const value of [{}, { a: 'x' }, { title: 'Zugriffsbeschränkung — ✓ 日本語 😀', n: [1, 2.5, null] }, { big: 'y'.repeat(100_000) }]) {
    const bytes = jsonBytes(value);
    t.equal(bytes.toString('utf8'), JSON.stringify(value), 'the same text as JSON.stringify');
    t.equal(bytes.byteOffset, 0, 'starts its buffer');
    t.equal(bytes.buffer.byteLength, bytes.byteLength, 'and fills it: not a slice of the shared pool');
  }
  const { port1, port2 } = new MessageChannel();
  const bytes = jsonBytes({ a: 1 });
  port1.postMessage(bytes, [bytes.buffer]);
  t.equal(bytes.byteLength, 0, 'transferred, not copied');
  port1.close();
  port2.close();
});
