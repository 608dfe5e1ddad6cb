import { fileURLToPath } from 'node:url';
import { loadConfig, ConfigError, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { openStores } from './store/open.js';
import { startSweeper } from './store/analyses.js';
import type { RedisRateLimiter } from './limits/redis.js';
import { createTaskPool } from './pool.js';
import { createMetrics, type ServiceMetrics } from './metrics.js';
import { registerDependencyMetrics } from './dependency-metrics.js';
import { Registry } from './registry/registry.js';
import { gapIndexOf } from './gap/gap-index.js';
import { warmCoveragePlans } from './gap/coverage-plan.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { Pipeline } from './http/pipeline.js';
import { routes } from './api/routes.js';
import { startHttpServer } from './http/uws.js';
import type { Services } from './services.js';

/** How much of a receiver's answer is read: its status is what counts. */
const WEBHOOK_ANSWER_BYTES = 64 * 1024;
/** How often the outbox is looked at for retries and other nodes' commits. */
const WEBHOOK_POLL_MS = 1000;
const DELIVERY_RECORD_DAYS = 30;

export interface RunningService {
  port: number;
  services: Services;
  pipeline: Pipeline;
  /** Stops accepting, finishes in-flight requests, then closes the pool and the stores. */
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  now?: () => Date;
}

/**
 * Start-up order: config → stores → registry → pool → http. A stage that fails closes what the
 * stages before it opened, and its message names the variable (and so the path or port) at fault.
 */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const log = options.log ?? createLogger(config.logLevel);
  const now = options.now ?? (() => new Date());
  const opened: Array<() => unknown> = [];
  const unwind = async () => {
    for (const close of opened.reverse()) await Promise.resolve(close()).catch(() => undefined);
  };
  try {
    return await startStages(config, log, now, opened);
  } catch (error) {
    await unwind();
    throw error;
  }
}

