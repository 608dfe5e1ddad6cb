import t from 'tap';
import { brotliDecompressSync } from 'node:zlib';
import { answerOf, brotliOf, storedForm } from '../../src/store/result-codec.js';

// An answer's shape: JSON, repetitive, with text outside ASCII.
const ANSWER = Buffer.from(
  JSON.stringify({
    data: { gaps: Array.from({ length: 400 }, (_, i) => ({ control: `164.308(a)(${i % 9})`, guidance: 'Zugriffsbeschränkung — prüfen ✓', priority: i % 5 })) },
    meta: { registry_version: '2.1.0' },
  }),
);

t.test('an answer is stored compressed and read back byte for byte', async (t) => {
  const stored = storedForm(ANSWER);
  t.ok(stored.byteLength < ANSWER.byteLength / 5, `stored in ${stored.byteLength} bytes, from ${ANSWER.byteLength}`);
  t.equal(stored.byteOffset, 0, 'the stored form starts its memory');
  t.equal(stored.byteLength, stored.buffer.byteLength, 'and owns all of it, so a worker can transfer it');
  const asBuffer = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const brotli = brotliOf(asBuffer);
  t.ok(brotli, 'recognised as compressed');
  t.same(brotliDecompressSync(brotli!), ANSWER, 'its brotli stream alone decodes to the answer (what a br client is sent)');
  t.same(await answerOf(asBuffer), ANSWER, 'the answer as sent');
});

t.test('a small answer still gets memory of its own', async (t) => {
  const stored = storedForm(Buffer.from('{"data":{}}'));
  t.equal(stored.byteLength, stored.buffer.byteLength, 'not a slice of a shared pool');
  t.same(await answerOf(Buffer.from(stored.buffer)), Buffer.from('{"data":{}}'));
});

t.test('an answer stored as sent, before this format, is read as it is', async (t) => {
  t.equal(brotliOf(ANSWER), undefined);
  t.equal(await answerOf(ANSWER), ANSWER, 'the same bytes, no copy');
});

t.test('a stored form whose length does not match its header is an error, not a short answer', async (t) => {
  const stored = Buffer.from(storedForm(ANSWER));
  stored.writeUInt32LE(ANSWER.byteLength + 1, 4);
  await t.rejects(answerOf(stored), /not the \d+ its header says/);
  const truncated = Buffer.from(storedForm(ANSWER)).subarray(0, 100);
  await t.rejects(answerOf(truncated));
});
