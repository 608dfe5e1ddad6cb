import type { Config } from './config.js';
import type { PostureStore } from './store/posture.js';
import type { WebhookStore } from './store/webhooks.js';
import type { Logger } from './log.js';
import type { AccountDirectory, AnalysisStore, CustomFrameworkStore, StoreHealth } from './store/types.js';
import type { Registry } from './registry/registry.js';
import type { TaskPool } from './pool.js';
import type { ServiceMetrics } from './metrics.js';

/** Everything a handler may use, built once at start-up by server.ts. */
export interface Services {
  config: Config;
  log: Logger;
  accounts: AccountDirectory;
  analyses: AnalysisStore;
  /** Enterprise accounts' own frameworks (docs/custom-frameworks.md). */
  customFrameworks: CustomFrameworkStore;
  /** Scopes' posture histories (docs/posture.md). */
  posture: PostureStore;
  /** Webhooks and their outbox (docs/webhooks.md). */
  webhooks: WebhookStore;
  /** Tells this node's delivery worker that a commit wrote deliveries (a no-op where WEBHOOK_DELIVERY is off). */
  deliverWebhooks(): void;
  registry: Registry;
  pool: TaskPool;
  metrics: ServiceMetrics;
  /** Whether the data store answers within its deadline (for /readyz). */
  storeHealth(): StoreHealth;
  /** Where rate limits are counted, and how often Redis failed to answer (for /readyz). */
  rateLimits(): { store: 'memory' | 'redis'; shared: boolean; fallbacks: number };
  now(): Date;
}
