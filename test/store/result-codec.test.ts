import t from 'tap';
import { brotliDecompressSync } from 'node:zlib';
import { answerOf, compressedForm, storedForm } from '../../src/store/result-codec.js';

// An answer's shape: JSON, repetitive, with text outside ASCII.
const ANSWER = Buffer.from(
  JSON.stringify({
    data: { gaps: Array.from({ length: 400 }, (_, i) => ({ control: `164.308(a)(${i % 9})`, guidance: 'Zugriffsbeschränkung — prüfen ✓', priority: i % 5 })) },
    meta: { registry_version: '2.1.0' },
  }),
);

t.test('an answer is stored compressed and read back byte for byte', async (t) => {
  const stored = await storedForm(ANSWER);
  t.ok(stored.byteLength < ANSWER.byteLength / 5, `stored in ${stored.byteLength} bytes, from ${ANSWER.byteLength}`);
  const { brotli, length } = compressedForm(stored)!;
  t.equal(length, ANSWER.byteLength, 'recognised as compressed, with the length of the answer');
  t.same(brotliDecompressSync(brotli), ANSWER, 'its brotli stream alone decodes to the answer (what a br client is sent)');
  t.same(await answerOf(stored), ANSWER, 'the answer as sent');
  const large = Buffer.concat(Array.from({ length: 40 }, () => ANSWER));
  t.same(await answerOf(await storedForm(large)), large, `and a larger one (${large.length} bytes, several output pieces)`);
});

t.test('a small answer too', async (t) => {
  t.same(await answerOf(await storedForm(Buffer.from('{"data":{}}'))), Buffer.from('{"data":{}}'));
});

t.test('an answer stored as sent, before this format, is read as it is', async (t) => {
  t.equal(compressedForm(ANSWER)?.brotli, undefined);
  t.equal(await answerOf(ANSWER), ANSWER, 'the same bytes, no copy');
});

t.test('a stored form whose length does not match its header is an error, not a short answer', async (t) => {
  const stored = await storedForm(ANSWER);
  stored.writeUInt32LE(ANSWER.byteLength + 1, 4);
  await t.rejects(answerOf(stored), /not the \d+ its header says/);
  const truncated = (await storedForm(ANSWER)).subarray(0, 100);
  await t.rejects(answerOf(truncated));
});
