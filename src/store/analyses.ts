import { randomBytes } from 'node:crypto';
import { ApiError } from '../core/errors.js';
import type { AnalysisIndexEntry, AnalysisStore, StoredAnalysis } from './types.js';
import { answerOf, compressedForm } from './result-codec.js';

export type { AnalysisIndexEntry, AnalysisListQuery, AnalysisStore, IdempotencyRecord, SaveOutcome, StoredAnalysis } from './types.js';

const DAY_MS = 86_400_000;
/** Real ids are 25 characters; anything much longer cannot exist (and would exceed LMDB's key size). */
export const MAX_ANALYSIS_ID_LENGTH = 128;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** GAP-<YYYY-MM-DD>-<10 Crockford base32 characters = 50 random bits>. */
export function newAnalysisId(createdAt: Date): string {
  const bytes = randomBytes(7);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let suffix = '';
  for (let i = 0; i < 10; i++) {
    suffix = CROCKFORD[Number(bits & 31n)] + suffix;
    bits >>= 5n;
  }
  return `GAP-${createdAt.toISOString().slice(0, 10)}-${suffix}`;
}

/** When an analysis made at `createdAt` under a tier keeping `retentionDays` expires. */
export function expiryOf(createdAt: Date, retentionDays: number): Date {
  return new Date(createdAt.getTime() + retentionDays * DAY_MS);
}

/** The one rule both stores apply to an index entry: the caller's, and neither swept nor past expiry. */
export function liveEntry(entry: AnalysisIndexEntry | undefined, id: string, account: string, now: Date): AnalysisIndexEntry {
  if (!entry || entry.account !== account) throw new ApiError('GAP_NOT_FOUND', { id });
  if (entry.swept_at || Date.parse(entry.expires_at) <= now.getTime()) {
    throw new ApiError('GAP_EXPIRED', { id, expired_at: entry.expires_at });
  }
  return entry;
}

/** A stored analysis read back, its answer decompressed only when asked for. */
export interface AnalysisRead {
  entry: AnalysisIndexEntry;
  /** The answer as a brotli stream, and its length, when it was kept compressed: what a br client is sent. */
  compressed?: { brotli: Buffer; length: number };
  /** The create response exactly as it was sent: `{"data":…,"meta":…}` in UTF-8. */
  answer(): Promise<Buffer>;
}

/** Reads an analysis the caller may see (GAP_NOT_FOUND, GAP_EXPIRED otherwise). */
export async function readAnalysis(store: AnalysisStore, id: string, account: string, now: Date): Promise<AnalysisRead> {
  const { entry, payload }: StoredAnalysis = await store.get(id, account, now);
  return { entry, compressed: compressedForm(payload), answer: () => answerOf(payload) };
}

/** Runs the sweeper every `intervalMs` until stopped. */
export function startSweeper(
  store: Pick<AnalysisStore, 'sweep'>,
  intervalMs: number,
  now: () => Date,
  onError: (error: unknown) => void,
  onSwept: (count: number) => void = () => undefined,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    store
      .sweep(now())
      .then(onSwept, onError)
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
