import t from 'tap';
import { MAX_JSON_DEPTH, nestingBeyond, parseJsonBody } from '../../src/core/json-body.js';
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
