import t from 'tap';
import { connect } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { startTestService, call } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { projectRoot } from '../../src/paths.js';

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-daily-limit', 'x-ratelimit-daily-remaining'];
const csr = join(projectRoot, 'bin', 'csr.js');

// One service for the file: each case makes accounts of its own. The clock is the test's, so the
// rate-limit case can set it to the start of a minute of its own. Stopping the service on a
// signal, and `csr serve`, are in process-lifecycle.test.ts (full lane).
let now = Date.UTC(2026, 10, 21, 12, 0, 5);
const service = await startTestService({ now: () => new Date(now) });
t.teardown(() => service.close());

t.test('authentication', async (t) => {
  const key = await service.key('community');

  const missing = await call(service, 'GET', '/v1/frameworks');
  t.equal(missing.status, 401);
  t.equal(missing.body.error.code, 'unauthorized');
  t.match(missing.body.error.message, /An API key is required: send it as Authorization: Bearer <key>/);
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
  // Watched in the service's own key store, so that no request counts against the key meanwhile.
  const took = await until(() => service.services.accounts.authenticate(key) === undefined, 'the service sees the revocation');
  t.equal((await call(service, 'GET', '/v1/frameworks', { key })).status, 401, `revoked key refused (${took} ms after the CLI returned)`);
});

t.test('CLI creates keys, lists them and changes tiers while the server runs', async (t) => {
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
  const took = await until(() => service.services.accounts.authenticate(key)?.tier === 'pro', 'the service sees the new tier');
  t.equal((await call(service, 'GET', '/v1/controls', { key })).status, 200, `tier change applies (${took} ms after the CLI returned)`);

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
  const key = await service.key('community');
  const res = await call(service, 'POST', '/v1/gap-analysis', { key, body: { findings: [], frameworks: ['HIPAA'] } });
  t.equal(res.status, 403);
  t.equal(res.body.error.code, 'GAP_TIER_REQUIRED');
  t.same(res.body.error.details, { required_tier: 'pro', current_tier: 'community' });
  for (const header of RATE_HEADERS) t.ok(res.headers.get(header), `403 carries ${header}`);
});

