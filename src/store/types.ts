import type { Tier } from '../tiers.js';
import type { CustomFrameworkSummary, StoredCustomFramework } from '../custom-frameworks/model.js';
import type { AnalysisPostureWrite, PostureStore } from './posture.js';
import type { WebhookStore } from './webhooks.js';

/**
 * The store interfaces. Two implementations hold the same data with the same behaviour:
 * src/store/lmdb/ (embedded, the default) and src/store/postgres/ (DATABASE_URL, for several
 * nodes). test/store/contract.test.ts runs one suite against both.
 */

export interface Account {
  name: string;
  tier: Tier;
}

export interface AccountRecord {
  name: string;
  tier: string;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyRecord {
  id: string;
  account: string;
  /** SHA-256 of the secret part; the key itself is never stored. */
  secret_sha256: string;
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedKey {
  key: string;
  record: ApiKeyRecord;
  accountCreated: boolean;
}

/** Accounts and API keys (hashes only). */
export interface AccountDirectory {
  /**
   * Resolves a presented key to its account, or undefined when it is malformed, unknown or
   * revoked. Synchronous, because it runs on every request before any byte of the body is read:
   * LMDB reads its environment (and trusts a verified key for half a second), PostgreSQL answers
   * from a per-process replica kept fresh within a second (src/store/postgres/accounts.ts).
   */
  authenticate(presented: string): Account | undefined;
  createKey(accountName: string, tier?: Tier): Promise<CreatedKey>;
  listKeys(accountName?: string): Promise<ApiKeyRecord[]>;
  /** Accepts the key id or the whole key. Returns the revoked record, or undefined when unknown. */
  revokeKey(idOrKey: string): Promise<ApiKeyRecord | undefined>;
  setTier(accountName: string, tier: Tier): Promise<AccountRecord | undefined>;
  listAccounts(): Promise<AccountRecord[]>;
}

/** Small per-analysis record kept apart from the payload so that listing and expiry stay cheap. */
export interface AnalysisIndexEntry {
  id: string;
  account: string;
  created_at: string;
  expires_at: string;
  frameworks: string[];
  posture_status: string;
  posture_score: number | null;
  critical_gaps: number;
  high_gaps: number;
  status: 'completed';
  /**
   * Where each member of the payload's `data` lies (src/gap/variant.ts), for answering one spec
   * variant without parsing. Absent on analyses stored before it was kept (2026-11-25).
   */
  data_members?: number[];
  /** The account's own frameworks the analysis assessed and the revision of each (docs/custom-frameworks.md); absent when none. */
  custom_frameworks?: Array<{ code: string; revision: number }>;
  /** Set when the sweeper has removed the payload: the entry stays as a tombstone for 410s. */
  swept_at?: string;
}

export interface StoredAnalysis {
  entry: AnalysisIndexEntry;
  /**
   * The create response in its stored form (src/store/result-codec.ts: compressed, or as sent for
   * analyses stored before 2026-11-27); `readAnalysis` gives it back as sent.
   */
  payload: Buffer;
}

export interface AnalysisListQuery {
  framework?: string;
  status?: string;
  /** Rows to skip before the page (after `after`, when given). */
  offset: number;
  limit: number;
  /** Keyset: start after this analysis in list order (newest first, ties by id in byte order), the last of the previous page. */
  after?: { created_at: string; id: string };
}

/**
 * What a request with an Idempotency-Key leaves behind, written in the same transaction as the
 * analysis it created, so that a crash can never separate the two (docs/api.md, Idempotency).
 */
export interface IdempotencyRecord {
  account: string;
  key: string;
  /** Which operation used the key ("POST /v1/gap-analysis"): a key is one request, not one per route. */
  operation: string;
  /** SHA-256 over the operation and the exact body bytes. */
  fingerprint: string;
  /** The analysis the request stored; its payload is the response body a replay sends. */
  analysis_id: string;
  status: number;
  created_at: string;
  expires_at: string;
}

/**
 * The outcome of a save: stored (with the number of webhook deliveries its commit wrote), or
 * another request with the same key got there first.
 */
export type SaveOutcome = { stored: true; deliveries?: number } | { stored: false; existing: IdempotencyRecord };

/** Stored analyses with tier retention, their expiry index, tombstones and idempotency records. */
export interface AnalysisStore {
  /**
   * Stores an analysis; with `idempotency`, also its record, atomically. When a live record with
   * that key already exists for the account, nothing is stored and the existing record returns.
   * With `posture`, its posture record and webhook deliveries go in the same commit (src/store/posture.ts).
   */
  save(entry: AnalysisIndexEntry, payload: Buffer, idempotency?: IdempotencyRecord, posture?: AnalysisPostureWrite): Promise<SaveOutcome>;
  /** The caller's analysis, or GAP_NOT_FOUND (unknown or another account's) / GAP_EXPIRED. */
  get(id: string, account: string, now: Date): Promise<StoredAnalysis>;
  /** The caller's live analyses, newest first. */
  list(account: string, query: AnalysisListQuery, now: Date): Promise<{ total: number; items: AnalysisIndexEntry[] }>;
  /** The account's live record for an idempotency key, if any. */
  idempotencyRecord(account: string, key: string, now: Date): Promise<IdempotencyRecord | undefined>;
  /**
   * Removes the payloads of every analysis expired by `now` (leaving tombstones) and the expired
   * idempotency records. Returns the number of analyses swept (0 when another node holds the sweep).
   */
  sweep(now: Date): Promise<number>;
}

export type CreateFrameworkOutcome = { created: true } | { created: false; reason: 'exists' } | { created: false; reason: 'limit'; count: number };

/**
 * An account's own frameworks (Enterprise, docs/custom-frameworks.md), keyed by account and code.
 * Every call reads or writes the store itself, so in cluster mode a framework created on one node
 * is there for the next request on any node.
 */
export interface CustomFrameworkStore {
  /** The account's frameworks without their controls, by code. */
  list(account: string): Promise<CustomFrameworkSummary[]>;
  get(account: string, code: string): Promise<StoredCustomFramework | undefined>;
  /** Stores a new framework unless the code is taken or the account already holds `limit` of them, atomically. */
  create(framework: StoredCustomFramework, limit: number): Promise<CreateFrameworkOutcome>;
  /**
   * Stores a new version of an existing framework (revision one more, the version appended to its
   * history, created_at kept), atomically; undefined when the account has no such framework.
   */
  replace(framework: StoredCustomFramework): Promise<StoredCustomFramework | undefined>;
  /** The removed framework's summary, or undefined when there was none. */
  delete(account: string, code: string): Promise<CustomFrameworkSummary | undefined>;
}

/** Whether the store answers within its deadline (/readyz, docs/cluster.md). LMDB, in this process, always does. */
export interface StoreHealth {
  kind: 'lmdb' | 'postgres';
  available: boolean;
  /** When `available` last changed (PostgreSQL). */
  since?: string;
  /** The deadline of one store call (PostgreSQL, STORE_TIMEOUT_MS). */
  timeout_ms?: number;
  /** Calls answered 503 store_unavailable since start, by reason (PostgreSQL). */
  refused?: { timeout: number; unreachable: number; account_busy: number };
}

/** Both stores of one backend, opened together and closed together. */
export interface Stores {
  kind: 'lmdb' | 'postgres';
  health(): StoreHealth;
  accounts: AccountDirectory;
  analyses: AnalysisStore;
  customFrameworks: CustomFrameworkStore;
  /** Scopes' posture histories (docs/posture.md). */
  posture: PostureStore;
  /** Webhooks and their delivery outbox (docs/webhooks.md). */
  webhooks: WebhookStore;
  close(): Promise<void>;
}
