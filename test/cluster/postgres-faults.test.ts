import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finding, primarySignals } from '../helpers/findings.js';
import { serverMissing, startPostgres, throwaway } from '../helpers/servers.js';
import { until } from '../helpers/wait.js';
import { call, cliKey, paced, postgresProcesses, startNode, type Sample } from './nodes.js';

/**
 * A node under steady, bounded traffic while its PostgreSQL is paused (SIGSTOP on every one of
 * its processes: connections stay open and nothing answers) and then stopped (fast shutdown, then
 * started again on the same data), 10 s each (docs/cluster.md, "What a failure does"):
 * no 500, no answer lost to a reset, every refusal a 503 store_unavailable with Retry-After within
 * 2 s, /readyz 503 within 2 s while /healthz stays 200, registry reads served throughout, service
 * again within 2 s of the database's return, and every acknowledged analysis still there.
 */
const FAULT_MS = 10_000;
const BOUND_MS = 2_000;
const STORE_ROUTES = new Set(['create', 'read', 'list']);

t.test('PostgreSQL paused and stopped under traffic', { skip: serverMissing('postgres') }, async (t) => {
  const pg = await throwaway(t, startPostgres);
  if (!pg) return;
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-pg-faults-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATABASE_URL: pg.url, DATA_DIR: dataDir };
  const processes = await postgresProcesses(pg.url);
  t.teardown(() => processes.close());
  const node = await startNode(env);
  t.teardown(() => node.stop());
  // The node follows the key directory; its log says why it is slow if it is.
  const writer = await cliKey(env, 'writer', 'enterprise');
  // Teams: an Enterprise account's framework list includes its own frameworks, which live in the store.
  const browser = await cliKey(env, 'browser', 'teams');
  await until(
    async () => (await call(node, 'GET', '/v1/frameworks', writer)).status === 200 && (await call(node, 'GET', '/v1/frameworks', browser)).status === 200,
    'the node knows both keys',
  );

  const signals = primarySignals('HIPAA', 3);
  const acknowledged = new Map<string, Buffer>();
  let counter = 0;

  for (const fault of ['paused', 'stopped'] as const) {
    await t.test(`${fault} for ${FAULT_MS / 1000} s`, async (t) => {
      const samples: Sample[] = [];
      let stopped = false;
      const ids = () => [...acknowledged.keys()];
      const before = acknowledged.size;
      // 950 requests a minute at most on the writer's account (Enterprise: 1,000), 500 on the browser's (Teams: 600).
      const clients = [
        paced(
          samples,
          'create',
          150,
          () => stopped,
          () => {
            const n = ++counter;
            const body = { frameworks: ['HIPAA'], findings: signals.map((s, i) => finding(`f-${i}`, s.signal_id, (n + i) % 2 ? 'open' : 'resolved')) };
            return call(node, 'POST', '/v1/gap-analysis', writer, body, { 'idempotency-key': `${fault}-${n}` });
          },
          (answer) => {
            if (answer.status === 200) acknowledged.set(answer.json().data.id, answer.bytes);
          },
        ),
        paced(
          samples,
          'read',
          150,
          () => stopped,
          () => call(node, 'GET', `/v1/gap-analysis/${ids().at(-1) ?? 'GAP-2026-01-01-0000000000'}`, writer),
        ),
        paced(
          samples,
          'list',
          400,
          () => stopped,
          () => call(node, 'GET', '/v1/gap-analysis/summary?per_page=5', writer),
        ),
        paced(
          samples,
          'registry',
          120,
          () => stopped,
          () => call(node, 'GET', '/v1/frameworks', browser),
        ),
        paced(
          samples,
          'readyz',
          100,
          () => stopped,
          () => call(node, 'GET', '/readyz'),
        ),
        paced(
          samples,
          'healthz',
          200,
          () => stopped,
          () => call(node, 'GET', '/healthz'),
        ),
      ];
      try {
        await until(() => acknowledged.size >= before + 3, 'three analyses stored before the fault');
        const faultAt = Date.now();
        if (fault === 'paused') processes.pause();
        else await processes.stop();
        // The fault lasts its 10 s: that is the scenario, not a wait for an outcome.
        await new Promise((resolve) => setTimeout(resolve, FAULT_MS - (Date.now() - faultAt)));
        if (fault === 'paused') processes.resume();
        else await processes.start();
        const backAt = Date.now();
        const answeredAfter = (what: (s: Sample) => boolean) => samples.find((s) => s.at >= backAt && what(s));
        await until(
          () => !!answeredAfter((s) => STORE_ROUTES.has(s.what) && s.status === 200) && !!answeredAfter((s) => s.what === 'readyz' && s.status === 200),
          'the node serves stored analyses again',
        );
        const recoveredAt = Date.now();
        await until(() => samples.some((s) => s.what === 'create' && s.status === 200 && s.at > recoveredAt + 500), 'creates after recovery');
        stopped = true;
        await Promise.all(clients);

        const during = samples.filter((s) => s.at >= faultAt && s.at < backAt);
        const store503 = during.filter((s) => STORE_ROUTES.has(s.what) && s.status === 503);
        t.ok(store503.length > 0, `the fault was felt: ${store503.length} store requests refused while it lasted`);
        t.same(
          samples.filter((s) => s.status === 'error').map((s) => `${s.what}: ${s.code}`),
          [],
          'every request got an HTTP answer (no reset)',
        );
        t.same(
          samples.filter((s) => s.status === 500).map((s) => `${s.what}: ${s.code}`),
          [],
          'no 500',
        );
        const refusals = samples.filter((s) => s.status === 503 && s.what !== 'readyz');
        t.same(
          refusals.filter((s) => s.code !== 'store_unavailable' || s.retryAfter !== '1' || !STORE_ROUTES.has(s.what)).map((s) => `${s.what}: ${s.code}`),
          [],
          `every refusal (${refusals.length}) is a store request answered 503 store_unavailable with Retry-After: 1`,
        );
        const slowest = Math.max(...samples.map((s) => s.ms));
        t.ok(slowest <= BOUND_MS, `every answer within ${BOUND_MS} ms (slowest ${Math.round(slowest)} ms)`);
        t.same(
          samples.filter((s) => s.what === 'registry' && s.status !== 200).map((s) => s.status),
          [],
          `registry reads served throughout (${samples.filter((s) => s.what === 'registry').length})`,
        );
        t.same(
          samples.filter((s) => s.what === 'healthz' && s.status !== 200).map((s) => s.status),
          [],
          '/healthz stays 200',
        );
        const unready = samples.find((s) => s.what === 'readyz' && s.at >= faultAt && s.status === 503);
        const unreadyAfter = unready ? unready.at + unready.ms - faultAt : Number.POSITIVE_INFINITY;
        t.ok(unreadyAfter <= BOUND_MS, `/readyz answered 503 ${Math.round(unreadyAfter)} ms into the fault`);
        const firstStored = answeredAfter((s) => STORE_ROUTES.has(s.what) && s.status === 200)!;
        const firstReady = answeredAfter((s) => s.what === 'readyz' && s.status === 200)!;
        const recovery = Math.max(firstStored.at + firstStored.ms, firstReady.at + firstReady.ms) - backAt;
        t.ok(recovery <= BOUND_MS, `served again ${Math.round(recovery)} ms after PostgreSQL returned (ready and a store request answered 200)`);
        const afterRecovery = samples.filter((s) => s.at > recoveredAt && STORE_ROUTES.has(s.what));
        t.same(
          afterRecovery.filter((s) => s.status !== 200 && !(s.what === 'read' && s.status === 404)).map((s) => `${s.what}: ${s.status} ${s.code}`),
          [],
          `and every store request after that succeeds (${afterRecovery.length})`,
        );
      } finally {
        stopped = true;
        processes.resume();
        await Promise.all(clients);
      }
    });
  }

  await t.test('no acknowledged analysis was lost', async (t) => {
    let readable = 0;
    for (const [id, bytes] of acknowledged) {
      const read = await call(node, 'GET', `/v1/gap-analysis/${id}`, writer);
      if (read.status === 200 && read.bytes.equals(bytes)) readable += 1;
    }
    t.equal(readable, acknowledged.size, `every acknowledged analysis (${acknowledged.size}) reads back byte for byte`);
  });
  await node.stop();
  await processes.close();
});
