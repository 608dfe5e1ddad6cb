import type { Logger } from '../log.js';
import { openDataStore } from './lmdb/database.js';
import { LmdbAccountDirectory } from './lmdb/accounts.js';
import { LmdbAnalysisStore } from './lmdb/analyses.js';
import { LmdbCustomFrameworkStore } from './lmdb/custom-frameworks.js';
import { LmdbPostureStore } from './lmdb/posture.js';
import { LmdbWebhookStore } from './lmdb/webhooks.js';
import type { Stores } from './types.js';

export interface StoreOptions {
  /** LMDB's directory (the default store). */
  dataDir: string;
  /** When set, PostgreSQL holds accounts, keys and analyses instead of LMDB. */
  databaseUrl?: string;
  now?: () => Date;
  /** Keep a replica of the key directory for synchronous authentication (the service does; the CLI does not). */
  authenticates?: boolean;
  log?: Logger;
  /** PostgreSQL: the deadline of one store call, in ms (STORE_TIMEOUT_MS). */
  timeoutMs?: number;
  /** PostgreSQL: store calls one account may run at once on this node (STORE_ACCOUNT_CONCURRENCY; 0: half the pool). */
  accountConcurrency?: number;
}

/** Opens the configured backend: LMDB under DATA_DIR unless DATABASE_URL names a PostgreSQL database. */
export async function openStores(options: StoreOptions): Promise<Stores> {
  const now = options.now ?? (() => new Date());
  if (options.databaseUrl) {
    // Loaded only when asked for, so the embedded default never pays for the driver.
    const { openPostgresStores } = await import('./postgres/open.js');
    return openPostgresStores(options.databaseUrl, {
      now,
      authenticates: options.authenticates ?? false,
      log: options.log,
      timeoutMs: options.timeoutMs,
      accountConcurrency: options.accountConcurrency,
    });
  }
  const data = openDataStore(options.dataDir);
  return {
    kind: 'lmdb',
    health: () => ({ kind: 'lmdb', available: true }),
    accounts: new LmdbAccountDirectory(data, now),
    analyses: new LmdbAnalysisStore(data),
    customFrameworks: new LmdbCustomFrameworkStore(data),
    posture: new LmdbPostureStore(data),
    webhooks: new LmdbWebhookStore(data),
    close: () => data.close(),
  };
}
