/**
 * Webhook deliveries are at least once across a kill -9 (docs/webhooks.md), with a real receiver
 * on a local port and the service as a child process on one DATA_DIR: a delivery committed with its
 * analysis and never attempted (WEBHOOK_DELIVERY off) is sent by the restarted service; one whose
 * attempt the kill cut short is sent again; and across 100 events, with a kill in the middle and a
 * receiver that turns some first attempts away, none is lost. Every request's signature verifies.
 * Full lane (package.json tap.exclude): it kills processes and waits for retries.
 */
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { projectRoot } from '../../src/paths.js';
import { verifySignature } from '../../src/webhooks/signing.js';
import { startChildService, type ChildService } from '../helpers/child-service.js';
import { finding, primarySignals } from '../helpers/findings.js';
import { startReceiver, type Received } from './receiver.js';

const signals = primarySignals('HIPAA', 3);
const receiver = await startReceiver();
t.teardown(() => receiver.close());
const eventOf = (request: Received) => JSON.parse(request.body) as { id: string; type: string; data: { analysis_id: string } };

/** A DATA_DIR with a Teams key, and a way to start the service over it. */
function setUp(t: Test, account: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-webhook-durability-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const created = execFileSync(process.execPath, [join(projectRoot, 'bin', 'csr.js'), 'keys', 'create', '--account', account, '--tier', 'teams'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  const key = created.trim().split('\n').at(-1)!;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let running: ChildService | undefined;
  t.teardown(() => running?.kill());
  const start = async (env: Record<string, string> = {}) => {
    running = await startChildService({ DATA_DIR: dataDir, WORKERS: '1', WEBHOOK_ALLOW_PRIVATE: 'true', ...env });
    return running;
  };
  const post = async (service: ChildService, path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await response.json()) as { data: Record<string, any> };
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
    return json.data;
  };
  const analyse = async (service: ChildService, n: number) =>
    (
      await post(service, '/v1/gap-analysis', {
        scope: 'prod',
        frameworks: ['HIPAA'],
        findings: signals.map((s, i) => finding(`f-${n}-${i}`, s.signal_id, 'open')),
      })
    ).id as string;
  const deliveries = async (service: ChildService, webhook: string) =>
    (await (await fetch(`${service.url}/v1/webhooks/${webhook}/deliveries?per_page=100`, { headers })).json()) as { data: any[]; meta: { total: number } };
  return { start, post, analyse, deliveries };
}

t.test('committed and never attempted: the restarted service delivers it', async (t) => {
  const { start, post, analyse } = setUp(t, 'never-attempted');
  const quiet = await start({ WEBHOOK_DELIVERY: 'off' });
  const webhook = await post(quiet, '/v1/webhooks', { url: `${receiver.url}?case=quiet`, events: ['analysis.created'] });
  const id = await analyse(quiet, 1);
  t.equal(receiver.received.filter((r) => r.path.includes('case=quiet')).length, 0, 'this node sends nothing');
  await quiet.kill();
  await start();
  const request = await receiver.next((r) => r.path.includes('case=quiet') && eventOf(r).data.analysis_id === id, 'the delivery after the restart');
  t.ok(verifySignature(webhook.secret, String(request.headers['csr-signature']), request.body, Math.floor(Date.now() / 1000)), 'signed');
});

t.test('an attempt cut short by kill -9 is made again after the restart', async (t) => {
  const { start, post, analyse, deliveries } = setUp(t, 'cut-short');
  let hold = true;
  const held: ServerResponse[] = [];
  receiver.answer = (request, response) => {
    if (hold && request.path.includes('case=held')) held.push(response);
    else response.end('ok');
  };
  t.teardown(() => {
    receiver.answer = (_request, response) => response.end('ok');
  });
  const first = await start();
  const webhook = await post(first, '/v1/webhooks', { url: `${receiver.url}?case=held`, events: ['analysis.created'] });
  const id = await analyse(first, 1);
  const cut = await receiver.next((r) => r.path.includes('case=held') && eventOf(r).data.analysis_id === id, 'the first attempt');
  t.equal(cut.headers['csr-delivery-attempt'], '1');
  await first.kill();
  hold = false;
  held.forEach((response) => response.destroy());
  const second = await start();
  const again = await receiver.next((r) => r !== cut && r.path.includes('case=held') && eventOf(r).data.analysis_id === id, 'the attempt after the restart');
  t.equal(eventOf(again).id, eventOf(cut).id, 'the same event');
  t.equal(again.headers['csr-delivery-id'], cut.headers['csr-delivery-id'], 'the same delivery');
  t.ok(verifySignature(webhook.secret, String(again.headers['csr-signature']), again.body, Math.floor(Date.now() / 1000)), 'signed afresh');
  await new Promise<void>((resolve, reject) => {
    const check = async () => {
      try {
        const record = (await deliveries(second, webhook.id)).data[0];
        if (record?.status === 'delivered') resolve();
        else setTimeout(check, 20);
      } catch (error) {
        reject(error);
      }
    };
    void check();
  });
  t.pass('recorded delivered');
});

t.test('100 events, a kill -9 among them and a receiver that turns some away: none lost', async (t) => {
  const { start, post, analyse } = setUp(t, 'hundred');
  const accepted = new Set<string>();
  const seen = new Map<string, number>();
  let secret = '';
  let badSignatures = 0;
  let allAccepted: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allAccepted = resolve));
  const acknowledged = new Set<string>();
  receiver.answer = (request, response) => {
    if (!request.path.includes('case=hundred')) return void response.end('ok');
    if (!verifySignature(secret, String(request.headers['csr-signature']), request.body, Math.floor(Date.now() / 1000))) badSignatures += 1;
    const event = eventOf(request);
    const times = (seen.get(event.id) ?? 0) + 1;
    seen.set(event.id, times);
    // Every fourth event is turned away the first time: it must come back.
    if (times === 1 && seen.size % 4 === 0) {
      response.writeHead(503);
      response.end();
      return;
    }
    accepted.add(event.data.analysis_id);
    response.end('ok');
    if (acknowledged.size === 100 && [...acknowledged].every((id) => accepted.has(id))) allAccepted();
  };
  t.teardown(() => {
    receiver.answer = (_request, response) => response.end('ok');
  });
  let service = await start();
  secret = (await post(service, '/v1/webhooks', { url: `${receiver.url}?case=hundred`, events: ['analysis.created'] })).secret;
  for (let n = 0; n < 50; n++) acknowledged.add(await analyse(service, n));
  await service.kill();
  service = await start();
  for (let n = 50; n < 100; n++) acknowledged.add(await analyse(service, n));
  if ([...acknowledged].every((id) => accepted.has(id))) allAccepted();
  await done;
  t.equal(acknowledged.size, 100, '100 analyses acknowledged');
  t.ok(
    [...acknowledged].every((id) => accepted.has(id)),
    'each one delivered and accepted',
  );
  t.equal(badSignatures, 0, 'every request signed');
  t.ok(
    [...seen.values()].some((times) => times > 1),
    'some came twice: retried, or sent again after the kill',
  );
});
