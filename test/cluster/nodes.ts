import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { projectRoot } from '../../src/paths.js';
import { SERVER_ENTRY, SERVICE_NODE_FLAGS } from '../../src/node-flags.js';

/**
 * What the cluster fault tests share: a service node as its own process (so that what happens to
 * its database or Redis is all that happens to it), plain HTTP calls that record how each ended,
 * and control over a throwaway server's processes (pause with SIGSTOP, stop, start again).
 */
const csr = join(projectRoot, 'dist', 'src', 'cli', 'csr.js');
const run = promisify(execFile);

export interface Node {
  url: string;
  child: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

export async function startNode(env: Record<string, string>): Promise<Node> {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, SERVER_ENTRY], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WORKERS: '1', ACCESS_LOG: 'errors', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const match = /"msg":"listening"/.test(log) && /"port":(\d+)/.exec(log.slice(log.indexOf('"msg":"listening"') - 400));
      if (match) resolve(Number(match[1]));
    };
    // Keep draining after the port is known, so the child never blocks on a full pipe.
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`node exited (${code}) before listening:\n${log.slice(-2000)}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    log: () => log,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  json(): any;
}

export async function call(
  node: { url: string },
  method: string,
  path: string,
  key?: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${node.url}${path}`, {
    method,
    headers: { ...(key && { authorization: `Bearer ${key}` }), ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(bytes.toString()) };
}

/** A key made with the CLI against the cluster's database (the last line `csr keys create` prints). */
export async function cliKey(env: Record<string, string>, account: string, tier: string): Promise<string> {
  const { stdout } = await run(process.execPath, [csr, 'keys', 'create', '--account', account, '--tier', tier], { env: { ...process.env, ...env } });
  return stdout.trim().split('\n').at(-1)!;
}

/** One request as the client saw it: its status, or `error` when no HTTP answer came (a reset, a refused connection). */
export interface Sample {
  what: string;
  at: number;
  ms: number;
  status: number | 'error';
  code?: string;
  retryAfter?: string | null;
  id?: string;
}

/**
 * Sends `request` every `everyMs` (the next once the previous has answered and its tick has
 * come) until `stop` is set, recording every outcome. A fixed pace keeps the load bounded.
 */
export async function paced(
  samples: Sample[],
  what: string,
  everyMs: number,
  stopped: () => boolean,
  request: () => Promise<Answer>,
  onAnswer?: (answer: Answer, sample: Sample) => void,
) {
  while (!stopped()) {
    const started = performance.now();
    const sample: Sample = { what, at: Date.now(), ms: 0, status: 'error' };
    try {
      const answer = await request();
      sample.status = answer.status;
      if (answer.status >= 400) {
        sample.retryAfter = answer.headers.get('retry-after');
        try {
          sample.code = answer.json().error?.code;
        } catch {
          sample.code = 'not JSON';
        }
      }
      onAnswer?.(answer, sample);
    } catch (error) {
      sample.code = String((error as Error).cause ?? error);
    }
    sample.ms = performance.now() - started;
    samples.push(sample);
    const wait = everyMs - (performance.now() - started);
    // Pacing, not waiting for an outcome: the next request's tick.
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

const sh = promisify(execFile);

/** The processes of a throwaway PostgreSQL, found from its URL, to pause, stop and start again. */
export interface PostgresProcesses {
  pause(): void;
  resume(): void;
  /** Fast shutdown (SIGINT), resolved once the postmaster has exited. */
  stop(): Promise<void>;
  /** Starts it again with the same command line, data directory and port; resolved once it accepts connections. */
  start(): Promise<void>;
  /** Stops a server this object started (the throwaway's own stop knows only the first one). */
  close(): Promise<void>;
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (in parentheses, which may hold spaces): state, then the parent's pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/** Resolves when `pid` (not our child) has exited: `tail --pid` watches it for us. */
async function exitOf(pid: number): Promise<void> {
  await sh('tail', [`--pid=${pid}`, '-s', '0.02', '-f', '/dev/null']);
}

export async function postgresProcesses(url: string): Promise<PostgresProcesses> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const [{ data_directory: dataDir }] = await sql<{ data_directory: string }[]>`SHOW data_directory`;
  await sql.end();
  let pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  const ids = (field: string) =>
    Number(
      /\s(\d+)/.exec(
        readFileSync(`/proc/${pid}/status`, 'utf8')
          .split('\n')
          .find((l) => l.startsWith(`${field}:`))!,
      )![1],
    );
  const [uid, gid] = [ids('Uid'), ids('Gid')];
  let started: ChildProcess | undefined;
  let paused: number[] = [];
  const signalAll = (pids: number[], signal: NodeJS.Signals) => {
    for (const p of pids) {
      try {
        process.kill(p, signal);
      } catch {
        // Gone already.
      }
    }
  };
  return {
    pause() {
      paused = [pid, ...childrenOf(pid)];
      signalAll(paused, 'SIGSTOP');
    },
    resume() {
      signalAll(paused, 'SIGCONT');
    },
    async stop() {
      const exited = exitOf(pid);
      process.kill(pid, 'SIGINT');
      await exited;
    },
    async start() {
      const command = uid === process.getuid?.() ? argv : ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--', ...argv];
      const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
      started = child;
      let log = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          if (/database system is ready to accept connections/.test(log)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`postgres exited (${code}) while starting again:\n${log.slice(-2000)}`)));
      });
      pid = child.pid!;
    },
    async close() {
      if (!started || started.exitCode !== null || started.signalCode !== null) return;
      const exited = new Promise((resolve) => started!.once('exit', resolve));
      started.kill('SIGINT');
      await exited;
    },
  };
}

/** The pids of a throwaway Redis, found by its port (redis-server names its port in its command line). */
export async function redisPid(url: string): Promise<number> {
  const port = new URL(url).port;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      // redis-server rewrites its title to "redis-server 127.0.0.1:<port>"; before that, its arguments hold the port.
      if (/redis-server/.test(cmdline) && (cmdline.includes(`:${port}`) || cmdline.split('\0').includes(port))) return Number(entry);
    } catch {
      // Gone.
    }
  }
  throw new Error(`no redis-server on port ${port}`);
}

/** p-th percentile (0..100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
