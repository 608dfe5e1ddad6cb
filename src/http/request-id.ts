import { randomFillSync } from 'node:crypto';

/** A caller's `X-Request-Id` is kept when it matches this; any other is replaced by a new UUID. */
export const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** UUIDs made per batch: 4 KB of random bytes, 9 KB of text. */
const IDS_PER_BATCH = 256;
const ID_LENGTH = 36;
const HYPHEN = 0x2d;

let batchText = '';
let nextInBatch = IDS_PER_BATCH;

/**
 * A new random (version 4) UUID for a request that brought no usable id of its own.
 *
 * Made 256 at a time into one string, each id a slice of it. `crypto.randomUUID` builds its text
 * from 20 pieces, and V8 copies such a string into one piece wherever it is next read whole (the
 * header line, the access line); a slice is read as it is (figures: docs/benchmarks.md).
 */
export function newRequestId(): string {
  if (nextInBatch === IDS_PER_BATCH) {
    batchText = uuidBatch();
    nextInBatch = 0;
  }
  const start = ID_LENGTH * nextInBatch++;
  return batchText.slice(start, start + ID_LENGTH);
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** IDS_PER_BATCH UUIDs as one string: xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V one of 8, 9, a, b (RFC 9562). */
function uuidBatch(): string {
  const random = randomFillSync(Buffer.allocUnsafe(16 * IDS_PER_BATCH));
  const text = Buffer.allocUnsafe(ID_LENGTH * IDS_PER_BATCH);
  let at = 0;
  for (let id = 0; id < IDS_PER_BATCH; id++) {
    random[id * 16 + 6] = (random[id * 16 + 6] & 0x0f) | 0x40;
    random[id * 16 + 8] = (random[id * 16 + 8] & 0x3f) | 0x80;
    for (let index = 0; index < 16; index++) {
      if (index === 4 || index === 6 || index === 8 || index === 10) text[at++] = HYPHEN;
      const byte = random[id * 16 + index];
      text[at++] = HEX_DIGITS[byte >> 4];
      text[at++] = HEX_DIGITS[byte & 0x0f];
    }
  }
  return text.toString('latin1');
}
