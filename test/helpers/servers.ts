import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';

/**
 * Throwaway PostgreSQL and Redis servers for tests, started from the Debian packages' binaries
 * on free loopback ports in temp dirs, and stopped (dirs removed) by `stop`. When a package is
 * not installed the starter returns a reason to skip that names it, and `throwaway` turns that
 * reason into a counted skip: a suite without its server never passes with nothing checked.
 */
export interface ThrowawayServer {
  url: string;
  stop(): Promise<void>;
}

export type Started = { server: ThrowawayServer } | { skip: string };

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

/** Postgres refuses to run as root: as root, run its binaries as the package's `postgres` user. */
function asPostgresUser(): { uid: number; gid: number; wrap: (command: string[]) => string[] } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root and no postgres user exists to run PostgreSQL as');
  return { uid, gid, wrap: (command) => ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--', ...command] };
}

/**
 * Resolves when the server prints the line saying it accepts connections (both servers print one
 * once they listen); rejects if it exits first. The deadline only bounds a server that hangs.
 */
function readyLine(stream: NodeJS.ReadableStream, ready: RegExp, what: string, child: ChildProcess, log: () => string, timeoutMs = 120_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4000);
      if (ready.test(seen)) finish();
    };
    const onExit = (code: number | null) => finish(new Error(`${what} exited with ${code} while starting`));
    const timer = setTimeout(() => finish(new Error(`${what} printed no ready line within ${timeoutMs} ms`)), timeoutMs);
    function finish(error?: Error) {
      clearTimeout(timer);
      stream.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(new Error(`${error.message}\n${log()}`));
      else resolve();
    }
    stream.on('data', onData);
    child.once('exit', onExit);
  });
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

const POSTGRES_MISSING = 'SKIPPED: PostgreSQL binaries not found under /usr/lib/postgresql (install the Debian package postgresql: apt-get install postgresql)';
const REDIS_MISSING = 'SKIPPED: redis-server not found (install the Debian package redis-server: apt-get install redis-server)';

/** For a test's `{ skip }` option: the reason to skip when a server's package is not installed, else false. */
export function serverMissing(...servers: Array<'postgres' | 'redis'>): string | false {
  const reasons = servers.flatMap((server) => (server === 'postgres' ? (postgresBin() ? [] : [POSTGRES_MISSING]) : redisBin() ? [] : [REDIS_MISSING]));
  return reasons.length ? reasons.join('; ') : false;
}

export async function startPostgres(): Promise<Started> {
  const bin = postgresBin();
  if (!bin) return { skip: POSTGRES_MISSING };
  const user = asPostgresUser();
  const dir = mkdtempSync(join(tmpdir(), 'csr-pg-'));
  const data = join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  const run = (command: string[]) => (user ? user.wrap(command) : command);
  const init = run([join(bin, 'initdb'), '-D', data, '-U', 'csr', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const initialised = spawnSync(init[0], init.slice(1), { encoding: 'utf8' });
  if (initialised.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${initialised.stderr || initialised.stdout}`);
  }
  const port = await freePort();
  // Durability settings are off: these servers hold test data only and must start and stop fast.
  const command = run([
    join(bin, 'postgres'),
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=100',
  ]);
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  try {
    await readyLine(child.stderr!, /database system is ready to accept connections/, 'postgres', child, () => log);
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const created = spawnSync(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'csr', 'csr'], { encoding: 'utf8' });
  if (created.status !== 0) {
    await stopChild(child, 'SIGINT');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`createdb failed: ${created.stderr}`);
  }
  return {
    server: {
      url: `postgres://csr@127.0.0.1:${port}/csr`,
      async stop() {
        // SIGINT: PostgreSQL's fast shutdown (ends sessions, no waiting for clients).
        await stopChild(child, 'SIGINT');
        rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}

/** A fresh database on a running throwaway server, so suites sharing a server do not share data. */
export function createDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  const bin = postgresBin()!;
  const created = spawnSync(join(bin, 'createdb'), ['-h', url.hostname, '-p', url.port, '-U', url.username, name], { encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`createdb ${name} failed: ${created.stderr}`);
  url.pathname = `/${name}`;
  return url.toString();
}

function redisBin(): string | undefined {
  for (const path of ['/usr/bin/redis-server', '/usr/local/bin/redis-server']) if (existsSync(path)) return path;
  return undefined;
}

/** `port`: a given one (to bring a Redis up where a client already waits), or a free one. */
export async function startRedis(port?: number): Promise<Started> {
  const bin = redisBin();
  if (!bin) return { skip: REDIS_MISSING };
  const dir = mkdtempSync(join(tmpdir(), 'csr-redis-'));
  port ??= await freePort();
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  child.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  try {
    await readyLine(child.stdout!, /Ready to accept connections/, 'redis-server', child, () => log);
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    server: {
      url: `redis://127.0.0.1:${port}`,
      async stop() {
        await stopChild(child, 'SIGTERM');
        rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}

/**
 * Starts a throwaway server for a tap suite and stops it at teardown. When its package is absent:
 * undefined, and a skipped subtest that names what to install, so tap counts the skip (the caller
 * returns; it has nothing to check).
 */
export async function throwaway(t: Pick<Test, 'teardown' | 'skip'>, start: () => Promise<Started>): Promise<ThrowawayServer | undefined> {
  const started = await start();
  if ('skip' in started) {
    void t.skip(started.skip, () => undefined);
    return undefined;
  }
  t.teardown(() => started.server.stop());
  return started.server;
}
