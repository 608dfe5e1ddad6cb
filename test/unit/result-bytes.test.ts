import t from 'tap';
import { writeResultBytes } from '../../src/gap/result.js';

// Parts as resultJson makes them, with text outside ASCII (two, three and four bytes a character).
const PARTS = ['{"data":{', '"title":"Zugriffsbeschr', 'änkung — ✓"', ',', '"emoji":"😀"', ',', '"n":[1,2.5]', '}}'];
const TEXT = PARTS.join('');
/** Where each member of `data` starts and ends, as part indices: title, emoji, n. */
const BREAKS = [1, 3, 4, 5, 6, 7];

t.test('the parts in UTF-8, in order, and the byte offsets where each member starts and ends', async (t) => {
  const { bytes, memberSpans } = writeResultBytes(PARTS, PARTS.length, BREAKS);
  t.equal(bytes.toString('utf8'), TEXT, 'every character whole');
  t.equal(bytes.byteLength, Buffer.byteLength(TEXT));
  t.same(
    [0, 2, 4].map((k) => bytes.toString('utf8', memberSpans[k], memberSpans[k + 1])),
    ['"title":"Zugriffsbeschränkung — ✓"', '"emoji":"😀"', '"n":[1,2.5]'],
    'each span is one member, counted in bytes',
  );
  t.equal(bytes.byteOffset, 0, 'the bytes start their memory, which a worker transfers whole');
});

t.test('written into the memory given when the text fits, else into new memory', async (t) => {
  const memory = new ArrayBuffer(1024);
  new Uint8Array(memory).fill(0x21);
  const reused = writeResultBytes(PARTS, PARTS.length, BREAKS, memory).bytes;
  t.equal(reused.buffer, memory, 'written into the memory given');
  t.equal(reused.toString('utf8'), TEXT);

  const small = new ArrayBuffer(8);
  const grown = writeResultBytes(PARTS, PARTS.length, BREAKS, small).bytes;
  t.not(grown.buffer, small, 'too small: new memory');
  t.equal(grown.toString('utf8'), TEXT);

  // As many bytes as UTF-16 units fits the ASCII text, and the rest of the text grows the memory.
  const units = TEXT.length;
  const justUnits = writeResultBytes(PARTS, PARTS.length, BREAKS, new ArrayBuffer(units)).bytes;
  t.ok(units < Buffer.byteLength(TEXT), 'the text takes more bytes than it has units');
  t.equal(justUnits.toString('utf8'), TEXT, 'grown midway, nothing written before lost');
});

t.test('only the first `count` parts are written: the thread reuses its array of parts', async (t) => {
  const parts = [...PARTS, 'stale part of an earlier result'];
  t.equal(writeResultBytes(parts, PARTS.length, BREAKS).bytes.toString('utf8'), TEXT);
});

t.test('pieces of about 32,768 units: a long text is whole, and so are its members', async (t) => {
  // 3,000 parts of 100 units: about 300,000 units, so some ten pieces, and members across pieces.
  const filler = Array.from({ length: 3000 }, (_, i) => `"${String(i).padStart(4, '0')}é${'x'.repeat(93)}"`);
  const parts = [
    '{"data":{',
    '"a":[',
    ...filler.slice(0, 1500).flatMap((p, i) => (i ? [',', p] : [p])),
    ']',
    ',',
    '"b":[',
    ...filler.slice(1500).flatMap((p, i) => (i ? [',', p] : [p])),
    ']',
    '}}',
  ];
  const aStart = 1;
  const aEnd = parts.indexOf(']') + 1;
  const bStart = aEnd + 1;
  const bEnd = parts.lastIndexOf(']') + 1;
  const { bytes, memberSpans } = writeResultBytes(parts, parts.length, [aStart, aEnd, bStart, bEnd]);
  const text = parts.join('');
  t.equal(bytes.toString('utf8'), text);
  const value = JSON.parse(`{${bytes.toString('utf8', memberSpans[0], memberSpans[1])}}`) as { a: string[] };
  t.equal(value.a.length, 1500, 'the first member parses alone');
  t.equal(JSON.parse(`{${bytes.toString('utf8', memberSpans[2], memberSpans[3])}}`).b.length, 1500, 'and the second');
});
