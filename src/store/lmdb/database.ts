import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { AccountRecord, AnalysisIndexEntry, ApiKeyRecord, IdempotencyRecord } from '../types.js';

export type { AccountRecord, AnalysisIndexEntry, ApiKeyRecord } from '../types.js';

/**
 * The service's own LMDB environment under DATA_DIR: accounts, API keys and stored analyses.
 * Several processes may open it at once (the server and the csr CLI); LMDB serialises writers
 * and readers see each commit on their next read.
 */
export interface DataStore {
  root: RootDatabase;
  accounts: Database<AccountRecord, string>;
  apiKeys: Database<ApiKeyRecord, string>;
  analyses: Database<Uint8Array, string>;
  analysisIndex: Database<AnalysisIndexEntry, string>;
  analysisExpiry: Database<true, [number, string]>;
  accountAnalyses: Database<true, [string, string, string]>;
  /** Idempotency records by [account, key]. */
  idempotency: Database<IdempotencyRecord, [string, string]>;
  /** [expiresAt, account, key]: the sweeper's range scan over idempotency records. */
  idempotencyExpiry: Database<true, [number, string, string]>;
  close(): Promise<void>;
}

export function openDataStore(dataDir: string): DataStore {
  mkdirSync(dataDir, { recursive: true });
  const root = open({ path: join(dataDir, 'csr.lmdb'), maxDbs: 16, compression: false });
  return {
    root,
    accounts: root.openDB<AccountRecord, string>({ name: 'accounts' }),
    apiKeys: root.openDB<ApiKeyRecord, string>({ name: 'api-keys' }),
    analyses: root.openDB<Uint8Array, string>({ name: 'analyses', encoding: 'binary' }),
    analysisIndex: root.openDB<AnalysisIndexEntry, string>({ name: 'analysis-index' }),
    analysisExpiry: root.openDB<true, [number, string]>({ name: 'analysis-expiry', keyEncoding: 'ordered-binary' }),
    accountAnalyses: root.openDB<true, [string, string, string]>({ name: 'account-analyses', keyEncoding: 'ordered-binary' }),
    idempotency: root.openDB<IdempotencyRecord, [string, string]>({ name: 'idempotency', keyEncoding: 'ordered-binary' }),
    idempotencyExpiry: root.openDB<true, [number, string, string]>({ name: 'idempotency-expiry', keyEncoding: 'ordered-binary' }),
    close: () => root.close(),
  };
}
