import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** The content codings the service answers with besides identity. */
export type ContentCoding = 'br' | 'gzip';

const Q_VALUE = /^q=([01](?:\.\d{0,3})?)$/;

/**
 * The coding to answer with, read from Accept-Encoding (RFC 9110 §12.5.3): the acceptable coding
 * with the highest q-value, brotli before gzip on a tie (smaller for JSON at the same speed);
 * `*` stands for codings not named; q=0 refuses. Undefined: send identity.
 */
export function chooseCoding(acceptEncoding: string | undefined): ContentCoding | undefined {
  if (!acceptEncoding) return undefined;
  const named: Partial<Record<ContentCoding, number>> = {};
  let anyOther: number | undefined;
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [token, ...params] = part.split(';').map((piece) => piece.trim());
    const q = params.map((p) => Q_VALUE.exec(p.replace(/\s+/g, ''))).find(Boolean);
    const weight = q ? Number(q[1]) : 1;
    if (token === 'br' || token === 'gzip') named[token] = weight;
    else if (token === 'x-gzip') named.gzip ??= weight;
    else if (token === '*') anyOther = weight;
  }
  const br = named.br ?? anyOther ?? 0;
  const gzip = named.gzip ?? anyOther ?? 0;
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * How hard to compress. `answer`: a body made for one request (an analysis result of up to tens
 * of megabytes), where time to the last byte counts: brotli quality 1 and gzip level 1.
 * `kept`: a registry answer compressed once and sent many times: brotli 9, gzip 9.
 * Measured figures: docs/benchmarks.md, "Compression levels".
 */
export type CompressionEffort = 'answer' | 'kept';

/** Compresses on libuv's thread pool, off the HTTP thread. */
export function compress(body: Buffer, coding: ContentCoding, effort: CompressionEffort): Promise<Buffer> {
  if (coding === 'br') {
    return brotli(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: effort === 'answer' ? 1 : 9,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  }
  return gzip(body, { level: effort === 'answer' ? 1 : 9 });
}

/** The strong ETag of a coded representation: distinct from identity's, as RFC 9110 §8.8.3 requires. */
export function codedEtag(etag: string, coding: ContentCoding | undefined): string {
  return coding ? `${etag.slice(0, -1)}-${coding}"` : etag;
}
