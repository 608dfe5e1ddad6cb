import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Throwaway PostgreSQL and Redis servers for tests, started from the Debian packages' binaries
 * on free loopback ports in temp dirs, and stopped (dirs removed) by `stop`. When a package is
 * not installed the starter returns a reason to skip that names it.
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
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
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

async function waitFor(check: () => boolean | Promise<boolean>, what: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} while starting`);
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not start within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

export async function startPostgres(): Promise<Started> {
  const bin = postgresBin();
  if (!bin) return { skip: 'SKIPPED: PostgreSQL binaries not found under /usr/lib/postgresql (install the Debian package postgresql)' };
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
    join(bin, 'postgres'), '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
    '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=100',
  ]);
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  const isReady = () => spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'csr'], { encoding: 'utf8' }).status === 0;
  try {
    await waitFor(isReady, 'postgres', child);
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${log}`);
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
  if (!bin) return { skip: 'SKIPPED: redis-server not found (install the Debian package redis-server)' };
  const dir = mkdtempSync(join(tmpdir(), 'csr-redis-'));
  port ??= await freePort();
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  const cli = existsSync('/usr/bin/redis-cli') ? '/usr/bin/redis-cli' : 'redis-cli';
  try {
    await waitFor(() => spawnSync(cli, ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() === 'PONG', 'redis-server', child);
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${log}`);
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

/** Starts a throwaway server for a tap suite and stops it at teardown; undefined (and a printed SKIPPED line) when absent. */
export async function throwaway(t: { teardown(fn: () => unknown): void; comment(...args: unknown[]): void }, start: () => Promise<Started>): Promise<ThrowawayServer | undefined> {
  const started = await start();
  if ('skip' in started) {
    t.comment(started.skip);
    process.stdout.write(`${started.skip}\n`);
    return undefined;
  }
  t.teardown(() => started.server.stop());
  return started.server;
}
