import { Gauge, type Registry as MetricsRegistry } from 'prom-client';
import type { StoreHealth } from './store/types.js';

/** What /readyz also reports of the node's dependencies, read when scraped (nothing on the request path). */
export interface DependencyState {
  store(): StoreHealth;
  rateLimits(): { store: 'memory' | 'redis'; shared: boolean; fallbacks: number };
}

/**
 * The state of PostgreSQL and Redis as this node sees them (docs/operations.md, Metrics): whether
 * each answers, how many requests the store refused and why, and how many requests were counted
 * on this node alone while the Redis breaker was open. Totals are read from the store guard and
 * the limiter, which count them anyway, so they are gauges named as totals.
 */
export function registerDependencyMetrics(registry: MetricsRegistry, state: DependencyState): void {
  new Gauge({
    name: 'csr_store_available',
    help: 'Whether the data store answers within its deadline (1) or calls are refused with 503 store_unavailable (0); LMDB is always 1',
    registers: [registry],
    collect() {
      this.set(state.store().available ? 1 : 0);
    },
  });
  new Gauge({
    name: 'csr_store_refusals_total',
    help: 'Store calls answered 503 store_unavailable since start, by reason (timeout, unreachable, account_busy)',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      for (const [reason, count] of Object.entries(state.store().refused ?? {})) this.set({ reason }, count);
    },
  });
  new Gauge({
    name: 'csr_rate_limit_shared',
    help: 'With REDIS_URL: 1 while rate limits are counted in Redis, 0 while its circuit breaker is open and this node counts alone (0 without Redis)',
    registers: [registry],
    collect() {
      this.set(state.rateLimits().shared ? 1 : 0);
    },
  });
  new Gauge({
    name: 'csr_rate_limit_fallbacks_total',
    help: 'Requests counted on this node alone because Redis did not answer (or its breaker was open), since start',
    registers: [registry],
    collect() {
      this.set(state.rateLimits().fallbacks);
    },
  });
}
