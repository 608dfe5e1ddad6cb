import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { AccountStore } from './store/accounts.js';
import type { AnalysisStore } from './store/analyses.js';
import type { Registry } from './registry/registry.js';
import type { TaskPool } from './pool.js';

/** Everything a handler may use, built once at start-up by server.ts. */
export interface Services {
  config: Config;
  log: Logger;
  accounts: AccountStore;
  analyses: AnalysisStore;
  registry: Registry;
  pool: TaskPool;
  now(): Date;
}
