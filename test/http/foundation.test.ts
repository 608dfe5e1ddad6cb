import t from 'tap';
import { connect, createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { startTestService, call } from '../helpers/service.js';
import { projectRoot } from '../../src/paths.js';
import { SERVER_ENTRY, SERVICE_NODE_FLAGS } from '../../src/node-flags.js';

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-daily-limit', 'x-ratelimit-daily-remaining'];
const csr = join(projectRoot, 'bin', 'csr.js');

t.test('authentication', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('community');

  const missing = await call(service, 'GET', '/v1/frameworks');
  t.equal(missing.status, 401);
  t.equal(missing.body.error.code, 'unauthorized');
  t.match(missing.body.error.message, /invalid or missing/);
  for (const header of RATE_HEADERS) t.ok(missing.headers.get(header), `401 carries ${header}`);

  const malformed = await call(service, 'GET', '/v1/frameworks', { headers: { authorization: 'Basic abc' } });
  t.equal(malformed.status, 401);
  const unknown = await call(service, 'GET', '/v1/frameworks', { key: `${key.slice(0, -4)}AAAA` });
  t.equal(unknown.status, 401, 'a key with a wrong secret is refused');

  const ok = await call(service, 'GET', '/v1/frameworks', { key });
  t.equal(ok.status, 200);
  t.ok(ok.headers.get('x-request-id'), 'request id generated');

  const echoed = await call(service, 'GET', '/v1/frameworks', { key, headers: { 'x-request-id': 'trace-abc.123' } });
  t.equal(echoed.headers.get('x-request-id'), 'trace-abc.123', 'request id echoed');

  // Revoke from the CLI, as an operator would, while the server runs.
  const keyId = /^csr_([0-9a-f]{16})_/.exec(key)![1];
  execFileSync(process.execPath, [csr, 'keys', 'revoke', keyId], { env: { ...process.env, DATA_DIR: service.dataDir } });
  const deadline = Date.now() + 1000;
  let status = 200;
  while (Date.now() < deadline && status !== 401) {
    status = (await call(service, 'GET', '/v1/frameworks', { key })).status;
  }
  t.equal(status, 401, 'revoked key refused within 1 s');
});

t.test('CLI creates keys, lists them and changes tiers while the server runs', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const env = { ...process.env, DATA_DIR: service.dataDir };
  const output = execFileSync(process.execPath, [csr, 'keys', 'create', '--account', 'acme', '--tier', 'community'], { env, encoding: 'utf8' });
  const key = output.trim().split('\n').at(-1)!;
  t.match(key, /^csr_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/, 'the key is alone on the last line');
  const listed = execFileSync(process.execPath, [csr, 'keys', 'list', '--account', 'acme'], { env, encoding: 'utf8' });
  t.match(listed, /acme/);
  t.notMatch(listed, secretOf(key), 'list never shows the secret');

  const denied = await call(service, 'GET', '/v1/controls', { key });
  t.equal(denied.status, 403);
  t.equal(denied.body.error.code, 'tier_required');
  t.same(denied.body.error.details, { required_tier: 'pro', current_tier: 'community' });

  execFileSync(process.execPath, [csr, 'accounts', 'set-tier', 'acme', 'pro'], { env });
  const deadline = Date.now() + 1000;
  let status = 403;
  while (Date.now() < deadline && status !== 200) status = (await call(service, 'GET', '/v1/controls', { key })).status;
  t.equal(status, 200, 'tier change applies within 1 s');

  const bad = (() => {
    try {
      execFileSync(process.execPath, [csr, 'accounts', 'set-tier', 'acme', 'platinum'], { env, stdio: 'pipe' });
      return 0;
    } catch (error) {
      return (error as { status: number }).status;
    }
  })();
  t.equal(bad, 2, 'an unknown tier is a usage error');
});

t.test('tier gate on gap analysis uses GAP_TIER_REQUIRED', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('community');
  const res = await call(service, 'POST', '/v1/gap-analysis', { key, body: { findings: [], frameworks: ['HIPAA'] } });
  t.equal(res.status, 403);
  t.equal(res.body.error.code, 'GAP_TIER_REQUIRED');
  t.same(res.body.error.details, { required_tier: 'pro', current_tier: 'community' });
  for (const header of RATE_HEADERS) t.ok(res.headers.get(header), `403 carries ${header}`);
});

