/**
 * Safe start: a taken port stops the second server (uWS would otherwise share it through
 * SO_REUSEPORT), the CLI and the server agree on DATA_DIR and the CLI says which it used, and
 * every start-up failure names the variable and the path at fault. Full lane (package.json,
 * tap.exclude): each case starts whole processes.
 */
import t from 'tap';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, call } from '../helpers/service.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { projectRoot, resolveDataDir } from '../../src/paths.js';
import { startService } from '../../src/server.js';

const csr = join(projectRoot, 'bin', 'csr.js');
const server = join(projectRoot, 'dist', 'src', 'server.js');

// Several real service starts (child processes and in-process): on a loaded 2-core machine they
// take longer than tap's default file timeout, which is about load, not about what is checked.
t.setTimeout(300_000);

function tempDir(t: { teardown(cleanup: () => void): void }, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs node with a script until it exits (a process still running after 60 s is stopped and fails the test). */
function runNode(args: string[], env: Record<string, string>, options: { uid?: number; cwd?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, args, { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, encoding: 'utf8', timeout: 60_000, ...options });
}

t.test('a second server on a taken port refuses to start and names PORT', async (t) => {
  const first = await startTestService();
  t.teardown(() => first.close());
  const key = await first.key('community');

  const process2 = runNode([server], { PORT: String(first.port), HOST: '127.0.0.1', DATA_DIR: tempDir(t, 'csr-second-') });
  t.equal(process2.status, 1, 'the second process exits 1');
  t.match(process2.stderr, new RegExp(`PORT=${first.port} is taken`), `stderr: ${process2.stderr.trim()}`);

  const config = loadConfig({
    ...process.env,
    PORT: String(first.port),
    HOST: '127.0.0.1',
    DATA_DIR: tempDir(t, 'csr-second-'),
    LOG_LEVEL: 'silent',
    WORKERS: '1',
  });
  await t.rejects(
    startService(config, { log: createLogger('silent') }),
    { message: new RegExp(`PORT=${first.port} is taken`) },
    'in process too, after closing what it opened',
  );

  const statuses = await Promise.all(Array.from({ length: 20 }, () => call(first, 'GET', '/v1/stats', { key }).then((r) => r.status)));
  t.same(statuses, Array(20).fill(200), 'every request still reaches the first server');
});

t.test('DATA_DIR: one resolution for the server and the CLI', async (t) => {
  t.equal(resolveDataDir({}).path, join(projectRoot, 'data'), 'default: data/ in the project');
  t.equal(resolveDataDir({}).source, 'default');
  t.equal(resolveDataDir({ DATA_DIR: 'state/csr' }).path, join(projectRoot, 'state', 'csr'), 'relative: from the project root, wherever the command runs');
  t.equal(resolveDataDir({ DATA_DIR: '/var/lib/csr/' }).path, '/var/lib/csr', 'absolute: as given');
  t.equal(loadConfig({ DATA_DIR: 'state/csr' }).dataDir, resolveDataDir({ DATA_DIR: 'state/csr' }).path, 'the server config uses the same function');

  const dataDir = tempDir(t, 'csr-cli-');
  const elsewhere = tempDir(t, 'csr-cwd-');
  const created = runNode([csr, 'keys', 'create', '--account', 'ops', '--tier', 'pro'], { DATA_DIR: dataDir }, { cwd: elsewhere });
  t.equal(created.status, 0);
  t.match(created.stderr, `csr: data directory ${dataDir} (from DATA_DIR)`, 'the CLI names the directory it used, on stderr');
  t.notMatch(created.stdout, 'data directory', 'stdout carries only the command output');
  const key = created.stdout.trim().split('\n').at(-1)!;
  t.match(key, /^csr_/, 'the key is still the last line of stdout');

  const service = await startTestService({ env: { DATA_DIR: dataDir } });
  t.teardown(() => service.close());
  t.equal((await call(service, 'GET', '/v1/stats', { key })).status, 200, 'the server reads the key the CLI made');

  const listed = runNode([csr, 'accounts', 'list'], {}, { cwd: elsewhere });
  t.match(
    listed.stderr,
    `csr: data directory ${join(projectRoot, 'data')} (default; set DATA_DIR to choose)`,
    'without DATA_DIR: the project default, not the working directory',
  );
});

t.test('start-up failures name the variable and the path', async (t) => {
  const base = tempDir(t, 'csr-bad-');
  const file = join(base, 'a-file');
  writeFileSync(file, 'not a directory');

  const underFile = runNode([server], { PORT: '0', DATA_DIR: join(file, 'data') });
  t.equal(underFile.status, 1);
  t.match(underFile.stderr, `data directory ${join(file, 'data')} (DATA_DIR) cannot be created`);

  const isFile = runNode([server], { PORT: '0', DATA_DIR: file });
  t.equal(isFile.status, 1);
  t.match(isFile.stderr, `data directory ${file} (DATA_DIR) is not a directory`);

  // Root may write anywhere: the unwritable case runs as nobody (uid 65534) when the tests run as root.
  const readOnly = join(base, 'read-only');
  spawnSync('mkdir', [readOnly]);
  chmodSync(base, 0o755);
  chmodSync(readOnly, 0o555);
  const asOther = process.getuid?.() === 0 ? { uid: 65534 } : {};
  for (const [label, args] of [
    ['server', [server]],
    ['csr keys list', [csr, 'keys', 'list']],
  ] as const) {
    const run = runNode([...args], { PORT: '0', DATA_DIR: readOnly }, asOther);
    t.equal(run.status, 1, `${label} exits 1`);
    t.match(run.stderr, `data directory ${readOnly} (DATA_DIR) is not writable`, `${label}: ${run.stderr.trim().split('\n').at(-1)}`);
  }

  const noRegistry = runNode([server], { PORT: '0', DATA_DIR: join(base, 'data'), REGISTRY_DIR: join(base, 'no-registry') });
  t.equal(noRegistry.status, 1);
  t.match(noRegistry.stderr, `REGISTRY_DIR: registry index at ${join(base, 'no-registry')} is not usable`);
});

t.test('a restart on the same port works: the exclusive listen socket is released on stop', async (t) => {
  const first = await startTestService();
  const port = first.port;
  // No request to the first server: fetch would keep its connection alive, and an open connection
  // of a stopped server that lives on in this process still holds the exclusive port. A real
  // restart ends the old process, which closes every connection.
  await first.close();
  const dataDir = tempDir(t, 'csr-again-');
  const child = spawn(process.execPath, [server], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Stopped even when an assertion fails first, so no server outlives the test.
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  // Its 'listening' line, or its exit if the port were still taken.
  const listening = await new Promise<boolean>((resolve) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"msg":"listening"')) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  t.ok(listening, 'the second server listens');
  const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
    (r) => r.status,
    () => 0,
  );
  t.equal(status, 200, 'the port is free again once the first server stopped');
  child.kill('SIGTERM');
  t.equal(await exited, 0);
});
