import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { checkServerIdentity, type ConnectionOptions as TlsOptions } from 'node:tls';
import postgres, { type Sql } from 'postgres';

/** What DATABASE_URL may say beyond where the database is (docs/cluster.md, "DATABASE_URL"). */
export interface ConnectionSettings {
  /** The URL without the parameters read here, for the driver. */
  url: string;
  /** Connections in this process's pool (`max`, default 10); LISTEN takes one more. */
  max: number;
  /** PostgreSQL's statement_timeout, sent at connect: the URL's value, else the store deadline. */
  statementTimeout: string;
  /** Seconds a new connection may take (`connect_timeout`, default 5). */
  connectTimeoutS: number;
  /** `sslmode` as libpq reads it, with `sslrootcert`, `sslcert`, `sslkey`. */
  ssl: false | 'prefer' | 'require' | TlsOptions;
  /** For the start-up log line: the mode and whether the server's certificate is verified. */
  tls: { mode: string; verifies: 'nothing' | 'chain' | 'chain and host name' };
}

export const DEFAULT_POOL_MAX = 10;
const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
/** Parameters read here and removed from the URL: the rest reach the server as run-time settings. */
const OWN_PARAMETERS = ['max', 'statement_timeout', 'connect_timeout', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey'];

/** A DATABASE_URL this process cannot use; the message names the parameter, never the password. */
export class DatabaseUrlError extends Error {}

function wholeNumber(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new DatabaseUrlError(`DATABASE_URL: ${name}=${raw} is not a whole number in ${min}..${max}`);
  return Number(raw);
}

function readPem(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new DatabaseUrlError(`DATABASE_URL: ${name}=${path} cannot be read: ${(error as Error).message}`);
  }
}

/**
 * Reads the pool size, statement timeout and TLS settings from DATABASE_URL's query string, as
 * libpq names them. The driver alone would ignore `max` (our explicit default won), send
 * `sslrootcert` to the server as a setting (which refuses it: the node stopped) and treat
 * `sslmode=require` as its only mode that encrypts, verifying nothing.
 */
export function connectionSettings(url: string, defaults: { statementTimeoutMs: number }): ConnectionSettings {
  const queryAt = url.indexOf('?');
  const params = new URLSearchParams(queryAt < 0 ? '' : url.slice(queryAt + 1));
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const max = wholeNumber(params, 'max', DEFAULT_POOL_MAX, 1, 10_000);
  const connectTimeoutS = wholeNumber(params, 'connect_timeout', 5, 1, 3600);
  const statementTimeout = params.get('statement_timeout') || String(defaults.statementTimeoutMs);
  if (!/^\d+\s*(ms|s|min|h|d)?$/.test(statementTimeout))
    throw new DatabaseUrlError(`DATABASE_URL: statement_timeout=${statementTimeout} is not a duration (ms by default)`);

  const mode = params.get('sslmode') ?? (params.get('sslrootcert') === 'system' ? 'verify-full' : 'disable');
  if (!(SSL_MODES as readonly string[]).includes(mode)) throw new DatabaseUrlError(`DATABASE_URL: sslmode=${mode} is not one of ${SSL_MODES.join(', ')}`);
  const rootcert = params.get('sslrootcert');
  if (rootcert === 'system' && mode !== 'verify-full')
    throw new DatabaseUrlError(`DATABASE_URL: sslrootcert=system needs sslmode=verify-full (it was ${mode})`);
  const client: TlsOptions = {};
  if (params.get('sslcert')) client.cert = readPem('sslcert', params.get('sslcert')!);
  if (params.get('sslkey')) client.key = readPem('sslkey', params.get('sslkey')!);
  // libpq: a root certificate given with sslmode=require verifies the chain, as verify-ca does.
  const verifyChain = mode === 'verify-ca' || mode === 'verify-full' || (mode === 'require' && rootcert !== null);
  let ssl: ConnectionSettings['ssl'];
  let verifies: ConnectionSettings['tls']['verifies'] = 'nothing';
  if (verifyChain) {
    const tls: TlsOptions = { ...client, rejectUnauthorized: true };
    // Without sslrootcert (or with "system") Node's bundled CAs verify, plus NODE_EXTRA_CA_CERTS.
    if (rootcert && rootcert !== 'system') tls.ca = readPem('sslrootcert', rootcert);
    if (mode === 'verify-full') {
      // The host of the URL, also when it is an IP address (TLS's server name cannot be one).
      if (!isIP(host)) tls.servername = host;
      tls.checkServerIdentity = (_name, cert) => checkServerIdentity(host, cert);
      verifies = 'chain and host name';
    } else {
      tls.checkServerIdentity = () => undefined;
      verifies = 'chain';
    }
    ssl = tls;
  } else if (mode === 'require') {
    ssl = Object.keys(client).length ? { ...client, rejectUnauthorized: false } : 'require';
  } else if (mode === 'prefer' || mode === 'allow') {
    ssl = 'prefer';
  } else {
    ssl = false;
  }

  for (const name of OWN_PARAMETERS) params.delete(name);
  const rest = params.toString();
  const bare = (queryAt < 0 ? url : url.slice(0, queryAt)) + (rest ? `?${rest}` : '');
  return { url: bare, max, statementTimeout, connectTimeoutS, ssl, tls: { mode, verifies } };
}

/**
 * Reconnection starts at once and backs off to half a second: the driver's own backoff grows to
 * 20 s, which kept a node answering errors for that long after its database was back.
 */
export function reconnectDelayS(retries: number): number {
  return retries <= 1 ? 0 : Math.min(0.025 * 2 ** retries, 0.5);
}

export interface PostgresOptions {
  /** The store deadline, used as statement_timeout unless the URL sets one (default 1,500 ms). */
  statementTimeoutMs?: number;
  /** Overrides the URL's `max` (tests that want one connection). */
  max?: number;
}

/** One pool per process, configured from DATABASE_URL. Notices ("relation already exists, skipping") are not our log's business. */
export function connect(url: string, options: PostgresOptions = {}): Sql {
  return connectWith(connectionSettings(url, { statementTimeoutMs: options.statementTimeoutMs ?? 1500 }), options.max);
}

export function connectWith(settings: ConnectionSettings, max = settings.max): Sql {
  return postgres(settings.url, {
    max,
    idle_timeout: 60,
    connect_timeout: settings.connectTimeoutS,
    backoff: reconnectDelayS,
    ssl: settings.ssl,
    onnotice: () => {},
    // The service names itself in pg_stat_activity, which helps whoever operates the database.
    connection: { application_name: 'csr', statement_timeout: settings.statementTimeout } as Record<string, string>,
  });
}