t.test('rate limits: 429 after exactly the limit', async (t) => {
  let now = Date.UTC(2026, 10, 21, 12, 0, 5);
  const service = await startTestService({ now: () => new Date(now) });
  t.teardown(() => service.close());
  const key = await service.key('community');
  for (let i = 1; i <= 60; i++) {
    const res = await call(service, 'GET', '/v1/frameworks', { key });
    if (res.status !== 200) t.fail(`request ${i} answered ${res.status}`);
    if (i === 1) {
      t.equal(res.headers.get('x-ratelimit-limit'), '60');
      t.equal(res.headers.get('x-ratelimit-remaining'), '59');
      t.equal(res.headers.get('x-ratelimit-reset'), String(Date.UTC(2026, 10, 21, 12, 1, 0) / 1000));
      t.equal(res.headers.get('x-ratelimit-daily-limit'), '10000');
      t.equal(res.headers.get('x-ratelimit-daily-remaining'), '9999');
    }
  }
  const limited = await call(service, 'GET', '/v1/frameworks', { key });
  t.equal(limited.status, 429);
  t.equal(limited.body.error.code, 'rate_limited');
  t.equal(limited.headers.get('retry-after'), '55');
  t.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  t.same(limited.body.error.details, { limit: 60, remaining: 0, reset_at: '2026-11-21T12:01:00.000Z', retry_after: 55 });
  t.match(limited.body.error.message, /55 seconds/);

  now += 60_000;
  const next = await call(service, 'GET', '/v1/frameworks', { key });
  t.equal(next.status, 200, 'a new minute opens a new window');
  t.equal(next.headers.get('x-ratelimit-daily-remaining'), '9939');

  const enterprise = await service.key('enterprise');
  const unlimited = await call(service, 'GET', '/v1/frameworks', { key: enterprise });
  t.equal(unlimited.headers.get('x-ratelimit-limit'), '1000');
  t.equal(unlimited.headers.get('x-ratelimit-daily-limit'), 'unlimited');
  t.equal(unlimited.headers.get('x-ratelimit-daily-remaining'), 'unlimited');
});

t.test('request errors: 404, 405, 413, invalid JSON, media type', async (t) => {
  const service = await startTestService({ env: { BODY_LIMIT_BYTES: '2048' } });
  t.teardown(() => service.close());
  const key = await service.key('pro');

  const unknown = await call(service, 'GET', '/v1/nothing-here', { key });
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error.code, 'not_found');
  for (const header of RATE_HEADERS) t.ok(unknown.headers.get(header), `404 carries ${header}`);

  const wrongMethod = await call(service, 'DELETE', '/v1/frameworks', { key });
  t.equal(wrongMethod.status, 405);
  t.equal(wrongMethod.body.error.code, 'method_not_allowed');
  t.equal(wrongMethod.headers.get('allow'), 'GET, HEAD');
  t.equal(wrongMethod.headers.get('x-ratelimit-limit'), '300', '405 carries the caller’s rate-limit headers');

  const big = await call(service, 'POST', '/v1/signals/bulk', { key, rawBody: JSON.stringify({ ids: ['x'.repeat(4000)] }), headers: { 'content-type': 'application/json' } });
  t.equal(big.status, 413);
  t.equal(big.body.error.code, 'payload_too_large');
  t.same(big.body.error.details, { limit: 2048 });

  const broken = await call(service, 'POST', '/v1/signals/bulk', { key, rawBody: '{"ids": [', headers: { 'content-type': 'application/json' } });
  t.equal(broken.status, 400);
  t.equal(broken.body.error.code, 'invalid_json');

  const empty = await call(service, 'POST', '/v1/signals/bulk', { key, rawBody: '', headers: { 'content-type': 'application/json' } });
  t.equal(empty.status, 400, 'an empty body reads as {}; the schema names what is missing');
  t.equal(empty.body.error.code, 'invalid_parameter');
  t.equal(empty.body.error.details.parameter, 'ids');

  const xml = await call(service, 'POST', '/v1/signals/bulk', { key, rawBody: '<ids/>', headers: { 'content-type': 'application/xml' } });
  t.equal(xml.status, 415);
  t.equal(xml.body.error.code, 'unsupported_media_type');

  const head = await fetch(`${service.url}/v1/frameworks`, { method: 'HEAD', headers: { authorization: `Bearer ${key}` } });
  const get = await call(service, 'GET', '/v1/frameworks', { key });
  t.equal(head.status, 200, 'HEAD is answered wherever GET is');
  t.ok(head.headers.get('content-length'), 'with a length');
  t.equal(head.headers.get('content-length'), get.headers.get('content-length'), 'the length GET sends');
  t.equal(head.headers.get('content-encoding'), get.headers.get('content-encoding'), 'in the same coding');
  t.equal(await head.text(), '', 'and no body');
  t.equal((await fetch(`${service.url}/healthz`, { method: 'HEAD' })).status, 200);

  const health = await call(service, 'GET', '/healthz');
  t.equal(health.status, 200);
  t.same(health.body, { status: 'ok' });
  await service.services.pool.ready;
  const ready = await call(service, 'GET', '/readyz');
  t.equal(ready.status, 200);
  t.equal(ready.body.status, 'ready');
});

/** One request on a raw socket: the answer's bytes as they came, up to the end of its head. */
function rawHead(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0) {
        socket.destroy();
        resolve(received.slice(0, end + 2));
      }
    });
    socket.on('error', reject);
  });
}

