/**
 * Webhooks (docs/webhooks.md) with a real HTTP receiver on a local port: registration, reading,
 * deleting and refusals; every delivery signed and the signature verified as a receiver would; a
 * regression delivered within 5 seconds of its analysis, on LMDB and on PostgreSQL (SKIPPED
 * without its binaries); private addresses refused when the operator forbids them, at registration
 * and at delivery; slow, redirecting, huge-answering and absent receivers bounded and recorded
 * while the API answers.
 */
import t, { type Test } from 'tap';
import { createServer } from 'node:net';
import { startTestService, call, type TestService } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';
import { until } from '../helpers/wait.js';
import { createDatabase, startPostgres, throwaway } from '../helpers/servers.js';
import { verifySignature } from '../../src/webhooks/signing.js';
import { attemptDelivery } from '../../src/webhooks/deliver.js';
import { WEBHOOK_EVENTS } from '../../src/store/webhooks.js';
import { WEBHOOK_EVENT_NAMES } from '../../src/schemas/webhooks.js';
import { startReceiver, type Received } from './receiver.js';

const ALL_EVENTS = ['analysis.created', 'posture.regressed', 'control.regressed'];
const signals = primarySignals('HIPAA', 4);
const receiver = await startReceiver();
t.teardown(() => receiver.close());

const register = (service: TestService, key: string, url: string, events = ALL_EVENTS) => call(service, 'POST', '/v1/webhooks', { key, body: { url, events } });
const analyse = async (service: TestService, key: string, status: string, scope = 'prod') => {
  const res = await call(service, 'POST', '/v1/gap-analysis', {
    key,
    body: { scope, frameworks: ['HIPAA'], findings: signals.map((s, i) => finding(`f-${i}`, s.signal_id, status)) },
  });
  if (res.status !== 200) throw new Error(res.text.slice(0, 300));
  return { id: res.body.data.id as string, at: Date.now() };
};
const eventOf = (request: Received) => JSON.parse(request.body) as { id: string; type: string; created_at: string; data: Record<string, any> };
const nowSeconds = () => Math.floor(Date.now() / 1000);

t.test('the event names are one list', async (t) => {
  t.same([...WEBHOOK_EVENT_NAMES], [...WEBHOOK_EVENTS]);
});

/** Signature and regression, on one store. */
async function regressionSuite(t: Test, service: TestService) {
  const key = await service.key('teams');
  const created = await register(service, key, `${receiver.url}?suite=${service.port}`);
  t.equal(created.status, 200, created.text.slice(0, 300));
  const { id, secret } = created.body.data;
  t.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/, 'the secret, answered once');
  const mine = (request: Received) => request.path.includes(`suite=${service.port}`);

  const first = await analyse(service, key, 'false_positive');
  const createdEvent = await receiver.next((r) => mine(r) && eventOf(r).data.analysis_id === first.id, 'analysis.created');
  t.equal(createdEvent.headers['csr-event-type'], 'analysis.created');
  t.ok(verifySignature(secret, String(createdEvent.headers['csr-signature']), createdEvent.body, nowSeconds()), 'the signature verifies with the secret');
  t.notOk(verifySignature(`${secret}x`, String(createdEvent.headers['csr-signature']), createdEvent.body, nowSeconds()), 'and not with another');
  t.notOk(verifySignature(secret, String(createdEvent.headers['csr-signature']), `${createdEvent.body} `, nowSeconds()), 'nor over another body');
  t.match(eventOf(createdEvent), { type: 'analysis.created', data: { scope: 'prod', frameworks: ['HIPAA'], posture: { status: 'compliant' } } });
  t.equal(createdEvent.headers['csr-event-id'], eventOf(createdEvent).id);

  const worse = await analyse(service, key, 'open');
  const posture = await receiver.next((r) => mine(r) && eventOf(r).type === 'posture.regressed', 'posture.regressed');
  const controls = await receiver.next((r) => mine(r) && eventOf(r).type === 'control.regressed', 'control.regressed');
  t.ok(posture.at - worse.at < 5000, `posture.regressed arrived ${posture.at - worse.at} ms after the analysis was answered (under 5 s)`);
  t.ok(controls.at - worse.at < 5000, `control.regressed arrived ${controls.at - worse.at} ms after`);
  for (const request of [posture, controls]) t.ok(verifySignature(secret, String(request.headers['csr-signature']), request.body, nowSeconds()), 'signed');
  t.match(eventOf(posture).data, {
    scope: 'prod',
    framework: 'HIPAA',
    analysis_id: worse.id,
    previous_analysis_id: first.id,
    previous: { score: 100, status: 'compliant' },
    current: { score: 0, status: 'non_compliant' },
    score_change: -100,
  });
  const regressedIds = eventOf(controls).data.controls.map((c: any) => c.control_id);
  for (const s of signals) t.ok(regressedIds.includes(s.control_id), `${s.control_id}: compliant then, non-compliant now`);
  t.ok(eventOf(controls).data.controls.every((c: any) => c.previous_status === 'compliant' && c.current_status === 'non_compliant'));

  const same = await analyse(service, key, 'open');
  await receiver.next((r) => mine(r) && eventOf(r).data.analysis_id === same.id, 'the third analysis.created');
  const other = await analyse(service, key, 'open', 'staging');
  await receiver.next((r) => mine(r) && eventOf(r).data.analysis_id === other.id, "the other scope's analysis.created");
  const regressions = receiver.received.filter((r) => mine(r) && eventOf(r).type !== 'analysis.created');
  t.equal(regressions.length, 2, 'no regression when nothing got worse, nor across scopes');

  await until(async () => {
    const deliveries = await call(service, 'GET', `/v1/webhooks/${id}/deliveries?per_page=100`, { key });
    return deliveries.body.data.length === 6 && deliveries.body.data.every((d: any) => d.status === 'delivered');
  }, 'the six deliveries are recorded delivered');
  const deliveries = (await call(service, 'GET', `/v1/webhooks/${id}/deliveries`, { key })).body;
  t.match(deliveries.meta, { total: 6, page: 1, per_page: 20 });
  t.match(deliveries.data[0], { status: 'delivered', attempts: 1, last_response_status: 200, last_error: null, next_attempt_at: null });
  t.notOk('body' in deliveries.data[0], 'records, not payloads');
}

