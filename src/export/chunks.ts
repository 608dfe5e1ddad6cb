import { setImmediate as nextTurn } from 'node:timers/promises';

/** Size the streamed writers aim for per socket write: big enough to keep writes few, small enough to bound memory. */
export const STREAM_CHUNK_BYTES = 64 * 1024;

/**
 * Gathers small pieces (a CSV row, a JSON fragment) into chunks of about `size` bytes. Pull-based:
 * nothing is read from `pieces` until the consumer asks, so the socket's backpressure reaches
 * the producer. After each chunk the event loop gets a turn: a fast client would otherwise never
 * meet backpressure and a multi-megabyte export would hold the thread that serves every other
 * request until its last byte.
 */
export async function* coalesce(pieces: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, size = STREAM_CHUNK_BYTES): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const piece of pieces) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    if (bytes.length === 0) continue;
    pending.push(bytes);
    length += bytes.length;
    if (length >= size) {
      yield pending.length === 1 ? pending[0] : Buffer.concat(pending, length);
      pending = [];
      length = 0;
      await nextTurn();
    }
  }
  if (length > 0) yield pending.length === 1 ? pending[0] : Buffer.concat(pending, length);
}
