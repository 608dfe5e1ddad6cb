import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';

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
  close(): Promise<void>;
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
  /** Set when the sweeper has removed the payload: the entry stays as a tombstone for 410s. */
  swept_at?: string;
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
    close: () => root.close(),
  };
}
