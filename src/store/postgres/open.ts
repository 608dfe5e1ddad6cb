import type { Logger } from '../../log.js';
import type { AnalysisStore, Stores } from '../types.js';
import { PostgresAccountDirectory } from './accounts.js';
import { PostgresAnalysisStore } from './analyses.js';
import { PostgresCustomFrameworkStore } from './custom-frameworks.js';
import { PostgresPostureStore } from './posture.js';
import { PostgresWebhookStore } from './webhooks.js';
import { connectionSettings, connectWith } from './connection.js';
import { firstAccount, guarded, StoreGuard } from './guard.js';
import { migrate } from './migrations.js';

export interface PostgresStoreOptions {
  now: () => Date;
  authenticates: boolean;
  log?: Logger;
  /** The deadline of one store call (STORE_TIMEOUT_MS, default 1,500 ms). */
  timeoutMs?: number;
  /** Store calls one account may run at once on this node (STORE_ACCOUNT_CONCURRENCY; default half the pool). */
  accountConcurrency?: number;
}

/** The sweep runs in the background and may remove many payloads: its own deadline, not a client's. */
export const SWEEP_TIMEOUT_MS = 300_000;

/** Connects, applies the missing migrations and, for the service, loads the key replica. */
export async function openPostgresStores(url: string, options: PostgresStoreOptions): Promise<Stores> {
  const timeoutMs = options.timeoutMs ?? 1500;
  const settings = connectionSettings(url, { statementTimeoutMs: timeoutMs });
  const sql = connectWith(settings);
  const guard = new StoreGuard({
    timeoutMs,
    accountConcurrency: options.accountConcurrency || Math.max(1, Math.floor(settings.max / 2)),
    probe: () => sql`SELECT 1`,
    onChange: (available, error) =>
      available
        ? options.log?.info('PostgreSQL answers again')
        : options.log?.warn(
            { err: error },
            `PostgreSQL does not answer within ${timeoutMs} ms: store calls are refused with 503 store_unavailable until it does`,
          ),
  });
  try {
    const applied = await migrate(sql, {
      onState: (schema) => {
        if (schema.newest > schema.known)
          options.log?.warn(
            schema,
            `the database schema is at version ${schema.newest}, newer than this release knows (${schema.known}); its newer steps are recorded as compatible with it`,
          );
      },
    });
    if (applied.length) options.log?.info({ versions: applied }, 'database migrations applied');
    options.log?.info({ pool: settings.max, statement_timeout: settings.statementTimeout, tls: settings.tls }, 'PostgreSQL store open');
    let lastFailure = 0;
    const accounts = new PostgresAccountDirectory(sql, options.now, (error) => {
      // The replica keeps answering from what it holds while the database is away: log once a minute, not every 250 ms.
      if (Date.now() - lastFailure < 60_000) return;
      lastFailure = Date.now();
      options.log?.warn({ err: error }, 'key directory refresh failed; answering from the last known state');
    });
    if (options.authenticates) await accounts.follow();
    return {
      kind: 'postgres',
      health: () => guard.health(),
      // Directory writes come from operators (the CLI), not from one account's requests: no turns counted.
      accounts: guarded(accounts, guard, { sync: ['authenticate', 'follow', 'stop', 'refresh'], accountOf: () => undefined }),
      analyses: guarded<AnalysisStore>(new PostgresAnalysisStore(sql), guard, {
        timeouts: { sweep: SWEEP_TIMEOUT_MS },
        accountOf: (method, args) => (method === 'get' ? (args[1] as string) : method === 'sweep' ? undefined : firstAccount(method, args)),
      }),
      customFrameworks: guarded(new PostgresCustomFrameworkStore(sql), guard),
      posture: guarded(new PostgresPostureStore(sql), guard, { timeouts: { sweep: SWEEP_TIMEOUT_MS } }),
      webhooks: guarded(new PostgresWebhookStore(sql), guard, { timeouts: { sweep: SWEEP_TIMEOUT_MS } }),
      async close() {
        guard.close();
        await accounts.stop();
        await sql.end({ timeout: 5 });
      },
    };
  } catch (error) {
    guard.close();
    await sql.end({ timeout: 1 });
    // Where and how it tried (never the password): a TLS refusal alone does not say which database.
    const where = new URL(settings.url);
    throw new Error(`PostgreSQL at ${where.host}${where.pathname} (DATABASE_URL, sslmode=${settings.tls.mode}): ${(error as Error).message}`, { cause: error });
  }
}
