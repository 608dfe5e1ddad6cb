/**
 * The webhook store's contract on LMDB and PostgreSQL (SKIPPED without its binaries): webhooks per
 * account with their limit; deliveries written by an analysis's save, one per subscribed webhook
 * and event, in the same commit; claims that hand a due delivery to one dispatcher at a time, skip
 * busy webhooks and wait for the due time; attempts recorded; deletion and the sweep.
 */
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStores } from '../../src/store/open.js';
import type { Stores } from '../../src/store/types.js';
import type { WebhookEventDraft, WebhookRecord } from '../../src/store/webhooks.js';
import type { PostureFacts } from '../../src/gap/posture-facts.js';
import { createDatabase, startPostgres, throwaway } from '../helpers/servers.js';

const at = (seconds: number) => new Date(Date.parse('2026-11-28T00:00:00Z') + seconds * 1000);
const facts: PostureFacts = {
  scope: null,
  overall: { score: 50, status: 'non_compliant', coverage: 0.1 },
  frameworks: { HIPAA: { score: 50, status: 'non_compliant', coverage: 0.1, controls_assessed: 2, controls_total: 20 } },
  controls: { HIPAA: { compliant: ['a'], partially_compliant: [], non_compliant: ['b'] } },
};
const webhook = (account: string, id: string, events: WebhookRecord['events']): WebhookRecord => ({
  id,
  account,
  url: `https://example.com/${id}`,
  events,
  secret: `whsec_${id}`,
  created_at: at(0).toISOString(),
});
const event = (id: string, type: WebhookEventDraft['type'], seconds: number): WebhookEventDraft => ({
  id,
  type,
  created_at: at(seconds).toISOString(),
  body: JSON.stringify({ id, type }),
});

async function save(stores: Stores, account: string, id: string, seconds: number, events: WebhookEventDraft[]) {
  return stores.analyses.save(
    {
      id,
      account,
      created_at: at(seconds).toISOString(),
      expires_at: at(seconds + 86_400).toISOString(),
      frameworks: ['HIPAA'],
      posture_status: 'non_compliant',
      posture_score: 50,
      critical_gaps: 0,
      high_gaps: 0,
      status: 'completed',
    },
    Buffer.from(id),
    undefined,
    { facts, events: () => events },
  );
}

