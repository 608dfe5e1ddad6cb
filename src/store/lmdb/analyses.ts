import { ApiError } from '../../core/errors.js';
import { liveEntry, MAX_ANALYSIS_ID_LENGTH } from '../analyses.js';
import type { AnalysisIndexEntry, AnalysisListQuery, AnalysisStore, IdempotencyRecord, SaveOutcome, StoredAnalysis } from '../types.js';
import type { DataStore } from './database.js';
import type { AnalysisPostureWrite } from '../posture.js';
import { writePosture } from './posture.js';

/**
 * Stored analyses in the embedded LMDB. The payload is the create response's bytes in their
 * stored form (src/store/result-codec.ts), kept and given back as they came. Expiry is indexed
 * by [expiresAt, id] so the sweeper is one range scan; a swept analysis keeps its small index
 * entry as a tombstone and answers 410, not 404.
 * Reads are synchronous underneath; the promise is the interface's, shared with PostgreSQL.
 */
export class LmdbAnalysisStore implements AnalysisStore {
  constructor(private readonly store: DataStore) {}

  async save(entry: AnalysisIndexEntry, payload: Buffer, idempotency?: IdempotencyRecord, posture?: AnalysisPostureWrite): Promise<SaveOutcome> {
    const expiryKey: [number, string] = [Date.parse(entry.expires_at), entry.id];
    // Every write is a single put, which LMDB's write thread carries out; lmdb-js commits the
    // puts of one event turn together, in the order made. Inside transaction() the payload's
    // copy (20 MB for 10,000 findings) ran on the HTTP thread, into pages the growing file had
    // never used, and held every read behind it (docs/benchmarks.md). The payload
    // and its expiry record go first: should a crash split the commit, nothing reads a payload
    // without its index entry, and the sweeper removes it at its expiry.
    const payloadWritten = Promise.all([this.store.analyses.put(entry.id, payload), this.store.analysisExpiry.put(expiryKey, true)]);
    if (!idempotency && !posture) {
      // Both awaited here and below: the caller reuses the payload's memory once save() resolves.
      await Promise.all([
        payloadWritten,
        this.store.analysisIndex.put(entry.id, entry),
        this.store.accountAnalyses.put([entry.account, entry.created_at, entry.id], true),
      ]);
      return { stored: true };
    }
    let outcome: SaveOutcome = { stored: true };
    let deliveries = 0;
    // The key's check and its writes in one transaction: LMDB runs them one at a time, so they
    // cannot interleave with another request's save under the same key. lmdb-js runs queued
    // single puts before queued transaction callbacks, so the payload is never stored after its
    // entry; a save that loses the race removes it.
    // The posture record and webhook deliveries (src/store/lmdb/posture.ts) join the index entry's transaction.
    const indexed = this.store.root.transaction(() => {
      if (idempotency) {
        const existing = this.store.idempotency.get([idempotency.account, idempotency.key]);
        if (existing && Date.parse(existing.expires_at) > Date.parse(idempotency.created_at)) {
          outcome = { stored: false, existing };
          this.store.analyses.remove(entry.id);
          this.store.analysisExpiry.remove(expiryKey);
          return;
        }
        if (existing) this.store.idempotencyExpiry.remove([Date.parse(existing.expires_at), existing.account, existing.key]);
        this.store.idempotency.put([idempotency.account, idempotency.key], idempotency);
        this.store.idempotencyExpiry.put([Date.parse(idempotency.expires_at), idempotency.account, idempotency.key], true);
      }
      this.store.analysisIndex.put(entry.id, entry);
      this.store.accountAnalyses.put([entry.account, entry.created_at, entry.id], true);
      if (posture) deliveries = writePosture(this.store, entry, posture);
    });
    await Promise.all([payloadWritten, indexed]);
    return outcome.stored && posture ? { stored: true, deliveries } : outcome;
  }

  async get(id: string, account: string, now: Date): Promise<StoredAnalysis> {
    const entry = liveEntry(id.length <= MAX_ANALYSIS_ID_LENGTH ? this.store.analysisIndex.get(id) : undefined, id, account, now);
    const payload = this.store.analyses.getBinary(id);
    // A payload can only be missing after a sweep, which also marks the entry expired.
    if (!payload) throw new ApiError('GAP_EXPIRED', { id, expired_at: entry.expires_at });
    return { entry, payload: Buffer.from(payload) };
  }

  async list(account: string, query: AnalysisListQuery, now: Date): Promise<{ total: number; items: AnalysisIndexEntry[] }> {
    const items: AnalysisIndexEntry[] = [];
    let total = 0;
    let skipped = 0;
    const after = query.after;
    // Keys are [account, created_at, id] and the walk runs newest first: past the cursor means smaller (byte order, as PostgreSQL's COLLATE "C").
    const pastCursor = (key: [string, string, string]) => !after || key[1] < after.created_at || (key[1] === after.created_at && key[2] < after.id);
    const range = this.store.accountAnalyses.getRange({ start: [account, '\uffff'], end: [account, ''], reverse: true });
    for (const { key } of range) {
      const entry = this.store.analysisIndex.get(key[2]);
      if (!entry || entry.swept_at || Date.parse(entry.expires_at) <= now.getTime()) continue;
      if (query.framework && !entry.frameworks.includes(query.framework)) continue;
      if (query.status && entry.status !== query.status) continue;
      total += 1;
      if (!pastCursor(key) || items.length >= query.limit) continue;
      if (skipped < query.offset) skipped += 1;
      else items.push(entry);
    }
    return { total, items };
  }

  async idempotencyRecord(account: string, key: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const record = this.store.idempotency.get([account, key]);
    return record && Date.parse(record.expires_at) > now.getTime() ? record : undefined;
  }

  async sweep(now: Date): Promise<number> {
    const due: Array<[number, string]> = [];
    for (const { key } of this.store.analysisExpiry.getRange({ start: [0, ''], end: [now.getTime(), '\uffff'] })) due.push(key);
    const dueKeys: Array<[number, string, string]> = [];
    for (const { key } of this.store.idempotencyExpiry.getRange({ start: [0, '', ''], end: [now.getTime(), '\uffff', '\uffff'] })) dueKeys.push(key);
    if (!due.length && !dueKeys.length) return 0;
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
      for (const key of dueKeys) {
        this.store.idempotencyExpiry.remove(key);
        const record = this.store.idempotency.get([key[1], key[2]]);
        // A key reused after expiry has a newer record: leave it.
        if (record && Date.parse(record.expires_at) === key[0]) this.store.idempotency.remove([key[1], key[2]]);
      }
    });
    return due.length;
  }
}
