import { promisify } from 'node:util';
import zlib from 'node:zlib';

/**
 * How an analysis's answer is kept: brotli at quality 0 behind an 8-byte header, about a tenth of
 * the answer's bytes, so the durable write before the answer is shorter than writing the answer
 * as sent, and the disk holds a tenth for the retention period (figures: docs/benchmarks.md).
 *
 * The header is `\0br` and a version byte, then the answer's length (uint32, little-endian), so
 * the reader sizes its output at once. An answer is JSON and starts with `{`: a payload that
 * does not start with the header was stored as sent, before this format (2026-11-27), and is
 * read as it is.
 */
const HEADER = Buffer.from([0x00, 0x62, 0x72, 0x01]);
const HEADER_BYTES = HEADER.length + 4;

const compress = promisify(zlib.brotliCompress);
const decompress = promisify(zlib.brotliDecompress);

/**
 * The form an answer is stored in, compressed on libuv's thread pool: off the HTTP thread, and
 * off the worker, which meanwhile runs the next analysis (made in the worker, it took from the
 * analyses a saturated worker completes: docs/benchmarks.md).
 */
export async function storedForm(answer: Uint8Array): Promise<Buffer> {
  const compressed = await compress(answer, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 0,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: answer.byteLength,
    },
    // Output in a few large pieces: JSON answers compress to about a tenth.
    chunkSize: Math.max(zlib.constants.Z_DEFAULT_CHUNK, answer.byteLength >>> 3),
  });
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  HEADER.copy(header, 0);
  header.writeUInt32LE(answer.byteLength, HEADER.length);
  return Buffer.concat([header, compressed]);
}

/** The brotli stream of a stored payload and the answer's length, or undefined when it was stored as sent. */
export function compressedForm(stored: Buffer): { brotli: Buffer; length: number } | undefined {
  if (stored.length < HEADER_BYTES || stored.compare(HEADER, 0, HEADER.length, 0, HEADER.length) !== 0) return undefined;
  return { brotli: stored.subarray(HEADER_BYTES), length: stored.readUInt32LE(HEADER.length) };
}

/** The answer a stored payload holds, decompressed on libuv's thread pool (off the HTTP thread). */
export async function answerOf(stored: Buffer): Promise<Buffer> {
  const compressed = compressedForm(stored);
  if (!compressed) return stored;
  const { brotli, length } = compressed;
  // One output chunk of the answer's size: no joining of pieces afterwards.
  const answer = await decompress(brotli, { chunkSize: Math.max(length, zlib.constants.Z_MIN_CHUNK), maxOutputLength: Math.max(length, 1) });
  if (answer.length !== length) throw new Error(`a stored analysis decompressed to ${answer.length} bytes, not the ${length} its header says`);
  return answer;
}