/** `open` gives the stores over a fresh place, and `reopen` the same place again, as a restarted process would. */
function contract(t: Test, open: () => Promise<{ stores: Stores; reopen: () => Promise<Stores> }>) {
  t.test('webhooks, deliveries and claims', async (t) => {
    const { stores, reopen } = await open();
    let closed = false;
    t.teardown(() => (closed ? undefined : stores.close()));
    const { webhooks } = stores;
    t.same(await webhooks.create(webhook('acme', 'wh_1', ['analysis.created', 'posture.regressed']), 2), { created: true });
    t.same(await webhooks.create(webhook('acme', 'wh_2', ['posture.regressed']), 2), { created: true });
    t.same(await webhooks.create(webhook('acme', 'wh_3', ['analysis.created']), 2), { created: false, count: 2 }, 'the limit');
    t.same(await webhooks.create(webhook('rival', 'wh_4', ['analysis.created']), 2), { created: true }, 'per account');
    t.same(
      (await webhooks.list('acme')).map((w) => w.id),
      ['wh_1', 'wh_2'],
    );
    t.equal((await webhooks.get('rival', 'wh_1')) ?? null, null, "another account's is not found");

    const outcome = await save(stores, 'acme', 'GAP-1', 10, [event('evt_1', 'analysis.created', 10), event('evt_2', 'posture.regressed', 10)]);
    t.same(outcome, { stored: true, deliveries: 3 }, 'one delivery per subscribed webhook and event, in the save');
    t.same(await save(stores, 'nobody', 'GAP-2', 10, [event('evt_3', 'analysis.created', 10)]), { stored: true, deliveries: 0 }, 'no webhooks, no deliveries');

    t.same(await webhooks.claim(at(9), 10, { leaseMs: 60_000, busyWebhooks: [] }), [], 'nothing due before the event');
    const busy = await webhooks.claim(at(11), 10, { leaseMs: 60_000, busyWebhooks: ['wh_1'] });
    t.same(
      busy.map((d) => [d.webhook_id, d.event_id]),
      [['wh_2', 'evt_2']],
      'a busy webhook is skipped',
    );
    t.equal(busy[0].url, 'https://example.com/wh_2');
    t.equal(busy[0].secret, 'whsec_wh_2');
    const [first, second] = await Promise.all([
      webhooks.claim(at(11), 10, { leaseMs: 60_000, busyWebhooks: [] }),
      webhooks.claim(at(11), 10, { leaseMs: 60_000, busyWebhooks: [] }),
    ]);
    const claimed = [...first, ...second].map((d) => d.id);
    t.equal(claimed.length, 2, 'the two others, each to one claimer only');
    t.equal(new Set(claimed).size, 2);
    t.same(await webhooks.claim(at(12), 10, { leaseMs: 60_000, busyWebhooks: [] }), [], 'taken ones are not handed out again meanwhile');

    const delivery = [...first, ...second][0];
    await webhooks.finish(delivery, {
      status: 'pending',
      attempted_at: at(12).toISOString(),
      next_attempt_at: at(20).toISOString(),
      response_status: 503,
      error: 'answered HTTP 503',
    });
    t.same(await webhooks.claim(at(19), 10, { leaseMs: 60_000, busyWebhooks: [] }), [], 'a retry waits for its time');
    const again = await webhooks.claim(at(21), 10, { leaseMs: 60_000, busyWebhooks: [] });
    t.same(
      again.map((d) => [d.id, d.attempts, d.last_response_status]),
      [[delivery.id, 1, 503]],
      'then is due again, with its last attempt',
    );
    await webhooks.finish(again[0], { status: 'delivered', attempted_at: at(22).toISOString(), next_attempt_at: null, response_status: 200, error: null });
    const records = await webhooks.deliveries('acme', delivery.webhook_id, { offset: 0, limit: 10 });
    t.match(
      records.items.find((d) => d.id === delivery.id),
      { status: 'delivered', attempts: 2, last_response_status: 200, last_error: null, delivered_at: at(22).toISOString(), next_attempt_at: null },
    );
    t.same(await webhooks.claim(at(30), 10, { leaseMs: 60_000, busyWebhooks: [] }), [], 'delivered ones are never due, taken ones not while taken');

    // A dispatcher that died holding two: another (PostgreSQL, once the lease has passed) or the restarted process (LMDB) takes them.
    await stores.close();
    closed = true;
    const after = await reopen();
    t.teardown(() => after.close());
    const retaken = await after.webhooks.claim(at(100), 10, { leaseMs: 60_000, busyWebhooks: [] });
    t.same(retaken.map((d) => d.id).sort(), [busy[0].id, [...first, ...second][1].id].sort(), 'unfinished deliveries are handed out again');

    t.equal(await after.webhooks.sweep(at(5)), 0, 'nothing finished before then');
    t.equal(await after.webhooks.sweep(at(30)), 1, 'the sweep removes the finished record');
    t.equal((await after.webhooks.delete('acme', 'wh_1'))?.id, 'wh_1');
    t.same((await after.webhooks.deliveries('acme', 'wh_1', { offset: 0, limit: 10 })).items, [], 'its deliveries go with it');
    t.equal(await after.webhooks.delete('acme', 'wh_1'), undefined);
  });
}

t.test('lmdb', async (t) => {
  const dirs: string[] = [];
  t.teardown(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  contract(t, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csr-webhook-store-'));
    dirs.push(dir);
    return { stores: await openStores({ dataDir: dir }), reopen: () => openStores({ dataDir: dir }) };
  });
});

t.test('postgres', async (t) => {
  const server = await throwaway(t, startPostgres);
  if (!server) return;
  let n = 0;
  contract(t, async () => {
    const databaseUrl = createDatabase(server.url, `webhook_store_${++n}`);
    return { stores: await openStores({ dataDir: '/nonexistent', databaseUrl }), reopen: () => openStores({ dataDir: '/nonexistent', databaseUrl }) };
  });
});
