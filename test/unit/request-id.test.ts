import t from 'tap';
import { ACCEPTED_REQUEST_ID, newRequestId } from '../../src/http/request-id.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('a new request id is a random version 4 UUID, never repeated, across batches', async (t) => {
  const ids = Array.from({ length: 5000 }, () => newRequestId());
  t.equal(ids.filter((id) => !UUID_V4.test(id)).length, 0, 'every id is a version 4 UUID in lower case');
  t.equal(new Set(ids).size, ids.length, 'no id twice');
  t.ok(
    ids.every((id) => ACCEPTED_REQUEST_ID.test(id)),
    'an id the service made is one it would accept back',
  );
  // Every hex digit that is not fixed by the version and variant takes many values: the bytes
  // are random, not a counter or a copy of one batch.
  const fixed = new Set([8, 13, 14, 18, 19, 23]);
  for (let position = 0; position < 36; position++) {
    if (fixed.has(position)) continue;
    const seen = new Set(ids.map((id) => id[position]));
    if (seen.size < 16) t.fail(`position ${position} took only ${seen.size} values`);
  }
  t.same(new Set(ids.map((id) => id[19])), new Set(['8', '9', 'a', 'b']), 'the variant digit is one of 8, 9, a, b');
});

t.test("a caller's request id is kept only when it is 1-128 characters of A-Z a-z 0-9 . _ : -", async (t) => {
  for (const id of ['a', 'req-1', 'trace:9f.2_x', 'x'.repeat(128)]) t.ok(ACCEPTED_REQUEST_ID.test(id), id);
  for (const id of ['', 'x'.repeat(129), 'has space', 'quote"', 'back\\slash', 'new\nline', 'é']) t.notOk(ACCEPTED_REQUEST_ID.test(id), JSON.stringify(id));
});
