import { randomBytes } from 'node:crypto';
import { ApiError } from '../core/errors.js';
import type { AnalysisIndexEntry, DataStore } from './database.js';

const DAY_MS = 86_400_000;
const MAX_ID_LENGTH = 128;
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

export interface StoredAnalysis {
  entry: AnalysisIndexEntry;
  /** The create response exactly as it was sent: `{"data":…,"meta":…}` in UTF-8. */
  payload: Buffer;
}

export interface AnalysisListQuery {
  framework?: string;
  status?: string;
  offset: number;
  limit: number;
}

/**
 * Stored analyses with tier retention. The payload is the create response's bytes, so a GET
 * sends it unchanged. Expiry is indexed by [expiresAt, id] so the sweeper is one range scan;
 * a swept analysis keeps its small index entry as a tombstone and answers 410, not 404.
 */
export class AnalysisStore {
  constructor(private readonly store: DataStore) {}

  static expiryOf(createdAt: Date, retentionDays: number): Date {
    return new Date(createdAt.getTime() + retentionDays * DAY_MS);
  }

  async save(entry: AnalysisIndexEntry, payload: Buffer): Promise<void> {
    const expiresAt = Date.parse(entry.expires_at);
    await this.store.root.transaction(() => {
      this.store.analyses.put(entry.id, payload);
      this.store.analysisIndex.put(entry.id, entry);
      this.store.analysisExpiry.put([expiresAt, entry.id], true);
      this.store.accountAnalyses.put([entry.account, entry.created_at, entry.id], true);
    });
  }

  /** The caller's analysis, or GAP_NOT_FOUND (unknown or another account's) / GAP_EXPIRED. */
  get(id: string, account: string, now: Date): StoredAnalysis {
    const entry = this.entryFor(id, account, now);
    const payload = this.store.analyses.getBinary(id);
    // A payload can only be missing after a sweep, which also marks the entry expired.
    if (!payload) throw new ApiError('GAP_EXPIRED', { id, expired_at: entry.expires_at });
    return { entry, payload: Buffer.from(payload) };
  }

  entryFor(id: string, account: string, now: Date): AnalysisIndexEntry {
    // Real ids are 25 characters; anything much longer cannot exist (and would exceed LMDB's key size).
    const entry = id.length <= MAX_ID_LENGTH ? this.store.analysisIndex.get(id) : undefined;
    if (!entry || entry.account !== account) throw new ApiError('GAP_NOT_FOUND', { id });
    if (entry.swept_at || Date.parse(entry.expires_at) <= now.getTime()) {
      throw new ApiError('GAP_EXPIRED', { id, expired_at: entry.expires_at });
    }
    return entry;
  }

  /** The caller's live analyses, newest first. */
  list(account: string, query: AnalysisListQuery, now: Date): { total: number; items: AnalysisIndexEntry[] } {
    const items: AnalysisIndexEntry[] = [];
    let total = 0;
    const range = this.store.accountAnalyses.getRange({ start: [account, '\uffff'], end: [account, ''], reverse: true });
    for (const { key } of range) {
      const entry = this.store.analysisIndex.get(key[2]);
      if (!entry || entry.swept_at || Date.parse(entry.expires_at) <= now.getTime()) continue;
      if (query.framework && !entry.frameworks.includes(query.framework)) continue;
      if (query.status && entry.status !== query.status) continue;
      if (total >= query.offset && items.length < query.limit) items.push(entry);
      total += 1;
    }
    return { total, items };
  }

  /** Removes the payloads of every analysis expired by `now`, leaving tombstones. Returns the count. */
  async sweep(now: Date): Promise<number> {
    const due: Array<[number, string]> = [];
    for (const { key } of this.store.analysisExpiry.getRange({ start: [0, ''], end: [now.getTime(), '\uffff'] })) due.push(key);
    if (!due.length) return 0;
    const sweptAt = now.toISOString();
    await this.store.root.transaction(() => {
      for (const key of due) {
        const id = key[1];
        const entry = this.store.analysisIndex.get(id);
        this.store.analyses.remove(id);
        this.store.analysisExpiry.remove(key);
        if (entry) {
          this.store.accountAnalyses.remove([entry.account, entry.created_at, entry.id]);
          this.store.analysisIndex.put(id, { ...entry, swept_at: sweptAt });
        }
      }
    });
    return due.length;
  }
}

/** Runs the sweeper every `intervalMs` until stopped. */
export function startSweeper(store: AnalysisStore, intervalMs: number, now: () => Date, onError: (error: unknown) => void): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    store.sweep(now()).catch(onError).finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
