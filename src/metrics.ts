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
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const OTHER_METHOD = METHODS.length;
const METHOD_INDEX = new Map(METHODS.map((method, index) => [method, index]));

/** One method, route and status: its count, the sum of its durations and its bucket counts (not cumulative). */
interface AnswerSeries {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  buckets: Float64Array;
}

/** What prom-client's registry reads of a metric it did not make (its `get`, as its own metrics answer). */
interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: { labels: Record<string, string | number>; value: number; metricName?: string }[];
  }>;
  reset(): void;
}

/**
 * The requests counter and the latency histogram, kept together. prom-client hashes the labels
 * into a string on every observation of each metric, a noticeable share of serving a cached
 * registry read (docs/benchmarks.md). Here a series is
 * found through maps keyed by the declared route (a constant string, its hash kept) and the status
 * (a number), and put in Prometheus form only when scraped.
 */
class AnsweredRequests {
  private readonly byRoute = new Map<string, Map<number, (AnswerSeries | undefined)[]>>();
  private readonly all: AnswerSeries[] = [];

  observe(method: string, route: string, status: number, seconds: number): void {
    let byStatus = this.byRoute.get(route);
    if (!byStatus) {
      byStatus = new Map();
      this.byRoute.set(route, byStatus);
    }
    let byMethod = byStatus.get(status);
    if (!byMethod) {
      byMethod = new Array<AnswerSeries | undefined>(METHODS.length + 1).fill(undefined);
      byStatus.set(status, byMethod);
    }
    const methodIndex = METHOD_INDEX.get(method) ?? OTHER_METHOD;
    let series = byMethod[methodIndex];
    if (!series) {
      const labels = { method: METHODS[methodIndex] ?? 'OTHER', route, status: String(status) };
      series = { labels, count: 0, sum: 0, buckets: new Float64Array(REQUEST_BUCKETS.length + 1) };
      byMethod[methodIndex] = series;
      this.all.push(series);
    }
    series.count += 1;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[bucket]) bucket += 1;
    series.buckets[bucket] += 1;
  }

  counter(): CollectedMetric {
    const name = 'csr_http_requests_total';
    const help = 'Requests answered, by method, declared route and status';
    return this.metric(name, help, 'counter', () => this.all.map((series) => ({ labels: series.labels, value: series.count })));
  }

  histogram(): CollectedMetric {
    const name = 'csr_http_request_duration_seconds';
    const help = 'Time from the request line to the last byte of the answer handed to the socket';
    return this.metric(name, help, 'histogram', () =>
      this.all.flatMap((series) => {
        let cumulative = 0;
        const buckets = REQUEST_BUCKETS.map((bound, index) => {
          cumulative += series.buckets[index];
          return { labels: Object.assign({ le: bound }, series.labels), value: cumulative, metricName: `${name}_bucket` };
        });
        return [
          ...buckets,
          { labels: Object.assign({ le: '+Inf' }, series.labels), value: series.count, metricName: `${name}_bucket` },
          { labels: series.labels, value: series.sum, metricName: `${name}_sum` },
          { labels: series.labels, value: series.count, metricName: `${name}_count` },
        ];
      }),
    );
  }

  private metric(
    name: string,
    help: string,
    type: CollectedMetric['type'],
    values: () => { labels: Record<string, string | number>; value: number; metricName?: string }[],
  ): CollectedMetric {
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => {
        this.byRoute.clear();
        this.all.length = 0;
      },
    };
  }
}

export function createMetrics(facts: { registryVersion: string; contentHash: string; queueDepth: () => number }): ServiceMetrics {
  const registry = new MetricsRegistry();
  collectDefaultMetrics({ register: registry, prefix: 'csr_' });
  const answers = new AnsweredRequests();
  registry.registerMetric(answers.counter() as unknown as Counter);
  registry.registerMetric(answers.histogram() as unknown as Histogram);
  const refusals = new Counter({
    name: 'csr_rate_limit_refusals_total',
    help: 'Requests refused with 429, by whose limit (account key or client address)',
    labelNames: ['scope'],
    registers: [registry],
  });
  const tasks = new Histogram({
    name: 'csr_pool_task_duration_seconds',
    help: 'Worker pool tasks from submission to answer, by task and outcome',
    labelNames: ['task', 'outcome'],
    buckets: TASK_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: 'csr_pool_queue_depth',
    help: 'Tasks waiting for a worker thread',
    registers: [registry],
    collect() {
      this.set(facts.queueDepth());
    },
  });
  const stored = new Counter({ name: 'csr_analyses_stored_total', help: 'Gap analyses stored since start (create and scanner import)', registers: [registry] });
  const swept = new Counter({
    name: 'csr_analyses_swept_total',
    help: 'Expired analyses whose results the sweeper removed since start',
    registers: [registry],
  });
  new Gauge({
    name: 'csr_registry_info',
    help: 'The compiled registry this node serves (value 1)',
    labelNames: ['version', 'content_hash'],
    registers: [registry],
  })
    .labels(facts.registryVersion, facts.contentHash)
    .set(1);
  return {
    registry,
    requestAnswered(method, route, status, seconds) {
      answers.observe(method, route, status, seconds);
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
