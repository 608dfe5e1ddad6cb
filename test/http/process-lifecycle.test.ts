/**
 * The service as an operator runs it, in a process of its own: a stop signal finishes what is in
 * flight and exits 0, and `csr serve` starts node with the service's V8 flags and passes signals
 * on. Full lane (package.json, tap.exclude): each case starts and stops a whole process.
 */
import t from 'tap';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { projectRoot } from '../../src/paths.js';
import { SERVER_ENTRY, SERVICE_NODE_FLAGS } from '../../src/node-flags.js';
import { startChildService } from '../helpers/child-service.js';

const csr = join(projectRoot, 'bin', 'csr.js');

/** Resolves true once a connection to `port` is refused (the listener closed), false if one is accepted. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

t.test('graceful shutdown finishes an in-flight request and exits 0', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-shutdown-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const created = execFileSync(process.execPath, [csr, 'keys', 'create', '--account', 'ops', '--tier', 'pro'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  const key = created.trim().split('\n').at(-1)!;
  const service = await startChildService({ DATA_DIR: dataDir });
  // Should an assertion fail first, the child must not outlive the test (it would hold the file open).
  t.teardown(() => service.kill());

  const body = JSON.stringify({ ids: ['CSR-NOT-A-REAL-ID-001'] });
  const socket = connect(service.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  const closed = new Promise((resolve) => socket.once('close', resolve));
  // A health check and, in the same write, the head and a part of the body of the request that
  // will be in flight: once the health answer is back, the service has read that head too.
  const healthAnswered = new Promise<void>((resolve) =>
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('"status":"ok"')) resolve();
    }),
  );
  socket.write(
    'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' +
      `POST /v1/signals/bulk HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
  );
  await healthAnswered;
  answer = answer.slice(answer.indexOf('"status":"ok"') + '"status":"ok"}'.length);
  service.process.kill('SIGTERM');
  // The stop has begun once the listener is closed.
  while (!(await refused(service.port)));
  socket.write(body.slice(5));
  await closed;
  t.match(answer, /^HTTP\/1\.1 200 OK/, 'the in-flight request got its answer');
  t.match(answer, /"not_found"/);
  t.equal(await service.exited, 0, 'the process exited 0');
  t.equal(await refused(service.port), true, 'no longer accepting');
});

t.test('csr serve runs the service with its V8 flags and passes a stop signal on, even twice', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-serve-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, [csr, 'serve'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Should an assertion fail first, the child must not outlive the test (it would hold the file open).
  t.teardown(() => void child.kill('SIGKILL'));
  // The service's 'listening' line carries its port.
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const port = /"msg":"listening"/.test(output) && /"port":(\d+)/.exec(output)?.[1];
      if (port) resolve(Number(port));
    });
    void exited.then((code) => reject(new Error(`csr serve exited (${code}) before listening:\n${output}`)));
  });
  // The process csr serve started: its parent is our child.
  const service = readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .map((pid) => {
      try {
        const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
        return { ppid, argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0') };
      } catch {
        return { ppid: -1, argv: [] };
      }
    })
    .find(({ ppid }) => ppid === child.pid)?.argv;
  t.same(service?.slice(1, -1), [...SERVICE_NODE_FLAGS, SERVER_ENTRY], `csr serve started node ${SERVICE_NODE_FLAGS.join(' ')} ${SERVER_ENTRY}`);
  child.kill('SIGTERM');
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'a repeated signal still ends in a graceful stop, exit 0');
  t.equal(await refused(port), true, 'the service stopped with it');
});
