import { accessSync, chmodSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import type { AccountRecord, AnalysisIndexEntry, ApiKeyRecord, IdempotencyRecord } from '../types.js';
import type { CustomControl, CustomFrameworkSummary } from '../../custom-frameworks/model.js';
import type { AssessedControls } from '../../gap/posture-facts.js';
import type { PostureRecord } from '../posture.js';
import type { DeliveryRecord, WebhookRecord } from '../webhooks.js';

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
  /** `generation`: counts revocations and tier changes, so every process can tell its verified keys are stale. */
  directory: Database<number, string>;
  /** Custom frameworks by [account, code]: the summary, and the controls apart (listing reads no controls). */
  customFrameworks: Database<CustomFrameworkSummary, [string, string]>;
  customFrameworkControls: Database<CustomControl[], [string, string]>;
  /** Posture records by [account, scope, created_at, id]: a scope's history is one range (docs/posture.md). */
  scopeAnalyses: Database<PostureRecord, [string, string, string, string]>;
  /** [expiresAt, account, scope, created_at, id]: the posture sweep's range scan. */
  postureExpiry: Database<true, [number, string, string, string, string]>;
  /** A scoped analysis's assessed controls by framework, by analysis id: what regression events compare. */
  analysisControls: Database<Record<string, AssessedControls>, string>;
  /** Webhooks by [account, id]. */
  webhooks: Database<WebhookRecord, [string, string]>;
  /** Deliveries by [account, webhook id, delivery id] (delivery ids sort by creation time). */
  webhookDeliveries: Database<DeliveryRecord, [string, string, string]>;
  /** [due time, delivery id] → the delivery's key: the outbox the dispatcher scans. */
  webhookDue: Database<[string, string, string], [number, string]>;
  close(): Promise<void>;
}

/** The store holds key hashes and customers' findings: only the service's own user may read it. */
export const DATA_FILE_MODE = 0o600;
export const DATA_DIR_MODE = 0o700;
const DATA_FILES = ['csr.lmdb', 'csr.lmdb-lock'];

/** A data directory that cannot be used; the message names the directory and what is wrong with it. */
export class DataDirError extends Error {
  constructor(
    readonly dataDir: string,
    problem: string,
  ) {
    super(`data directory ${dataDir} (DATA_DIR) ${problem}`);
  }
}

/** Creates the directory if needed and checks this process may write there, before LMDB tries to. */
function prepareDataDir(dataDir: string): void {
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) throw new DataDirError(dataDir, 'is not a directory');
  try {
    // The mode applies only when the directory is created here: an operator's own directory keeps
    // its mode, as it may be a mount point shared on purpose (docs/architecture.md).
    mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  } catch (error) {
    throw new DataDirError(dataDir, `cannot be created: ${(error as Error).message}`);
  }
  try {
    accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    throw new DataDirError(
      dataDir,
      `is not writable by this user (uid ${process.getuid?.() ?? 'unknown'}): give it to the service's user or choose another DATA_DIR`,
    );
  }
}

export function openDataStore(dataDir: string): DataStore {
  prepareDataDir(dataDir);
  // Files an earlier version created 0644 are narrowed; new ones are created 0600 by LMDB itself
  // (lmdb-js passes permissionsMode to mdb_env_open, default 0664, both less the umask).
  for (const name of DATA_FILES) {
    const file = join(dataDir, name);
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, DATA_FILE_MODE);
  }
  const path = join(dataDir, DATA_FILES[0]);
  // permissionsMode is read by lmdb-js's native open but missing from its type declarations.
  const options = { path, maxDbs: 32, compression: false, permissionsMode: DATA_FILE_MODE };
  let root: RootDatabase;
  try {
    root = open(options as RootDatabaseOptionsWithPath);
  } catch (error) {
    throw new DataDirError(dataDir, `cannot hold the store ${path}: ${(error as Error).message}`);
  }
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
    directory: root.openDB<number, string>({ name: 'directory' }),
    customFrameworks: root.openDB<CustomFrameworkSummary, [string, string]>({ name: 'custom-frameworks', keyEncoding: 'ordered-binary' }),
    customFrameworkControls: root.openDB<CustomControl[], [string, string]>({ name: 'custom-framework-controls', keyEncoding: 'ordered-binary' }),
    scopeAnalyses: root.openDB<PostureRecord, [string, string, string, string]>({ name: 'scope-analyses', keyEncoding: 'ordered-binary' }),
    postureExpiry: root.openDB<true, [number, string, string, string, string]>({ name: 'posture-expiry', keyEncoding: 'ordered-binary' }),
    analysisControls: root.openDB<Record<string, AssessedControls>, string>({ name: 'analysis-controls' }),
    webhooks: root.openDB<WebhookRecord, [string, string]>({ name: 'webhooks', keyEncoding: 'ordered-binary' }),
    webhookDeliveries: root.openDB<DeliveryRecord, [string, string, string]>({ name: 'webhook-deliveries', keyEncoding: 'ordered-binary' }),
    webhookDue: root.openDB<[string, string, string], [number, string]>({ name: 'webhook-due', keyEncoding: 'ordered-binary' }),
    close: () => root.close(),
  };
}
