import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { startService, type RunningService } from '../../src/server.js';
import type { Tier } from '../../src/tiers.js';
import { createLogger, type Logger } from '../../src/log.js';

export interface TestService extends RunningService {
  url: string;
  dataDir: string;
  /** Creates an account of the tier with a fresh key and returns the key. */
  key(tier: Tier, account?: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  now?: () => Date;
  /** The service's logger (default: silent), for a case that reads what the service logs. */
  log?: Logger;
}

let accountCounter = 0;

/** A real service on a real socket (port 0) over a temp DATA_DIR and the compiled registry. */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-test-'));
  const config: Config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', WORKERS: '1', ...options.env });
  const service = await startService(config, { log: options.log ?? createLogger('silent'), now: options.now });
  return {
    ...service,
    url: `http://127.0.0.1:${service.port}`,
    dataDir,
    async key(tier, account = `account-${tier}-${++accountCounter}`) {
      return (await service.services.accounts.createKey(account, tier)).key;
    },
    async close() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** One HTTP call; parses JSON bodies. */
export async function call(
  service: { url: string },
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Uint8Array | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${service.url}${path}`, { method, headers, body: body as BodyInit | undefined });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
