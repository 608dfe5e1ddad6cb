import type { Logger } from '../../log.js';
import type { Stores } from '../types.js';
import { PostgresAccountDirectory } from './accounts.js';
import { PostgresAnalysisStore } from './analyses.js';
import { PostgresCustomFrameworkStore } from './custom-frameworks.js';
import { connect } from './connection.js';
import { migrate } from './migrations.js';

/** Connects, applies the missing migrations and, for the service, loads the key replica. */
export async function openPostgresStores(url: string, options: { now: () => Date; authenticates: boolean; log?: Logger }): Promise<Stores> {
  const sql = connect(url);
  try {
    const applied = await migrate(sql);
    if (applied.length) options.log?.info({ versions: applied }, 'database migrations applied');
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
      accounts,
      analyses: new PostgresAnalysisStore(sql),
      customFrameworks: new PostgresCustomFrameworkStore(sql),
      async close() {
        await accounts.stop();
        await sql.end({ timeout: 5 });
      },
    };
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
}
