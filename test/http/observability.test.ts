/**
 * /metrics (Prometheus text) and the access log (docs/operations.md, "Metrics and logs").
 */
import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { startChildService } from '../helpers/child-service.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStores } from '../../src/store/open.js';
import { accessLine } from '../../src/log.js';
import { pino } from 'pino';
import { Writable } from 'node:stream';

function tempDataDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'csr-observe-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The child's access lines, parsed, once it has stopped: a graceful stop writes what the access
 * log still holds, and the process's output has then been read to its end.
 */
async function accessLines(child: { stop(): Promise<unknown>; output(): string }): Promise<Array<Record<string, unknown>>> {
  await child.stop();
  return child
    .output()
    .split('\n')
    .filter((line) => line.includes('"log":"access"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A key made in the data directory before the service starts, as `csr keys create` makes one. */
async function keyInDataDir(dataDir: string, account: string): Promise<string> {
  const stores = await openStores({ dataDir });
  try {
    return (await stores.accounts.createKey(account, 'pro')).key;
  } finally {
    await stores.close();
  }
}

/** The value of one sample line of the exposition text, or 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

// One service for the two cases that need no setting of their own. Rate limits count in fixed UTC
// minutes: on the real clock the 61 requests below could straddle a minute's end, and then none
// would be refused. One fixed instant keeps them in one window.
const service = await startTestService({ now: () => new Date('2026-11-24T12:00:30.000Z') });
t.teardown(() => service.close());

t.test('/metrics counts requests by declared route and status, refusals, stored analyses', async (t) => {
  const key = await service.key('pro');
  const before = (await call(service, 'GET', '/metrics')).text;
  t.match(before, /^# HELP csr_http_requests_total/m, 'Prometheus text');
  t.equal(sample(before, 'csr_registry_info', { version: service.services.registry.manifest.registry_version }), 1, 'the registry this node serves');

  const signal = (await call(service, 'GET', '/v1/signals?per_page=1', { key })).body.data[0].id as string;
  for (let i = 0; i < 3; i++) await call(service, 'GET', `/v1/signals/${signal}`, { key });
  await call(service, 'GET', '/v1/signals/CSR-NOT-THERE-001', { key });
  for (const path of ['/v1/nothing-here', '/v1/also/not/here', '/wp-admin']) await call(service, 'GET', path, { key });
  await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings: [{ id: 'f-1', signal_id: signal, status: 'open' }] } });

  const after = (await call(service, 'GET', '/metrics')).text;
  const requests = (route: string, status: string) =>
    sample(after, 'csr_http_requests_total', { method: 'GET', route, status }) - sample(before, 'csr_http_requests_total', { method: 'GET', route, status });
  t.equal(requests('/v1/signals/:id', '200'), 3, 'three reads of one signal under its declared route');
  t.equal(requests('/v1/signals/:id', '404'), 1, 'the unknown id under the same route, status 404');
  t.equal(requests('unmatched', '404'), 3, 'unknown paths share one label');
  t.notMatch(after, /nothing-here|wp-admin/, 'no raw URL becomes a label');
  t.equal(sample(after, 'csr_http_request_duration_seconds_count', { route: '/v1/signals/:id', status: '200' }), 3, 'latency observed per answer');
  // Buckets are cumulative: each bound counts the answers at or under it, +Inf all of them.
  const read = { method: 'GET', route: '/v1/signals/:id', status: '200' };
  const buckets = ['0.0005', '0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '+Inf'].map((le) =>
    sample(after, 'csr_http_request_duration_seconds_bucket', { ...read, le }),
  );
  t.same(
    buckets,
    [...buckets].sort((a, b) => a - b),
    'bucket counts never fall as the bound rises',
  );
  t.equal(buckets.at(-1), 3, 'the +Inf bucket holds every answer');
  t.ok(buckets[0] < 3 || sample(after, 'csr_http_request_duration_seconds_sum', read) <= 3 * 0.0005, 'the sum agrees with the first bucket');
  t.ok(sample(after, 'csr_http_request_duration_seconds_sum', read) > 0, 'durations summed');
  t.equal(sample(after, 'csr_analyses_stored_total') - sample(before, 'csr_analyses_stored_total'), 1, 'one analysis stored');
  t.ok(sample(after, 'csr_pool_queue_depth') >= 0, 'queue depth reported');
  t.ok(after.includes('csr_process_cpu_user_seconds_total'), 'process metrics');

  // A Community key has 60 requests a minute: the 61st is refused and counted.
  const community = await service.key('community');
  for (let i = 0; i < 61; i++) await call(service, 'GET', '/v1/frameworks', { key: community });
  const limited = (await call(service, 'GET', '/metrics')).text;
  t.equal(sample(limited, 'csr_rate_limit_refusals_total', { scope: 'account' }), 1, 'the refusal is counted');
});

t.test('an answer whose observation fails costs neither the process nor the observation of the others', async (t) => {
  // Answers are observed after their turn of the event loop, outside any request's handler: a
  // throw there would be an uncaught exception and end the process.
  const key = await service.key('pro');
  const metrics = service.services.metrics;
  const observe = metrics.requestAnswered.bind(metrics);
  let failed = 0;
  metrics.requestAnswered = (method, route, status, seconds) => {
    if (route === '/v1/frameworks') {
      failed += 1;
      throw new Error('observation failed');
    }
    observe(method, route, status, seconds);
  };
  t.teardown(() => {
    metrics.requestAnswered = observe;
  });
  const before = (await call(service, 'GET', '/metrics')).text;
  // Answered in the same turns as the failing ones, some of them.
  const answers = await Promise.all(
    [0, 1, 2, 3].flatMap(() => [call(service, 'GET', '/v1/frameworks', { key }), call(service, 'GET', '/v1/domains', { key })]),
  );
  t.same(
    answers.map((answer) => answer.status),
    [200, 200, 200, 200, 200, 200, 200, 200],
    'every request answered',
  );
  const after = (await call(service, 'GET', '/metrics')).text;
  t.equal(failed, 4, 'each failing observation was tried');
  const domains = { method: 'GET', route: '/v1/domains', status: '200' };
  t.equal(sample(after, 'csr_http_requests_total', domains) - sample(before, 'csr_http_requests_total', domains), 4, 'the other answers were counted');
  t.equal((await call(service, 'GET', '/v1/frameworks', { key })).status, 200, 'the service still answers');
});

t.test('METRICS_TOKEN closes /metrics to callers without it', async (t) => {
  const service = await startTestService({ env: { METRICS_TOKEN: 'scrape-secret-1' } });
  t.teardown(() => service.close());
  t.equal((await call(service, 'GET', '/metrics')).status, 401);
  t.equal((await call(service, 'GET', '/metrics', { headers: { authorization: 'Bearer wrong-secret' } })).status, 401);
  const ok = await call(service, 'GET', '/metrics', { headers: { authorization: 'Bearer scrape-secret-1' } });
  t.equal(ok.status, 200);
  t.match(ok.headers.get('content-type'), /^text\/plain/);
});

t.test('one JSON access-log line per request, with the account and never the key', async (t) => {
  const dataDir = tempDataDir(t);
  const key = await keyInDataDir(dataDir, 'log-reader');
  const child = await startChildService({ DATA_DIR: dataDir });
  t.teardown(() => child.stop());
  const answered = await fetch(`${child.url}/v1/signals?per_page=2`, { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'trace-me-42' } });
  t.equal(answered.status, 200);
  await answered.arrayBuffer();
  const refused = await fetch(`${child.url}/v1/signals`, { headers: { authorization: 'Bearer not-a-key' } });
  await refused.arrayBuffer();
  const lines = await accessLines(child);
  const line = lines.find((l) => l.request_id === 'trace-me-42');
  t.ok(line, 'the line carries the request id');
  t.match(line, { method: 'GET', route: '/v1/signals', path: '/v1/signals', status: 200, account: 'log-reader', msg: 'request' });
  t.type(line?.duration_ms, 'number');
  t.ok((line?.bytes as number) > 0, 'bytes sent');
  t.ok(
    lines.some((l) => l.status === 401 && l.account === undefined),
    'a refused key is logged without an account',
  );
  t.notOk(child.output().includes(key), 'the key is never written');
  t.notOk(child.output().includes('not-a-key'), 'nor a wrong one');
});

/**
 * A service in this process whose log (info, as a deployment logs) is kept in memory: the access
 * log modes are the pipeline's, the same in a process of its own (above) as here. `output` is
 * read once the service has stopped, which writes what the access log still holds.
 */
async function serviceWithLog(env: Record<string, string>) {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const service = await startTestService({ env, log: pino({ level: 'info', base: { service: 'csr' } }, sink) });
  return { service, output: () => text };
}

t.test('ACCESS_LOG=off writes no access lines', async (t) => {
  const { service, output } = await serviceWithLog({ ACCESS_LOG: 'off' });
  await (await fetch(`${service.url}/healthz`)).arrayBuffer();
  await service.close();
  t.match(output(), /"msg":"listening"/, 'the service logged');
  t.notOk(output().includes('"log":"access"'), 'no access line, up to the stop');
});

t.test('ACCESS_LOG=errors writes lines only for answers with status 400 or over', async (t) => {
  const { service, output } = await serviceWithLog({ ACCESS_LOG: 'errors' });
  const key = await service.key('pro', 'error-logger');
  const answered = await fetch(`${service.url}/v1/signals?per_page=2`, { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'served-fine' } });
  t.equal(answered.status, 200);
  await answered.arrayBuffer();
  const missing = await fetch(`${service.url}/v1/signals/NO-SUCH-SIGNAL`, { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'not-there' } });
  t.equal(missing.status, 404);
  await missing.arrayBuffer();
  await service.close();
  const lines = output()
    .split('\n')
    .filter((line) => line.includes('"log":"access"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  t.match(lines, [{ request_id: 'not-there', status: 404, account: 'error-logger' }], 'the 404 is logged');
  t.equal(lines.length, 1, 'and nothing else');
  t.notOk(output().includes('served-fine'), 'the 200 is not');
});

t.test('an access line is the JSON pino writes for the same entry, whatever the client sent', async (t) => {
  const hostile = ['/v1/signals/"quoted"', '/v1/a\\b', '/v1/\u0001\u001f\n', '/v1/é/✓/\ud83d\ude00', '/v1/</script>'];
  for (const path of hostile) {
    for (const [requestId, account, method] of [
      ['r-1', 'acme "corp"', 'GET'],
      [undefined, undefined, 'G\\"ET'],
      ['plain-id', 'plain', 'GET'],
    ] as const) {
      const entry = { requestId, method, route: 'unmatched', path, status: 404, durationMs: 0.12, bytes: 149, account };
      const ours = accessLine(entry, '2026-11-24T05:00:00.000Z');
      // The same entry through pino, as the pipeline logged it before the hand-built line.
      let theirs = '';
      const sink = new Writable({
        write(chunk, _encoding, done) {
          theirs += String(chunk);
          done();
        },
      });
      const logger = pino({ base: { service: 'csr' }, timestamp: () => ',"time":"2026-11-24T05:00:00.000Z"' }, sink).child({ log: 'access' });
      logger.info({ request_id: requestId, method, route: 'unmatched', path, status: 404, duration_ms: 0.12, bytes: 149, account }, 'request');
      t.same(JSON.parse(ours), JSON.parse(theirs), `same fields for ${JSON.stringify(path)}`);
      t.ok(ours.endsWith('}\n') && !ours.slice(0, -1).includes('\n'), 'one line');
    }
  }
});