t.test('the header block on the wire: one line per header, each CRLF-terminated, for kept and fresh answers', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('pro');
  const request = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nAccept-Encoding: identity\r\n${extra}\r\n`;
  const lineShape = /^[A-Za-z0-9-]+: [^\r\n]*$/;
  const fresh = await rawHead(service.port, request('/v1/frameworks'));
  const kept = await rawHead(service.port, request('/v1/frameworks'));
  const etag = /\r\nETag: ([^\r\n]+)\r\n/.exec(kept)?.[1];
  const notModified = await rawHead(service.port, request('/v1/frameworks', `If-None-Match: ${etag}\r\n`));
  const missing = await rawHead(service.port, request('/v1/signals/CSR-NOT-THERE-001'));
  for (const [name, head, status] of [['fresh', fresh, '200 OK'], ['kept', kept, '200 OK'], ['304', notModified, '304 Not Modified'], ['404', missing, '404 Not Found']] as const) {
    const [statusLine, ...lines] = head.split('\r\n').slice(0, -1);
    t.equal(statusLine, `HTTP/1.1 ${status}`, `${name}: status line`);
    t.same(lines.filter((line) => !lineShape.test(line)), [], `${name}: every header line is Name: value`);
    const names = lines.map((line) => line.slice(0, line.indexOf(':')).toLowerCase());
    t.same(names.filter((header, index) => names.indexOf(header) !== index), [], `${name}: no header twice`);
    t.ok(names.includes('x-request-id') && names.includes('x-ratelimit-remaining'), `${name}: the request's own headers`);
  }
  const names = (head: string) => head.split('\r\n').slice(1, -1).map((line) => line.slice(0, line.indexOf(':'))).sort();
  t.same(names(kept), names(fresh), 'a kept answer sends the headers the first answer sent');
  t.match(kept, /\r\nContent-Type: application\/json; charset=utf-8\r\n/);
  t.notMatch(notModified, /Content-Type|Content-Length/, 'a 304 describes no body');
  t.match(notModified, /\r\nCache-Control: private, max-age=3600\r\n/);
});

t.test('a client that aborts mid-body does not crash the server', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('pro');
  for (let i = 0; i < 5; i++) {
    await new Promise<void>((resolve) => {
      const socket = connect(service.port, '127.0.0.1', () => {
        socket.write(`POST /v1/signals/bulk HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"ids": ["CSR-`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 20);
      });
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  const after = await call(service, 'GET', '/v1/frameworks', { key });
  t.equal(after.status, 200, 'server still answers');
  t.equal(service.pipeline.routes.length > 0, true);
});

t.test('keys are not stored in clear (LMDB file bytes)', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('teams');
  const secret = secretOf(key);
  const bytes = Buffer.concat(
    readdirSync(service.dataDir)
      .filter((name) => name.startsWith('csr.lmdb') && !name.endsWith('-lock'))
      .map((name) => readFileSync(join(service.dataDir, name))),
  );
  t.ok(bytes.length > 0, 'read the LMDB data file');
  t.equal(bytes.indexOf(secret), -1, 'the secret is not in the file');
  t.equal(bytes.indexOf(key), -1, 'the key is not in the file');
  const digest = createHash('sha256').update(secret).digest('hex');
  t.not(bytes.indexOf(digest), -1, 'its SHA-256 is');
});

t.test('graceful shutdown finishes an in-flight request and exits 0', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-shutdown-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  const created = execFileSync(process.execPath, [csr, 'keys', 'create', '--account', 'ops', '--tier', 'pro'], { env, encoding: 'utf8' });
  const key = created.trim().split('\n').at(-1)!;
  const port = await freePort();
  const child = spawn(process.execPath, [join(projectRoot, 'dist/src/server.js')], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Should an assertion fail first, the child must not outlive the test (it would hold the file open).
  t.teardown(() => void child.kill('SIGKILL'));
  // A start on a machine busy with other suites can take several seconds: wait as a deploy would.
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0)) === 200, 60_000);

  const body = JSON.stringify({ ids: ['CSR-NOT-A-REAL-ID-001'] });
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk.toString()));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(`POST /v1/signals/bulk HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.write(body.slice(5));
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))]);
  socket.destroy();
  t.match(answer, /^HTTP\/1\.1 200 OK/, 'the in-flight request got its answer');
  t.match(answer, /"not_found"/);
  t.equal(await exited, 0, 'the process exited 0');
  const refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'answered', () => 'refused');
  t.equal(refused, 'refused', 'no longer accepting');
});

t.test('csr serve runs the service with its V8 flags and passes a stop signal on, even twice', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-serve-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const child = spawn(process.execPath, [csr, 'serve'], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Should an assertion fail first, the child must not outlive the test (it would hold the file open).
  t.teardown(() => void child.kill('SIGKILL'));
  // A start on a machine busy with other suites can take several seconds: wait as a deploy would.
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0)) === 200, 60_000);
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
  const refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'answered', () => 'refused');
  t.equal(refused, 'refused', 'the service stopped with it');
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out waiting');
}

/** The secret part of `csr_<id>_<secret>`; the secret itself may contain underscores. */
function secretOf(key: string): string {
  return /^csr_[0-9a-f]{16}_(.+)$/.exec(key)![1];
}