t.test('LMDB: signed deliveries, a regression within 5 s', async (t) => {
  const service = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  t.teardown(() => service.close());
  await regressionSuite(t, service);
});

t.test('PostgreSQL: the same', async (t) => {
  const server = await throwaway(t, startPostgres);
  if (!server) return;
  const service = await startTestService({
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', DATABASE_URL: createDatabase(server.url, 'webhooks'), STORE_TIMEOUT_MS: '15000' },
  });
  t.teardown(() => service.close());
  await regressionSuite(t, service);
});

t.test('registration, reading, deleting, refusals', async (t) => {
  const service = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  t.teardown(() => service.close());
  const key = await service.key('teams');
  const created = (await register(service, key, receiver.url, ['analysis.created'])).body.data;
  const list = await call(service, 'GET', '/v1/webhooks', { key });
  t.same(
    list.body,
    { data: [{ id: created.id, url: receiver.url, events: ['analysis.created'], created_at: created.created_at }], meta: { total: 1 } },
    'listed without its secret',
  );
  const read = await call(service, 'GET', `/v1/webhooks/${created.id}`, { key });
  t.notOk('secret' in read.body.data, 'never answered again');
  const other = await service.key('teams');
  t.equal((await call(service, 'GET', `/v1/webhooks/${created.id}`, { key: other })).status, 404, "another account's is not found");
  t.match((await call(service, 'GET', '/v1/webhooks/wh_nope', { key })).body.error, { code: 'not_found', details: { resource: 'Webhook', id: 'wh_nope' } });
  const pro = await service.key('pro');
  t.match((await call(service, 'GET', '/v1/webhooks', { key: pro })).body.error, { code: 'tier_required', details: { required_tier: 'teams' } });

  for (const [url, reason] of [
    ['ftp://example.com/hook', /scheme ftp:/],
    ['https://user:secret@example.com/hook', /credentials/],
    ['/relative', /absolute URL/],
    ['https://example.com/hook#part', /fragment/],
  ] as const) {
    const res = await register(service, key, url);
    t.equal(res.status, 400, url);
    t.match(res.body.error, { code: 'webhook_url_refused', details: { url, reason } });
  }
  for (const events of [[], ['analysis.deleted'], ['analysis.created', 'analysis.created']]) {
    const res = await register(service, key, receiver.url, events);
    t.match(res.body.error, { code: 'invalid_parameter' }, `events ${JSON.stringify(events)}: 400`);
  }
  for (let i = 1; i < 10; i++) t.equal((await register(service, key, `${receiver.url}?n=${i}`)).status, 200);
  const eleventh = await register(service, key, receiver.url);
  t.equal(eleventh.status, 409);
  t.match(eleventh.body.error, { code: 'webhook_limit_reached', details: { count: 10, limit: 10 } });

  const analysis = await analyse(service, key, 'open');
  await receiver.next((r) => r.headers['csr-event-type'] === 'analysis.created' && eventOf(r).data.analysis_id === analysis.id, 'a delivery');
  const deleted = await call(service, 'DELETE', `/v1/webhooks/${created.id}`, { key });
  t.same(deleted.body.data, { id: created.id, deleted: true });
  t.equal((await call(service, 'GET', `/v1/webhooks/${created.id}/deliveries`, { key })).status, 404, 'its deliveries go with it');
  t.equal((await call(service, 'DELETE', `/v1/webhooks/${created.id}`, { key })).status, 404);
  t.equal((await call(service, 'GET', '/v1/webhooks', { key })).body.meta.total, 9);
});

