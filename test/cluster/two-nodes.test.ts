import t from 'tap';
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/paths.js';
import { finding, primarySignals } from '../helpers/findings.js';
import { serverMissing, startPostgres, startRedis, throwaway } from '../helpers/servers.js';
import { startChildService } from '../helpers/child-service.js';

/**
 * Two service processes on one PostgreSQL and one Redis, as docs/cluster.md lays them out: what
 * one node stores or changes, the other sees; rate limits count across both; a node killed with
 * SIGKILL loses nothing it acknowledged.
 */
const csr = join(projectRoot, 'dist', 'src', 'cli', 'csr.js');
const run = promisify(execFile);

interface Node {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A service process as an operator starts it (test/helpers/child-service.ts), one worker thread. */
async function startNode(env: Record<string, string>): Promise<Node> {
  const service = await startChildService({ ...env, WORKERS: '1' });
  return {
    url: service.url,
    child: service.process,
    async stop() {
      await service.stop();
    },
  };
}

async function call(node: Node, method: string, path: string, key?: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${node.url}${path}`, {
    method,
    headers: { ...(key && { authorization: `Bearer ${key}` }), ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(bytes.toString()) };
}

async function cli(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [csr, ...args], { env: { ...process.env, ...env } });
  return stdout;
}

/**
 * Asks `check` until it holds (a node's key directory is seen only through its answers, so it is
 * asked again every 10 ms); returns whether it held within `ms` and how long it took. The nodes
 * follow the directory within a second (docs/cluster.md); the bound here is wider so that a
 * loaded machine does not decide the outcome, and the time taken is in the assertion's message.
 */
async function within(ms: number, check: () => Promise<boolean>): Promise<{ ok: boolean; took: number }> {
  const started = Date.now();
  for (;;) {
    if (await check()) return { ok: true, took: Date.now() - started };
    if (Date.now() - started > ms) return { ok: false, took: Date.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const PROPAGATION_BOUND_MS = 10_000;

t.test('two nodes on one PostgreSQL and one Redis', { skip: serverMissing('postgres', 'redis') }, async (t) => {
  const postgres = await throwaway(t, startPostgres);
  if (!postgres) return;
  const redis = await throwaway(t, startRedis);
  if (!redis) return;
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-cluster-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // DATA_DIR points at an empty dir: if anything fell back to LMDB, the nodes would disagree.
  const env = { DATABASE_URL: postgres.url, REDIS_URL: redis.url, DATA_DIR: dataDir };
  const [a, b] = await Promise.all([startNode(env), startNode(env)]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));

  const teamsKey = (await cli(env, 'keys', 'create', '--account', 'acme', '--tier', 'teams')).trim().split('\n').at(-1)!;
  t.test('both nodes report shared rate limits', async (t) => {
    for (const node of [a, b]) t.same((await call(node, 'GET', '/readyz')).json().rate_limits, { store: 'redis', shared: true, fallbacks: 0 });
  });

  t.test('a key made with the CLI works on both nodes', async (t) => {
    for (const [name, node] of [
      ['A', a],
      ['B', b],
    ] as const) {
      const { ok, took } = await within(PROPAGATION_BOUND_MS, async () => (await call(node, 'GET', '/v1/frameworks', teamsKey)).status === 200);
      t.ok(ok, `node ${name} accepts it (${took} ms after the CLI returned)`);
    }
  });

  t.test('an analysis made on A is read, listed, compared and exported on B', async (t) => {
    const [s1, s2] = primarySignals('HIPAA', 2);
    const first = await call(a, 'POST', '/v1/gap-analysis', teamsKey, { frameworks: ['HIPAA'], findings: [finding('f-1', s1.signal_id, 'open')] });
    t.equal(first.status, 200, first.bytes.toString().slice(0, 200));
    const second = await call(a, 'POST', '/v1/gap-analysis', teamsKey, {
      frameworks: ['HIPAA'],
      findings: [finding('f-1', s1.signal_id, 'resolved'), finding('f-2', s2.signal_id, 'open')],
    });
    const [id1, id2] = [first.json().data.id, second.json().data.id];

    const read = await call(b, 'GET', `/v1/gap-analysis/${id1}`, teamsKey);
    t.equal(read.status, 200);
    t.ok(read.bytes.equals(first.bytes), 'B sends the bytes A answered');
    t.equal(read.headers.get('x-analysis-expires-at'), first.headers.get('x-analysis-expires-at'));

    const listed = await call(b, 'GET', '/v1/gap-analysis/summary', teamsKey);
    t.same(
      listed.json().data.analyses.map((e: { id: string }) => e.id),
      [id2, id1],
      'listed on B, newest first',
    );

    const compared = await call(b, 'POST', '/v1/gap-analysis/compare', teamsKey, { baseline_id: id1, current_id: id2 });
    t.equal(compared.status, 200, compared.bytes.toString().slice(0, 200));
    t.same([compared.json().data.comparison.baseline.id, compared.json().data.comparison.current.id], [id1, id2], 'B compared the two');

    const exported = await call(b, 'GET', `/v1/gap-analysis/${id1}/export?format=csv`, teamsKey);
    t.equal(exported.status, 200);
    t.match(exported.headers.get('content-type') ?? '', /text\/csv/);
    t.match(exported.bytes.toString(), new RegExp(s1.signal_id), 'the export holds the finding');

    const otherKey = (await cli(env, 'keys', 'create', '--account', 'rival', '--tier', 'teams')).trim().split('\n').at(-1)!;
    await within(PROPAGATION_BOUND_MS, async () => (await call(b, 'GET', '/v1/frameworks', otherKey)).status === 200);
    t.equal((await call(b, 'GET', `/v1/gap-analysis/${id1}`, otherKey)).status, 404, 'another account cannot read it on B either');
  });

  t.test('the 61st Community request of a minute, spread over both nodes, is 429', async (t) => {
    // Windows are UTC minutes of the nodes' real clocks. A run that a minute boundary cut is run
    // again with a fresh key, now at the start of a minute; no wait for the clock.
    for (let attempt = 1; ; attempt++) {
      const minute = Math.floor(Date.now() / 60_000);
      const communityKey = (await cli(env, 'keys', 'create', '--account', `hobbyist-${attempt}`, '--tier', 'community')).trim().split('\n').at(-1)!;
      // Asked until both nodes know the key. Those answers count on the account too, so the run
      // goes on from them; a 401 (the key not known yet) counts on the address instead.
      const answers: Array<{ status: number; remaining: string }> = [];
      const send = async (node: Node) => {
        const response = await call(node, 'GET', '/v1/frameworks', communityKey);
        if (response.status !== 401) answers.push({ status: response.status, remaining: response.headers.get('x-ratelimit-remaining') ?? '' });
        return response.status;
      };
      await within(PROPAGATION_BOUND_MS, async () => (await send(a)) === 200);
      await within(PROPAGATION_BOUND_MS, async () => (await send(b)) === 200);
      // Bounded: were the key refused for good, 401s would never end the run.
      for (let sent = 0; answers.length < 61 && sent < 500; sent++) await send(answers.length % 2 ? b : a);
      const statuses = answers.map((answer) => answer.status);
      const remaining = answers.map((answer) => answer.remaining);
      const other = await call(answers.length % 2 ? b : a, 'GET', '/v1/frameworks', communityKey);
      if (Math.floor(Date.now() / 60_000) !== minute && attempt < 3) {
        t.comment(`attempt ${attempt} crossed a minute boundary; again with a fresh key`);
        continue;
      }
      t.same(statuses.slice(0, 60), Array(60).fill(200), 'the first 60 pass, spread over both nodes');
      t.equal(statuses[60], 429, 'the 61st is refused');
      t.same(
        remaining.slice(0, 60),
        Array.from({ length: 60 }, (_, i) => String(59 - i)),
        'one count across both nodes',
      );
      t.equal(other.status, 429, 'and on the other node too');
      return;
    }
  });

  t.test('a revoked key is 401 on both nodes', async (t) => {
    const key = (await cli(env, 'keys', 'create', '--account', 'leaver', '--tier', 'pro')).trim().split('\n').at(-1)!;
    await within(
      PROPAGATION_BOUND_MS,
      async () => (await call(a, 'GET', '/v1/frameworks', key)).status === 200 && (await call(b, 'GET', '/v1/frameworks', key)).status === 200,
    );
    await cli(env, 'keys', 'revoke', key);
    for (const [name, node] of [
      ['A', a],
      ['B', b],
    ] as const) {
      const { ok, took } = await within(PROPAGATION_BOUND_MS, async () => (await call(node, 'GET', '/v1/frameworks', key)).status === 401);
      t.ok(ok, `node ${name} refuses it ${took} ms after the CLI returned`);
    }
  });

  t.test('A killed with SIGKILL during a stream of creates: B serves, and holds every analysis A acknowledged', async (t) => {
    const signals = primarySignals('SOC2', 4);
    const acknowledged = new Map<string, { id: string; bytes: Buffer }>();
    const sent: Array<{ idempotencyKey: string; body: unknown }> = [];
    let stop = false;
    let counter = 0;
    const stream = async () => {
      while (!stop) {
        const idempotencyKey = `stream-${++counter}`;
        const body = { frameworks: ['SOC2'], findings: signals.map((s, i) => finding(`f-${i}`, s.signal_id, (counter + i) % 3 ? 'open' : 'resolved')) };
        sent.push({ idempotencyKey, body });
        try {
          const response = await call(a, 'POST', '/v1/gap-analysis', teamsKey, body, { 'idempotency-key': idempotencyKey });
          if (response.status === 200) acknowledged.set(idempotencyKey, { id: response.json().data.id, bytes: response.bytes });
        } catch {
          // The connection died with A: this request was not acknowledged.
        }
      }
    };
    const streams = [stream(), stream(), stream()];
    await within(20_000, async () => acknowledged.size >= 30);
    a.child.kill('SIGKILL');
    const servedMeanwhile = await call(b, 'GET', '/v1/frameworks', teamsKey);
    stop = true;
    await Promise.all(streams);
    t.equal(servedMeanwhile.status, 200, 'B answered while A died');
    t.ok(acknowledged.size >= 30, `${acknowledged.size} creates acknowledged by A before the kill, ${sent.length} sent`);

    let readable = 0;
    for (const { id, bytes } of acknowledged.values()) {
      const read = await call(b, 'GET', `/v1/gap-analysis/${id}`, teamsKey);
      if (read.status === 200 && read.bytes.equals(bytes)) readable += 1;
    }
    t.equal(readable, acknowledged.size, 'every acknowledged analysis is readable on B, byte for byte');

    // The client retries everything it sent on B with the same Idempotency-Key: acknowledged creates
    // replay, the ones cut off either replay (stored before the kill) or run now; none is stored twice.
    let replayed = 0;
    for (const { idempotencyKey, body } of sent) {
      const retry = await call(b, 'POST', '/v1/gap-analysis', teamsKey, body, { 'idempotency-key': idempotencyKey });
      t.equal(retry.status, 200, `retry of ${idempotencyKey}`);
      const earlier = acknowledged.get(idempotencyKey);
      if (earlier) {
        t.ok(retry.bytes.equals(earlier.bytes), `${idempotencyKey}: the same answer`);
        t.equal(retry.headers.get('idempotent-replayed'), 'true');
      }
      if (retry.headers.get('idempotent-replayed') === 'true') replayed += 1;
    }
    const list = await call(b, 'GET', '/v1/gap-analysis/summary?per_page=1', teamsKey);
    t.equal(
      list.json().meta.total,
      2 + sent.length,
      `one analysis per key sent (${replayed} of ${sent.length} retries were replays), plus the two made earlier`,
    );
  });
});
