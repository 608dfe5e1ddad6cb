import t from 'tap';
import { connect } from 'node:net';
import { startTestService, call } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';
import { TURNS_PER_THREAD } from '../../src/pool.js';

// One request must never stop the service; every request counts; overload is refused early.
const service = await startTestService({ env: { WORKERS: '1' } });
t.teardown(() => service.close());
const key = await service.key('enterprise');
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const alive = async () => (await call(service, 'GET', '/healthz')).status === 200;

t.test('a deeply nested body is refused with json_too_deep on every JSON route, and the service lives', async (t) => {
  const [{ signal_id }] = primarySignals('HIPAA', 1);
  const created = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings: [finding('f', signal_id)] } });
  const id = created.body.data.id;
  const bodies: Array<[string, string]> = [
    ['/v1/signals/bulk', `{"ids":${nested(5000)}}`],
    ['/v1/mappings/bulk', `{"signal_ids":${nested(5000)}}`],
    ['/v1/validate', `{"schema":"signal","data":${nested(5000)}}`],
    ['/v1/validate/batch', `{"schema":"signal","items":${nested(5000)}}`],
    [`/v1/gap-analysis/${id}/export`, `{"format":${nested(5000)}}`],
    ['/v1/gap-analysis/compare', `{"baseline_id":${nested(5000)}}`],
    ['/v1/artifact-types/resolve', `{"resources":${nested(5000)}}`],
    // Small enough to run on the HTTP thread, and large enough (over 16 KiB) to go to the pool.
    ['/v1/gap-analysis', `{"frameworks":["HIPAA"],"findings":[{"id":"f","signal_id":${nested(5000)}}]}`],
    ['/v1/gap-analysis', `{"frameworks":["HIPAA"],"findings":[{"id":"f","signal_id":${nested(20_000)}}]}`],
  ];
  for (const [path, body] of bodies) {
    const res = await call(service, 'POST', path, { key, rawBody: body, headers: { 'content-type': 'application/json' } });
    t.equal(res.status, 400, `${path} (${body.length} bytes): 400`);
    t.equal(res.body?.error.code, 'json_too_deep', `${path}: json_too_deep`);
    t.equal(res.body?.error.details.limit, 64, `${path}: names the limit`);
    t.ok(await alive(), 'the service is alive');
  }
  const after = await call(service, 'POST', '/v1/gap-analysis', {
    key,
    body: { frameworks: ['HIPAA'], findings: Array.from({ length: 200 }, (_, i) => finding(`f-${i}`, signal_id)) },
  });
  t.equal(after.status, 200, 'the pool still answers analyses');
});

t.test('every authenticated request counts against the limit, refusals included', async (t) => {
  const community = await service.key('community');
  const remaining = async (method: string, path: string) =>
    Number((await call(service, method, path, { key: community })).headers.get('x-ratelimit-remaining'));
  t.equal(await remaining('GET', '/v1/stats'), 59);
  t.equal(await remaining('GET', '/v1/no-such-path'), 58, '404 counts');
  t.equal(await remaining('DELETE', '/v1/stats'), 57, '405 counts');
  t.equal(await remaining('GET', '/v1/gap-analysis/summary'), 56, '403 counts');
  for (let i = 0; i < 56; i++) await call(service, 'GET', '/v1/no-such-path', { key: community });
  const limited = await call(service, 'GET', '/v1/stats', { key: community });
  t.equal(limited.status, 429, 'the 61st request of the minute is refused');
  t.equal((await call(service, 'GET', '/v1/no-such-path', { key: community })).status, 429, 'so are refusals past the limit');
});

t.test('while the pool queue is full, pooled routes are refused before their body is read', async (t) => {
  // Every turn held and the queue for them full, as a flood of requests would leave them.
  const {
    pool,
    config: { queueLimit },
  } = service.services;
  const flood = new AbortController();
  const taken = Array.from({ length: TURNS_PER_THREAD + queueLimit }, () => pool.takeTurn(flood.signal));
  t.equal(taken.filter((turn) => turn instanceof Promise).length, queueLimit, 'the turns of the one thread held, the rest waiting');
  t.teardown(() => {
    for (const turn of taken) if (turn instanceof Promise) turn.catch(() => undefined);
    flood.abort();
  });
  // Headers that announce a 1.5 MB body, and not one byte of it: the answer must come anyway.
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(service.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
      if (received.includes('\r\n\r\n') && received.includes('}}')) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('error', reject);
    socket.write(
      `POST /v1/gap-analysis HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1500000\r\n\r\n`,
    );
    setTimeout(() => reject(new Error(`no answer before the body: ${received}`)), 5000).unref();
  });
  t.match(answer, /^HTTP\/1\.1 503/);
  t.match(answer, /Retry-After: 1/i);
  t.match(answer, /"code":"service_busy"/);
  const batch = await call(service, 'POST', '/v1/validate/batch', { key, body: { schema: 'signal', items: [] } });
  t.equal(batch.status, 503, 'batch validation too');
  t.equal((await call(service, 'GET', '/v1/signals?per_page=1', { key })).status, 200, 'registry reads are served');
  const ready = await call(service, 'GET', '/readyz');
  t.equal(ready.status, 503, '/readyz reports a pool that cannot take work');
  t.equal(ready.body.status, 'busy');
  t.same(ready.body.pool, { queued: queueLimit, queue_limit: queueLimit });
});
