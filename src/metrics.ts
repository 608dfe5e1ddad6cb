import { Counter, Gauge, Histogram, Registry as MetricsRegistry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus metrics (GET /metrics, docs/operations.md). One registry per service,
 * not prom-client's global one, so that several services in one process (the tests) keep their
 * counts apart. Label values come from bounded sets only: the declared route path (never the raw
 * URL), the method, the status, the task name.
 */
export interface ServiceMetrics {
  readonly registry: MetricsRegistry;
  /** A request answered (or abandoned by its client: status 499). */
  requestAnswered(method: string, route: string, status: number, seconds: number): void;
  rateLimitRefused(scope: 'account' | 'address'): void;
  taskDone(task: string, outcome: 'ok' | 'failed' | 'timeout', seconds: number): void;
  analysisStored(): void;
  analysesSwept(count: number): void;
}

/** Latency buckets (seconds) from a cached registry read (well under 1 ms) to a 10,000-finding analysis. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const TASK_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Methods outside this set share one label value, so a client cannot grow the label set. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function createMetrics(facts: { registryVersion: string; contentHash: string; queueDepth: () => number }): ServiceMetrics {
  const registry = new MetricsRegistry();
  collectDefaultMetrics({ register: registry, prefix: 'csr_' });
  const requests = new Counter({ name: 'csr_http_requests_total', help: 'Requests answered, by method, declared route and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const durations = new Histogram({
    name: 'csr_http_request_duration_seconds',
    help: 'Time from the request line to the last byte of the answer handed to the socket',
    labelNames: ['method', 'route', 'status'],
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter({ name: 'csr_rate_limit_refusals_total', help: 'Requests refused with 429, by whose limit (account key or client address)', labelNames: ['scope'], registers: [registry] });
  const tasks = new Histogram({ name: 'csr_pool_task_duration_seconds', help: 'Worker pool tasks from submission to answer, by task and outcome', labelNames: ['task', 'outcome'], buckets: TASK_BUCKETS, registers: [registry] });
  new Gauge({
    name: 'csr_pool_queue_depth',
    help: 'Tasks waiting for a worker thread',
    registers: [registry],
    collect() {
      this.set(facts.queueDepth());
    },
  });
  const stored = new Counter({ name: 'csr_analyses_stored_total', help: 'Gap analyses stored since start (create and scanner import)', registers: [registry] });
  const swept = new Counter({ name: 'csr_analyses_swept_total', help: 'Expired analyses whose results the sweeper removed since start', registers: [registry] });
  new Gauge({ name: 'csr_registry_info', help: 'The compiled registry this node serves (value 1)', labelNames: ['version', 'content_hash'], registers: [registry] })
    .labels(facts.registryVersion, facts.contentHash)
    .set(1);
  return {
    registry,
    requestAnswered(method, route, status, seconds) {
      const labels = { method: METHODS.has(method) ? method : 'OTHER', route, status: String(status) };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
    rateLimitRefused(scope) {
      refusals.inc({ scope });
    },
    taskDone(task, outcome, seconds) {
      tasks.observe({ task, outcome }, seconds);
    },
    analysisStored() {
      stored.inc();
    },
    analysesSwept(count) {
      if (count > 0) swept.inc(count);
    },
  };
}
