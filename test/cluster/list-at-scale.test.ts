import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { encodeCursor } from '../../src/store/list-cursor.js';
import { serverMissing, startPostgres, throwaway } from '../helpers/servers.js';
import { until } from '../helpers/wait.js';
import { call, cliKey, percentile, startNode } from './nodes.js';

/**
 * The analyses list of a large account on PostgreSQL (docs/cluster.md, "Listing at scale"):
 * 200,000 analyses, seeded in one statement. A deep page read by cursor costs what page 1 does;
 * `page` stops where skipping rows would cost their reading; the total comes from counts; and 12
 * slow lists of that account at once hold no more than its turns of the node's connections.
 */
const ROWS = 200_000;
const PER_PAGE = 20;
const DEEP_PAGE = 10_000;

t.test('listing a 200,000-analysis account', { skip: serverMissing('postgres') }, async (t) => {
  const pg = await throwaway(t, startPostgres);
  if (!pg) return;
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-list-scale-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATABASE_URL: pg.url, DATA_DIR: dataDir };
  const node = await startNode(env);
  t.teardown(() => node.stop());
  const big = await cliKey(env, 'big', 'enterprise');
  const small = await cliKey(env, 'small', 'enterprise');
  await until(async () => (await call(node, 'GET', '/v1/gap-analysis/summary', big)).status === 200, 'the node knows the key');

  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  t.teardown(() => sql.end());
  // Newest first is i = 0; every tenth second has two analyses, so that ties are broken by id.
  const started = Date.now();
  await sql`
    INSERT INTO analyses (id, account, created_at, expires_at, frameworks, posture_status, posture_score, critical_gaps, high_gaps, status, payload)
    SELECT 'GAP-2026-11-01-' || lpad(i::text, 10, '0'), 'big', timestamptz '2026-11-01' - (i - i / 10) * interval '1 second',
           now() + interval '30 days', ARRAY['HIPAA'], 'at_risk', 50, 0, 1, 'completed', '\\x00'::bytea
    FROM generate_series(0, ${ROWS - 1}) AS i`;
  await sql`ANALYZE analyses`;
  t.comment(`${ROWS} analyses seeded in ${Date.now() - started} ms`);
  for (let i = 0; i < 3; i++) await call(node, 'POST', '/v1/gap-analysis', small, { frameworks: ['HIPAA'], findings: [] });

  const timed = async (path: string, key = big) => {
    const before = performance.now();
    const answer = await call(node, 'GET', path, key);
    return { answer, ms: performance.now() - before };
  };

  await t.test('a deep page by cursor costs what page 1 does', async (t) => {
    // The cursor a client holds after reading page 9,999: the last analysis of that page.
    const [last] = await sql<{ id: string; created_at: Date }[]>`
      SELECT id, created_at FROM analyses WHERE account = 'big' ORDER BY created_at DESC, id COLLATE "C" DESC OFFSET ${(DEEP_PAGE - 1) * PER_PAGE - 1} LIMIT 1`;
    const cursor = encodeCursor({ id: last.id, created_at: last.created_at.toISOString() });
    const [expected] = await sql<{ id: string }[]>`
      SELECT id FROM analyses WHERE account = 'big' ORDER BY created_at DESC, id COLLATE "C" DESC OFFSET ${(DEEP_PAGE - 1) * PER_PAGE} LIMIT 1`;
    const deep: number[] = [];
    const first: number[] = [];
    for (let i = 0; i < 15; i++) {
      const page = await timed(`/v1/gap-analysis/summary?per_page=${PER_PAGE}&cursor=${cursor}`);
      t.equal(page.answer.status, 200);
      deep.push(page.ms);
      if (i === 0) {
        const body = page.answer.json();
        t.equal(body.data.analyses.length, PER_PAGE);
        t.equal(body.data.analyses[0].id, expected.id, `page ${DEEP_PAGE} starts at analysis ${(DEEP_PAGE - 1) * PER_PAGE + 1}`);
        t.same(
          [body.meta.total, body.meta.page, body.meta.total_pages],
          [ROWS, null, ROWS / PER_PAGE],
          'the total (from counts), no page number with a cursor',
        );
        t.type(body.meta.next_cursor, 'string');
      }
      first.push((await timed(`/v1/gap-analysis/summary?per_page=${PER_PAGE}`)).ms);
    }
    t.ok(
      percentile(deep, 50) <= 50,
      `page ${DEEP_PAGE}: median ${percentile(deep, 50).toFixed(1)} ms (page 1: ${percentile(first, 50).toFixed(1)} ms) ≤ 50 ms`,
    );
  });

  await t.test('next_cursor walks the pages page numbers give', async (t) => {
    let cursor: string | null = null;
    for (let page = 1; page <= 4; page++) {
      const byNumber = (await call(node, 'GET', `/v1/gap-analysis/summary?per_page=7&page=${page}`, big)).json();
      const byCursor: { data: { analyses: Array<{ id: string }> }; meta: { next_cursor: string | null } } = cursor
        ? (await call(node, 'GET', `/v1/gap-analysis/summary?per_page=7&cursor=${cursor}`, big)).json()
        : byNumber;
      t.same(
        byCursor.data.analyses.map((a: { id: string }) => a.id),
        byNumber.data.analyses.map((a: { id: string }) => a.id),
        `page ${page}`,
      );
      cursor = byCursor.meta.next_cursor;
    }
  });

  await t.test('page is capped where it would skip more than 10,000 analyses; past the end it is the empty page', async (t) => {
    const deepest = await call(node, 'GET', '/v1/gap-analysis/summary?per_page=20&page=501', big);
    t.equal(deepest.status, 200, 'page 501 of 20 skips exactly 10,000');
    const capped = await call(node, 'GET', '/v1/gap-analysis/summary?per_page=20&page=502', big);
    t.equal(capped.status, 400);
    t.equal(capped.json().error.code, 'invalid_parameter');
    t.match(capped.json().error.details, { parameter: 'page', value: '502', limit: 501 });
    t.match(capped.json().error.details.reason, /cursor/);
    const past = await call(node, 'GET', '/v1/gap-analysis/summary?per_page=20&page=20000', big);
    t.equal(past.status, 200, 'a page past the last is still 200');
    t.same([past.json().data.analyses, past.json().meta.total, past.json().meta.next_cursor], [[], ROWS, null]);
    const bad = await call(node, 'GET', '/v1/gap-analysis/summary?cursor=bm90LWEtY3Vyc29y', big);
    t.equal(bad.status, 400);
    t.match(bad.json().error.details, { parameter: 'cursor' });
  });

  await t.test("12 slow lists of one account at once hold at most its turns of the pool; another account's lists are served", async (t) => {
    // A framework no analysis has: each of these lists reads the account's whole index.
    const slowPath = '/v1/gap-analysis/summary?per_page=20&framework=SOC2';
    let stopped = false;
    const flood = Array.from({ length: 12 }, async () => {
      const statuses: number[] = [];
      while (!stopped) statuses.push((await call(node, 'GET', slowPath, big)).status);
      return statuses;
    });
    const active: number[] = [];
    const smallTimes: number[] = [];
    const smallStatuses: number[] = [];
    const monitor = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      for (let i = 0; i < 40; i++) {
        const [{ n }] = await monitor<{ n: number }[]>`
          SELECT count(*)::integer AS n FROM pg_stat_activity WHERE application_name = 'csr' AND state = 'active' AND query LIKE '%ANY (frameworks)%'`;
        active.push(n);
        const own = await timed('/v1/gap-analysis/summary?per_page=5', small);
        smallTimes.push(own.ms);
        smallStatuses.push(own.answer.status);
      }
    } finally {
      stopped = true;
      await monitor.end();
    }
    const statuses = (await Promise.all(flood)).flat();
    t.ok(Math.max(...active) >= 2, `the flood ran (up to ${Math.max(...active)} of its lists at once in the database)`);
    // The monitor cannot tell the two accounts' queries apart, and a call past its deadline gives its
    // turn back while PostgreSQL may still cancel its query: the database side is bounded by the pool;
    // one account's turns are held by the guard itself (test/store/guard.test.ts).
    t.ok(Math.max(...active) <= 10, `at most the pool of 10 lists at once in the database: ${Math.max(...active)}`);
    t.same(
      smallStatuses.filter((s) => s !== 200),
      [],
      "the other account's lists all answered 200",
    );
    t.comment(`the other account's list: p50 ${percentile(smallTimes, 50).toFixed(1)} ms, p99 ${percentile(smallTimes, 99).toFixed(1)} ms`);
    t.same(
      [...new Set(statuses)].filter((s) => s !== 200 && s !== 503),
      [],
      `the flooding account's lists: 200, or 503 when one waited past the deadline for its turn (${statuses.length} answered)`,
    );
  });
});