async function startStages(config: Config, log: Logger, now: () => Date, opened: Array<() => unknown>): Promise<RunningService> {
  const stores = await openStores({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    now,
    authenticates: true,
    log,
    timeoutMs: config.storeTimeoutMs,
    accountConcurrency: config.storeAccountConcurrency,
  });
  opened.push(() => stores.close());
  // The worker threads load their modules, registry and gap index on the other cores while this
  // thread does the same for itself: started first, they are seldom what start-up waits for.
  // Metrics need the registry's version, opened below; tasks cannot end before then.
  let metrics: ServiceMetrics | undefined;
  const pool = createTaskPool({
    threads: config.workers,
    queueLimit: config.queueLimit,
    registryDir: config.registryDir,
    taskTimeoutMs: config.taskTimeoutMs,
    onTaskDone: (task, outcome, seconds) => metrics?.taskDone(task, outcome, seconds),
  });
  opened.push(() => pool.close());
  // 4,096 cache entries hold the hot records strongly (the rest weakly): about 20 MB less live heap
  // than the default once the gap index has read every record, so full GC pauses stay short.
  let registry: Registry;
  try {
    registry = Registry.open(config.registryDir, { cacheEntries: 4096 });
  } catch (error) {
    throw new Error(`REGISTRY_DIR: ${(error as Error).message}`);
  }
  opened.push(() => registry.close());
  // Small analyses run on this thread: build their in-memory index now rather than on the first request.
  gapIndexOf(registry);
  // And what their coverage plans read, in the first idle turn (src/gap/coverage-plan.ts).
  setImmediate(() => {
    try {
      warmCoveragePlans(registry);
    } catch (error) {
      log.warn({ err: error }, 'coverage plans not prepared ahead; the first analysis prepares them');
    }
  });
  const serviceMetrics = createMetrics({
    registryVersion: registry.manifest.registry_version,
    contentHash: registry.manifest.content_hash,
    queueDepth: () => pool.queueSize,
  });
  metrics = serviceMetrics;
  const { accounts, analyses, customFrameworks } = stores;
  // The delivery worker (docs/webhooks.md): on every node unless WEBHOOK_DELIVERY is off.
  const dispatcher = config.webhookDelivery
    ? new WebhookDispatcher(stores.webhooks, {
        concurrency: config.webhookConcurrency,
        perWebhook: Math.max(1, Math.ceil(config.webhookConcurrency / 4)),
        timeoutMs: config.webhookTimeoutMs,
        maxResponseBytes: WEBHOOK_ANSWER_BYTES,
        allowPrivate: config.webhookAllowPrivate,
        pollMs: WEBHOOK_POLL_MS,
        now,
        log,
      })
    : undefined;
  const limiters = await sharedLimiters(config, log, now);
  const services: Services = {
    config,
    log,
    accounts,
    analyses,
    customFrameworks,
    posture: stores.posture,
    webhooks: stores.webhooks,
    deliverWebhooks: () => dispatcher?.poke(),
    registry,
    pool,
    metrics: serviceMetrics,
    now,
    storeHealth: () => stores.health(),
    rateLimits: () =>
      limiters
        ? { store: 'redis', shared: limiters.accounts.shared, fallbacks: limiters.accounts.fallbacks }
        : { store: 'memory', shared: false, fallbacks: 0 },
  };
  registerDependencyMetrics(serviceMetrics.registry, { store: services.storeHealth, rateLimits: services.rateLimits });
  const stopSweeper = startSweeper(
    analyses,
    config.sweepIntervalMs,
    now,
    (error) => log.error({ err: error }, 'analysis sweep failed'),
    (count) => serviceMetrics.analysesSwept(count),
  );
  opened.push(stopSweeper);
  // Posture records live as long as their analyses (docs/posture.md).
  const stopPostureSweeper = startSweeper(stores.posture, config.sweepIntervalMs, now, (error) => log.error({ err: error }, 'posture sweep failed'));
  opened.push(stopPostureSweeper);
  // Delivery records live 30 days after their event (docs/webhooks.md).
  const stopDeliverySweeper = startSweeper(
    { sweep: (at) => stores.webhooks.sweep(new Date(at.getTime() - DELIVERY_RECORD_DAYS * 86_400_000)) },
    config.sweepIntervalMs,
    now,
    (error) => log.error({ err: error }, 'webhook delivery sweep failed'),
  );
  opened.push(stopDeliverySweeper);
  if (dispatcher) {
    dispatcher.start();
    opened.push(() => dispatcher.stop(0));
  }
  const pipeline = new Pipeline(routes, services, limiters);
  opened.push(() => pipeline.closeLimiters());
  const http = await startHttpServer(pipeline, config.host, config.port, log);
  const pruneTimer = setInterval(() => pipeline.pruneRateWindows(), 60_000);
  pruneTimer.unref();
  log.info(
    {
      port: http.port,
      host: config.host,
      store: stores.kind,
      dataDir: stores.kind === 'lmdb' ? config.dataDir : undefined,
      sharedRateLimits: !!config.redisUrl,
      registry: registry.manifest.registry_version,
    },
    'listening',
  );

  let stopping: Promise<void> | undefined;
  return {
    port: http.port,
    services,
    pipeline,
    stop() {
      stopping ??= (async () => {
        pipeline.shuttingDown = true;
        clearInterval(pruneTimer);
        stopSweeper();
        stopPostureSweeper();
        stopDeliverySweeper();
        await http.close(config.shutdownTimeoutMs);
        // Attempts under way may finish; those that do not stay due and are sent again (at least once).
        await dispatcher?.stop(config.shutdownTimeoutMs);
        await pool.close();
        await pipeline.closeLimiters();
        await registry.close();
        await stores.close();
        pipeline.flushAccessLog();
        log.info('stopped');
      })();
      return stopping;
    },
  };
}

/** With REDIS_URL, rate limits count in Redis for every node; without, in this process (undefined: the pipeline's default). */
async function sharedLimiters(config: Config, log: Logger, now: () => Date): Promise<{ accounts: RedisRateLimiter; addresses: RedisRateLimiter } | undefined> {
  if (!config.redisUrl) return undefined;
  const { RedisRateLimiter } = await import('./limits/redis.js');
  const onFallback = (fallingBack: boolean, error?: unknown) =>
    fallingBack
      ? log.warn({ err: error }, 'Redis does not answer: rate limits are counted on this node alone until it does')
      : log.info('Redis answers again: rate limits are shared');
  const options = { timeoutMs: config.redisTimeoutMs, now: () => now().getTime(), onFallback };
  // One connection for both: the address limiter's subjects never start with "account:".
  const limiter = new RedisRateLimiter(config.redisUrl, options);
  // Start even when Redis is away (the node then counts alone and says so), but give it a moment first.
  if (!(await limiter.ready(config.redisTimeoutMs * 8))) log.warn('Redis did not answer at start: rate limits are counted on this node alone until it does');
  return { accounts: limiter, addresses: limiter };
}

export async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const service = await startService(config);
  const { log } = service.services;
  // Log lines are written asynchronously: flush them before the process ends.
  const exit = (code: number) => log.flush(() => process.exit(code));
  const shutdown = (signal: string) => {
    log.info({ signal }, 'shutting down');
    service.stop().then(
      () => exit(0),
      (error) => {
        log.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  // `on`, not `once`: a repeated signal (Ctrl-C reaches both `csr serve` and this process, which
  // forwards it too) must not fall through to Node's default and cut the graceful stop short.
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    process.stderr.write(`csr failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
