import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { defaultRegistryDir, resolveDataDir } from './paths.js';

/** Service configuration, read from the environment once at start and validated. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  registryDir: string;
  logLevel: string;
  workers: number;
  queueLimit: number;
  bodyLimitBytes: number;
  analysisBodyLimitBytes: number;
  sweepIntervalMs: number;
  shutdownTimeoutMs: number;
  taskTimeoutMs: number;
  registryCacheBytes: number;
  /** PostgreSQL for accounts, keys and analyses (cluster mode); unset: LMDB under dataDir. */
  databaseUrl?: string;
  /** Redis for rate limits shared by every node; unset: counted in this process. */
  redisUrl?: string;
  /** How long a rate-limit call to Redis may take before the node counts on its own. */
  redisTimeoutMs: number;
  /** The deadline of one call to PostgreSQL, queueing included; past it the answer is 503 store_unavailable. */
  storeTimeoutMs: number;
  /** Calls to PostgreSQL one account may have running at once on this node (0: half the pool). */
  storeAccountConcurrency: number;
  /** Access lines at level info: one per request (`on`), only for answers with status 400 or over (`errors`), or none (`off`). */
  accessLog: AccessLogMode;
  /** When set, GET /metrics asks for `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open like /healthz. */
  metricsToken?: string;
  /** JSON bodies of at least this many bytes are compressed when the client accepts gzip or br (0: never). */
  compressMinBytes: number;
  /** Webhooks may be delivered to loopback, private and reserved addresses (docs/webhooks.md); off by default. */
  webhookAllowPrivate: boolean;
  /** The deadline of one delivery attempt, connection to answer. */
  webhookTimeoutMs: number;
  /** Delivery attempts at once on this node. */
  webhookConcurrency: number;
  /** Whether this node sends webhook deliveries (every node does by default; deliveries wait in the outbox for one that does). */
  webhookDelivery: boolean;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

const ACCESS_LOG_MODES = ['on', 'errors', 'off'] as const;

/** A yes/no variable: true, 1, on or false, 0, off (any case); unset or empty is the fallback. */
function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1' || raw === 'on') return true;
  if (raw === 'false' || raw === '0' || raw === 'off') return false;
  problems.push(`${name}=${JSON.stringify(env[name])} is not one of true, false, on, off, 1, 0`);
  return fallback;
}
export type AccessLogMode = (typeof ACCESS_LOG_MODES)[number];

/** ACCESS_LOG: on (also true, 1), errors, or off (also false, 0). */
function accessLogMode(env: NodeJS.ProcessEnv, problems: string[]): AccessLogMode {
  const raw = env.ACCESS_LOG?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'on' || raw === 'true' || raw === '1') return 'on';
  if (raw === 'off' || raw === 'false' || raw === '0') return 'off';
  if (raw === 'errors') return 'errors';
  problems.push(`ACCESS_LOG=${JSON.stringify(env.ACCESS_LOG)} is not one of ${ACCESS_LOG_MODES.join(', ')}`);
  return 'on';
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    problems.push(`${name}=${JSON.stringify(raw)} is not a whole number (expected ${min}..${max})`);
    return fallback;
  }
  const value = Number(raw);
  if (value < min || value > max) problems.push(`${name}=${value} is out of range (expected ${min}..${max})`);
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string, schemes: string[], problems: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  let scheme: string;
  try {
    scheme = new URL(raw).protocol;
  } catch {
    // Never echo the value: it may hold a password.
    problems.push(`${name} is not a URL (expected ${schemes.map((s) => `${s}//…`).join(' or ')})`);
    return undefined;
  }
  if (!schemes.includes(scheme)) problems.push(`${name} has scheme ${scheme} (expected ${schemes.join(' or ')})`);
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL=${JSON.stringify(logLevel)} is not one of ${LOG_LEVELS.join(', ')}`);
  const host = env.HOST ?? '0.0.0.0';
  if (host.trim() === '') problems.push('HOST is empty');
  // Leave one core to the HTTP thread so registry reads stay fast while analyses run.
  const defaultWorkers = Math.max(1, Math.min(4, availableParallelism() - 1));
  const config: Config = {
    port: integer(env, 'PORT', 8080, 0, 65535, problems),
    host,
    dataDir: resolveDataDir(env).path,
    registryDir: resolve(env.REGISTRY_DIR ?? defaultRegistryDir),
    logLevel,
    workers: integer(env, 'WORKERS', defaultWorkers, 1, 64, problems),
    queueLimit: integer(env, 'QUEUE_LIMIT', 64, 1, 100_000, problems),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024, problems),
    analysisBodyLimitBytes: integer(env, 'ANALYSIS_BODY_LIMIT_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024, problems),
    sweepIntervalMs: integer(env, 'SWEEP_INTERVAL_MS', 60_000, 10, 86_400_000, problems),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000, problems),
    taskTimeoutMs: integer(env, 'TASK_TIMEOUT_MS', 30_000, 100, 600_000, problems),
    registryCacheBytes: integer(env, 'REGISTRY_CACHE_BYTES', 64 * 1024 * 1024, 0, 16 * 1024 * 1024 * 1024, problems),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'], problems),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:'], problems),
    redisTimeoutMs: integer(env, 'REDIS_TIMEOUT_MS', 250, 10, 60_000, problems),
    storeTimeoutMs: integer(env, 'STORE_TIMEOUT_MS', 1500, 50, 600_000, problems),
    storeAccountConcurrency: integer(env, 'STORE_ACCOUNT_CONCURRENCY', 0, 0, 10_000, problems),
    accessLog: accessLogMode(env, problems),
    metricsToken: env.METRICS_TOKEN || undefined,
    compressMinBytes: integer(env, 'COMPRESS_MIN_BYTES', 1024, 0, 1024 * 1024 * 1024, problems),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', false, problems),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000, problems),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 8, 1, 256, problems),
    webhookDelivery: flag(env, 'WEBHOOK_DELIVERY', true, problems),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}