t.test('private addresses refused when the operator forbids them (the default)', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('teams');
  for (const url of [
    receiver.url,
    `http://localhost:${receiver.port}/hook`,
    `http://[::1]:${receiver.port}/`,
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest',
    'http://[::ffff:127.0.0.1]/',
  ]) {
    const res = await register(service, key, url);
    t.equal(res.status, 400, url);
    t.match(res.body.error, { code: 'webhook_url_refused', details: { reason: /private address/ } }, `${url}: a private address`);
  }
  t.equal((await register(service, key, 'https://93.184.215.14/hook')).status, 200, 'a public address is taken');

  // At delivery too: a name can be pointed inward after registration.
  const before = receiver.received.length;
  const result = await attemptDelivery(
    {
      id: 'dlv_x',
      account: 'a',
      webhook_id: 'wh_x',
      event_id: 'evt_x',
      event_type: 'analysis.created',
      body: '{}',
      created_at: new Date().toISOString(),
      status: 'pending',
      attempts: 0,
      next_attempt_at: null,
      last_attempt_at: null,
      last_response_status: null,
      last_error: null,
      delivered_at: null,
      url: `http://localhost:${receiver.port}/hook`,
      secret: 'whsec_x',
    },
    1,
    { timeoutMs: 2000, maxResponseBytes: 1024, allowPrivate: false },
  );
  t.match(result, { delivered: false, status: null, error: /private address/ });
  t.equal(receiver.received.length, before, 'nothing was sent');
});

t.test('slow, redirecting, huge and absent receivers: bounded, recorded, and the API answers meanwhile', async (t) => {
  const service = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1500' } });
  t.teardown(() => service.close());
  const hook = async (answer: (received: Received, response: import('node:http').ServerResponse) => void) => {
    const own = await startReceiver();
    t.teardown(() => own.close());
    own.answer = answer;
    const key = await service.key('teams');
    const webhook = (await register(service, key, own.url, ['analysis.created'])).body.data;
    const deliveries = async () => (await call(service, 'GET', `/v1/webhooks/${webhook.id}/deliveries`, { key })).body.data as any[];
    return { own, key, webhook, deliveries };
  };

  await t.test('slow: the create answers while the receiver holds its delivery; the attempt times out', async (t) => {
    const held: import('node:http').ServerResponse[] = [];
    const { own, key, deliveries } = await hook((_received, response) => held.push(response));
    t.teardown(() => held.forEach((response) => response.destroy()));
    await analyse(service, key, 'open');
    await own.next(() => true, 'the held delivery');
    const second = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings: [finding('x', signals[0].signal_id)] } });
    t.equal(second.status, 200, 'another analysis is answered');
    t.equal(held[0].writableEnded, false, 'while the receiver still holds the first delivery');
    t.equal((await call(service, 'GET', '/healthz')).status, 200);
    await until(async () => (await deliveries()).some((d) => /no answer within 1500 ms/.test(d.last_error ?? '')), 'the timeout is recorded');
    const timedOut = (await deliveries()).find((d) => /no answer/.test(d.last_error ?? ''));
    t.match(timedOut, { status: 'pending', attempts: 1, last_response_status: null });
    t.ok(Date.parse(timedOut.next_attempt_at) > Date.parse(timedOut.last_attempt_at), 'tried again later');
  });

  await t.test('redirect: recorded, never followed', async (t) => {
    const target = await startReceiver();
    t.teardown(() => target.close());
    const { key, deliveries } = await hook((_received, response) => {
      response.writeHead(302, { location: target.url });
      response.end();
    });
    await analyse(service, key, 'open');
    await until(async () => (await deliveries()).some((d) => d.attempts > 0), 'the attempt is recorded');
    t.match((await deliveries())[0], { status: 'pending', last_response_status: 302, last_error: /redirect not followed/ });
    t.equal(target.received.length, 0, 'the redirect target was never asked');
  });

  await t.test('a huge answer: the status counts, the rest is not read', async (t) => {
    let finished: boolean | undefined;
    const { key, deliveries } = await hook((_received, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const write = () => {
        while (sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', write);
        }
        response.end();
      };
      response.on('close', () => (finished = response.writableFinished));
      write();
    });
    await analyse(service, key, 'open');
    await until(async () => (await deliveries()).some((d) => d.status === 'delivered'), 'delivered');
    await until(() => finished !== undefined, 'the receiver sees the connection close');
    t.equal(finished, false, 'the service hung up before the 64 MB answer was written');
  });

  await t.test('absent: refused, tried again 5 s later', async (t) => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const key = await service.key('teams');
    const webhook = (await register(service, key, `http://127.0.0.1:${port}/hook`, ['analysis.created'])).body.data;
    await analyse(service, key, 'open');
    const deliveries = async () => (await call(service, 'GET', `/v1/webhooks/${webhook.id}/deliveries`, { key })).body.data as any[];
    await until(async () => (await deliveries()).some((d) => d.attempts > 0), 'the attempt is recorded');
    const [delivery] = await deliveries();
    t.match(delivery, { status: 'pending', attempts: 1, last_response_status: null, last_error: /ECONNREFUSED/ });
    const wait = Date.parse(delivery.next_attempt_at) - Date.parse(delivery.last_attempt_at);
    t.ok(wait >= 4500 && wait <= 5500, `next attempt in ${wait} ms (5 s ± 10 %)`);
  });
});