t.test('rate limits: 429 after exactly the limit', async (t) => {
  // A minute of its own: no request of another case counts in its window.
  now = Date.UTC(2026, 10, 21, 13, 0, 5);
  const key = await service.key('community');
  for (let i = 1; i <= 60; i++) {
    const res = await call(service, 'GET', '/v1/frameworks', { key });
    if (res.status !== 200) t.fail(`request ${i} answered ${res.status}`);
    if (i === 1) {
      t.equal(res.headers.get('x-ratelimit-limit'), '60');
      t.equal(res.headers.get('x-ratelimit-remaining'), '59');
      t.equal(res.headers.get('x-ratelimit-reset'), String(Date.UTC(2026, 10, 21, 13, 1, 0) / 1000));
      t.equal(res.headers.get('x-ratelimit-daily-limit'), '10000');
      t.equal(res.headers.get('x-ratelimit-daily-remaining'), '9999');
    }
  }
  const limited = await call(service, 'GET', '/v1/frameworks', { key });
  t.equal(limited.status, 429);
  t.equal(limited.body.error.code, 'rate_limited');
  t.equal(limited.headers.get('retry-after'), '55');
  t.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  t.same(limited.body.error.details, { limit: 60, remaining: 0, reset_at: '2026-11-21T13:01:00.000Z', retry_after: 55 });
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
  const key = await service.key('pro');

  const unknown = await call(service, 'GET', '/v1/nothing-here', { key });
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error.code, 'not_found');
  for (const header of RATE_HEADERS) t.ok(unknown.headers.get(header), `404 carries ${header}`);

  const wrongMethod = await call(service, 'DELETE', '/v1/frameworks', { key });
  t.equal(wrongMethod.status, 405);
  t.equal(wrongMethod.body.error.code, 'method_not_allowed');
  t.equal(wrongMethod.headers.get('allow'), 'GET, HEAD, POST', 'POST creates a custom framework');
  t.equal(wrongMethod.headers.get('x-ratelimit-limit'), '300', '405 carries the caller’s rate-limit headers');

  const limit = service.services.config.bodyLimitBytes;
  const big = await call(service, 'POST', '/v1/signals/bulk', {
    key,
    rawBody: JSON.stringify({ ids: ['x'.repeat(limit)] }),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(big.status, 413);
  t.equal(big.body.error.code, 'payload_too_large');
  t.same(big.body.error.details, { limit });

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
  const key = await service.key('pro');
  const request = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nAccept-Encoding: identity\r\n${extra}\r\n`;
  const lineShape = /^[A-Za-z0-9-]+: [^\r\n]*$/;
  const fresh = await rawHead(service.port, request('/v1/frameworks'));
  const kept = await rawHead(service.port, request('/v1/frameworks'));
  const etag = /\r\nETag: ([^\r\n]+)\r\n/.exec(kept)?.[1];
  const notModified = await rawHead(service.port, request('/v1/frameworks', `If-None-Match: ${etag}\r\n`));
  const missing = await rawHead(service.port, request('/v1/signals/CSR-NOT-THERE-001'));
  for (const [name, head, status] of [
    ['fresh', fresh, '200 OK'],
    ['kept', kept, '200 OK'],
    ['304', notModified, '304 Not Modified'],
    ['404', missing, '404 Not Found'],
  ] as const) {
    const [statusLine, ...lines] = head.split('\r\n').slice(0, -1);
    t.equal(statusLine, `HTTP/1.1 ${status}`, `${name}: status line`);
    t.same(
      lines.filter((line) => !lineShape.test(line)),
      [],
      `${name}: every header line is Name: value`,
    );
    const names = lines.map((line) => line.slice(0, line.indexOf(':')).toLowerCase());
    t.same(
      names.filter((header, index) => names.indexOf(header) !== index),
      [],
      `${name}: no header twice`,
    );
    t.ok(names.includes('x-request-id') && names.includes('x-ratelimit-remaining'), `${name}: the request's own headers`);
  }
  const names = (head: string) =>
    head
      .split('\r\n')
      .slice(1, -1)
      .map((line) => line.slice(0, line.indexOf(':')))
      .sort();
  t.same(names(kept), names(fresh), 'a kept answer sends the headers the first answer sent');
  t.match(kept, /\r\nContent-Type: application\/json; charset=utf-8\r\n/);
  t.notMatch(notModified, /Content-Type|Content-Length/, 'a 304 describes no body');
  t.match(notModified, /\r\nCache-Control: private, max-age=3600\r\n/);
});

t.test('a client that aborts mid-body does not crash the server', async (t) => {
  const key = await service.key('pro');
  // The service reports each request a client left unanswered as 499: count them as they come.
  const answered = service.pipeline.answered.bind(service.pipeline);
  let left = 0;
  let allLeft!: () => void;
  const fiveLeft = new Promise<void>((resolve) => (allLeft = resolve));
  service.pipeline.answered = (request, status, bytes, seconds) => {
    if (status === 499 && ++left === 5) allLeft();
    answered(request, status, bytes, seconds);
  };
  t.teardown(() => void (service.pipeline.answered = answered));
  for (let i = 0; i < 5; i++) {
    // A health check first, in the same write: once it is answered, the service has read the
    // unfinished request behind it too, and the client can leave mid-body.
    await new Promise<void>((resolve) => {
      const socket = connect(service.port, '127.0.0.1', () =>
        socket.write(
          'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' +
            `POST /v1/signals/bulk HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"ids": ["CSR-`,
        ),
      );
      socket.once('data', () => {
        socket.destroy();
        resolve();
      });
    });
  }
  await fiveLeft;
  t.equal(left, 5, 'each abandoned request was seen as abandoned (499)');
  const after = await call(service, 'GET', '/v1/frameworks', { key });
  t.equal(after.status, 200, 'server still answers');
});

t.test('keys are not stored in clear (LMDB file bytes)', async (t) => {
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

/** The secret part of `csr_<id>_<secret>`; the secret itself may contain underscores. */
function secretOf(key: string): string {
  return /^csr_[0-9a-f]{16}_(.+)$/.exec(key)![1];
}
