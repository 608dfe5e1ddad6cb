import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../src/core/errors.js';
import { expiryOf } from '../../src/store/analyses.js';
import { openStores } from '../../src/store/open.js';
import { connect } from '../../src/store/postgres/connection.js';
import { migrate, MIGRATIONS } from '../../src/store/postgres/migrations.js';
import type { AnalysisIndexEntry, IdempotencyRecord, Stores } from '../../src/store/types.js';
import { createDatabase, startPostgres, throwaway } from '../helpers/servers.js';
import { until } from '../helpers/wait.js';

/**
 * One suite, two implementations: whatever the service relies on from its store holds for LMDB
 * and for PostgreSQL alike (GUIDE habit 8).
 */
const DAY = 86_400_000;
const day0 = new Date('2026-01-01T00:00:00Z');
const at = (days: number) => new Date(day0.getTime() + days * DAY);

function entry(id: string, account: string, createdAt: Date, retentionDays: number, frameworks = ['HIPAA']): AnalysisIndexEntry {
  return {
    id,
    account,
    created_at: createdAt.toISOString(),
    expires_at: expiryOf(createdAt, retentionDays).toISOString(),
    frameworks,
    posture_status: 'at_risk',
    posture_score: 70.5,
    critical_gaps: 0,
    high_gaps: 1,
    status: 'completed',
  };
}

function idempotency(account: string, key: string, analysisId: string, createdAt: Date, fingerprint = 'f1'): IdempotencyRecord {
  return {
    account,
    key,
    operation: 'POST /v1/gap-analysis',
    fingerprint,
    analysis_id: analysisId,
    status: 200,
    created_at: createdAt.toISOString(),
    expires_at: new Date(createdAt.getTime() + DAY).toISOString(),
  };
}

async function codeOf(work: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await work();
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error.code : `not an ApiError: ${String(error)}`;
  }
}

type Open = (now: () => Date) => Promise<Stores>;

function contract(t: Test, name: string, open: Open) {
  t.test(`${name}: accounts and keys`, async (t) => {
    let clock = day0;
    const stores = await open(() => clock);
    t.teardown(() => stores.close());
    const { accounts } = stores;

    const first = await accounts.createKey('acme', 'pro');
    t.equal(first.accountCreated, true, 'the tier creates the account');
    t.match(first.key, /^csr_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    t.notOk(JSON.stringify(first.record).includes(first.key.slice(22)), 'the record holds no secret');
    t.same(accounts.authenticate(first.key), { name: 'acme', tier: 'pro' });
    t.equal(accounts.authenticate(`${first.key.slice(0, -4)}AAAA`), undefined, 'a wrong secret is refused');
    t.equal(accounts.authenticate('csr_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), undefined, 'an unknown id is refused');
    t.equal(accounts.authenticate('not a key'), undefined);

    clock = at(1);
    const second = await accounts.createKey('acme');
    t.equal(second.accountCreated, false, 'an existing account needs no tier');
    await t.rejects(accounts.createKey('nobody'), /does not exist; give --tier/);
    await t.rejects(accounts.createKey('acme', 'teams'), /exists with tier pro/);
    await accounts.createKey('zeta', 'community');

    t.same(
      (await accounts.listKeys('acme')).map((k) => k.id),
      [first.record.id, second.record.id],
      'oldest first, one account',
    );
    t.equal((await accounts.listKeys()).length, 3);
    t.equal((await accounts.listKeys('acme'))[0].created_at, day0.toISOString(), 'timestamps round-trip exactly');

    const revoked = await accounts.revokeKey(first.key);
    t.equal(revoked?.id, first.record.id, 'revoked by the whole key');
    t.equal(revoked?.revoked_at, at(1).toISOString());
    t.equal(accounts.authenticate(first.key), undefined, 'a revoked key is refused at once on the node that revoked it');
    t.equal((await accounts.revokeKey(second.record.id))?.id, second.record.id, 'revoked by id');
    t.equal(await accounts.revokeKey('0000000000000000'), undefined, 'an unknown id is undefined');

    const third = await accounts.createKey('acme');
    t.equal((await accounts.setTier('acme', 'enterprise'))?.tier, 'enterprise');
    t.same(accounts.authenticate(third.key), { name: 'acme', tier: 'enterprise' }, 'a tier change applies at once');
    t.equal(await accounts.setTier('nobody', 'pro'), undefined);
    t.same(
      (await accounts.listAccounts()).map((a) => [a.name, a.tier]),
      [
        ['acme', 'enterprise'],
        ['zeta', 'community'],
      ],
      'by name',
    );
  });

  t.test(`${name}: analyses, expiry, tombstones`, async (t) => {
    const stores = await open(() => day0);
    t.teardown(() => stores.close());
    const { analyses } = stores;

    t.same(await analyses.save(entry('GAP-2026-01-01-AAAAAAAAAA', 'acme', day0, 30), Buffer.from('{"data":{"id":"A"}}')), { stored: true });
    const withSpans = { ...entry('GAP-2026-01-01-BBBBBBBBBB', 'acme', at(1), 90, ['SOC2', 'HIPAA']), data_members: [9, 17] };
    await analyses.save(withSpans, Buffer.from('{"data":{"id":"B"}}'));
    await analyses.save(entry('GAP-2026-01-01-CCCCCCCCCC', 'other', at(2), 30), Buffer.from('{"data":{"id":"C"}}'));
    await analyses.save(entry('GAP-2026-01-01-DDDDDDDDDD', 'acme', at(3), 90, ['SOC2']), Buffer.from([0, 255, 1, 254]));

    const a = await analyses.get('GAP-2026-01-01-AAAAAAAAAA', 'acme', at(29));
    t.equal(a.payload.toString(), '{"data":{"id":"A"}}', 'the payload bytes come back');
    t.same(a.entry, entry('GAP-2026-01-01-AAAAAAAAAA', 'acme', day0, 30), 'and the index entry, field for field');
    t.same([...(await analyses.get('GAP-2026-01-01-DDDDDDDDDD', 'acme', at(4))).payload], [0, 255, 1, 254], 'binary-safe');
    t.same((await analyses.get('GAP-2026-01-01-BBBBBBBBBB', 'acme', at(4))).entry, withSpans, "the data members' byte spans come back with the entry");
    t.equal(await codeOf(() => analyses.get('GAP-2026-01-01-AAAAAAAAAA', 'other', at(1))), 'GAP_NOT_FOUND', "another account's analysis is not found");
    t.equal(await codeOf(() => analyses.get('GAP-2026-01-01-ZZZZZZZZZZ', 'acme', at(1))), 'GAP_NOT_FOUND');
    t.equal(await codeOf(() => analyses.get('X'.repeat(600), 'acme', at(1))), 'GAP_NOT_FOUND', 'an absurdly long id is simply unknown');
    t.equal(await codeOf(() => analyses.get('GAP-2026-01-01-AAAAAAAAAA', 'acme', at(30))), 'GAP_EXPIRED', 'expired at created + 30 days, before any sweep');

    const listed = await analyses.list('acme', { offset: 0, limit: 10 }, at(10));
    t.same(
      listed.items.map((e) => e.id),
      ['GAP-2026-01-01-DDDDDDDDDD', 'GAP-2026-01-01-BBBBBBBBBB', 'GAP-2026-01-01-AAAAAAAAAA'],
      'newest first, own analyses only',
    );
    t.equal(listed.total, 3);
    const page = await analyses.list('acme', { offset: 1, limit: 1 }, at(10));
    t.same([page.total, page.items.map((e) => e.id)], [3, ['GAP-2026-01-01-BBBBBBBBBB']], 'offset and limit; total counts every match');
    t.same(await analyses.list('acme', { offset: 5, limit: 1 }, at(10)), { total: 3, items: [] }, 'past the end: the total still counts');
    t.same(
      (await analyses.list('acme', { framework: 'SOC2', offset: 0, limit: 10 }, at(10))).items.map((e) => e.id),
      ['GAP-2026-01-01-DDDDDDDDDD', 'GAP-2026-01-01-BBBBBBBBBB'],
      'framework filter',
    );
    t.equal((await analyses.list('acme', { status: 'failed', offset: 0, limit: 10 }, at(10))).total, 0, 'status filter');
    t.equal((await analyses.list('acme', { offset: 0, limit: 10 }, at(31))).total, 2, 'expired analyses drop out of the list');

    t.equal(await analyses.sweep(at(29)), 0, 'nothing due yet');
    t.equal(await analyses.sweep(at(33)), 2, 'A (day 30) and C (day 32) are due');
    t.equal(await analyses.sweep(at(33)), 0, 'a second sweep finds nothing');
    t.equal(await codeOf(() => analyses.get('GAP-2026-01-01-AAAAAAAAAA', 'acme', at(33))), 'GAP_EXPIRED', '410 after the sweep: the tombstone remains');
    t.equal(await codeOf(() => analyses.get('GAP-2026-01-01-AAAAAAAAAA', 'acme', at(20))), 'GAP_EXPIRED', 'even to a clock before the expiry, once swept');
    t.equal(await codeOf(() => analyses.get('GAP-2026-01-01-AAAAAAAAAA', 'other', at(33))), 'GAP_NOT_FOUND', 'tombstones stay private');
    t.equal((await analyses.get('GAP-2026-01-01-BBBBBBBBBB', 'acme', at(33))).entry.id, 'GAP-2026-01-01-BBBBBBBBBB', 'the 90-day analysis survives');
  });

  t.test(`${name}: keyset pages`, async (t) => {
    const stores = await open(() => day0);
    t.teardown(() => stores.close());
    const { analyses } = stores;
    // Two share a creation time, so that ties are broken by id (in byte order: 'B…' < 'a…').
    const made = [
      entry('GAP-2026-01-01-K000000001', 'acme', at(1), 90, ['SOC2']),
      entry('GAP-2026-01-01-K000000002', 'acme', at(2), 90),
      entry('GAP-2026-01-01-Ba00000003', 'acme', at(3), 90, ['SOC2']),
      entry('GAP-2026-01-01-aa00000004', 'acme', at(3), 90),
      entry('GAP-2026-01-01-K000000005', 'acme', at(4), 90, ['SOC2']),
      entry('GAP-2026-01-01-K000000006', 'other', at(5), 90),
    ];
    for (const e of made) await analyses.save(e, Buffer.from(e.id));
    const order = [
      'GAP-2026-01-01-K000000005',
      'GAP-2026-01-01-aa00000004',
      'GAP-2026-01-01-Ba00000003',
      'GAP-2026-01-01-K000000002',
      'GAP-2026-01-01-K000000001',
    ];
    const walked: string[][] = [];
    let after: { created_at: string; id: string } | undefined;
    for (;;) {
      const page = await analyses.list('acme', { offset: 0, limit: 2, after }, at(10));
      t.equal(page.total, 5, 'every page carries the total');
      if (!page.items.length) break;
      walked.push(page.items.map((e) => e.id));
      const last = page.items.at(-1)!;
      after = { created_at: last.created_at, id: last.id };
    }
    t.same(walked, [order.slice(0, 2), order.slice(2, 4), order.slice(4)], 'pages follow one another from each cursor, newest first, ties by id');
    const offsetPages = await Promise.all([0, 2, 4].map((offset) => analyses.list('acme', { offset, limit: 2 }, at(10))));
    t.same(
      offsetPages.map((p) => p.items.map((e) => e.id)),
      walked,
      'the same pages as by offset',
    );
    const third = made[2];
    t.same(
      (await analyses.list('acme', { offset: 0, limit: 10, framework: 'SOC2', after: { created_at: third.created_at, id: third.id } }, at(10))).items.map(
        (e) => e.id,
      ),
      ['GAP-2026-01-01-K000000001'],
      'a cursor with a filter',
    );
    t.same(
      (await analyses.list('acme', { offset: 1, limit: 1, after: { created_at: third.created_at, id: third.id } }, at(10))).items.map((e) => e.id),
      ['GAP-2026-01-01-K000000001'],
      'an offset counts from the cursor',
    );
    t.equal((await analyses.list('acme', { offset: 0, limit: 0 }, at(10))).total, 5, 'limit 0: the total alone');
    t.equal((await analyses.list('acme', { offset: 0, limit: 10, framework: 'SOC2' }, at(10))).total, 3, 'a filtered total');
    t.equal((await analyses.list('acme', { offset: 0, limit: 10, status: 'completed', framework: 'SOC2' }, at(10))).total, 3);
    t.equal((await analyses.list('acme', { offset: 0, limit: 10, status: 'failed' }, at(10))).total, 0);
    t.equal((await analyses.list('acme', { offset: 0, limit: 10 }, at(92))).total, 3, 'expired before the sweep (days 91 and 92): out of the total');
    t.equal((await analyses.list('acme', { offset: 0, limit: 10, framework: 'SOC2' }, at(92))).total, 2);
    await analyses.sweep(at(92));
    t.equal((await analyses.list('acme', { offset: 0, limit: 10 }, at(92))).total, 3, 'and after it');
    t.equal((await analyses.list('acme', { offset: 0, limit: 10, framework: 'SOC2' }, at(92))).total, 2);
  });

  t.test(`${name}: idempotency records`, async (t) => {
    const stores = await open(() => day0);
    t.teardown(() => stores.close());
    const { analyses } = stores;
    const hour = 3_600_000;
    const t0 = at(0);

    t.equal(await analyses.idempotencyRecord('acme', 'k-1', t0), undefined, 'no record yet');
    const record = idempotency('acme', 'k-1', 'GAP-2026-01-01-1111111111', t0);
    t.same(await analyses.save(entry('GAP-2026-01-01-1111111111', 'acme', t0, 30), Buffer.from('one'), record), { stored: true });
    t.same(await analyses.idempotencyRecord('acme', 'k-1', new Date(t0.getTime() + hour)), record, 'the record comes back as stored');
    t.equal(await analyses.idempotencyRecord('other', 'k-1', t0), undefined, 'keys are per account');

    const racing = await analyses.save(
      entry('GAP-2026-01-01-2222222222', 'acme', t0, 30),
      Buffer.from('two'),
      idempotency('acme', 'k-1', 'GAP-2026-01-01-2222222222', t0),
    );
    t.same(racing, { stored: false, existing: record }, 'a second save under a live key stores nothing and names the first');
    t.equal(await codeOf(() => analyses.get('GAP-2026-01-01-2222222222', 'acme', t0)), 'GAP_NOT_FOUND', 'the loser left no analysis behind');

    const otherAccount = await analyses.save(
      entry('GAP-2026-01-01-3333333333', 'other', t0, 30),
      Buffer.from('three'),
      idempotency('other', 'k-1', 'GAP-2026-01-01-3333333333', t0),
    );
    t.same(otherAccount, { stored: true }, 'another account may use the same key');

    const later = new Date(t0.getTime() + 25 * hour);
    t.equal(await analyses.idempotencyRecord('acme', 'k-1', later), undefined, 'a record expires with its window');
    const reused = idempotency('acme', 'k-1', 'GAP-2026-01-01-4444444444', later, 'f2');
    t.same(
      await analyses.save(entry('GAP-2026-01-01-4444444444', 'acme', later, 30), Buffer.from('four'), reused),
      { stored: true },
      'an expired key can be used again',
    );
    t.same(await analyses.idempotencyRecord('acme', 'k-1', later), reused);

    await analyses.sweep(new Date(t0.getTime() + 26 * hour));
    t.equal(await analyses.idempotencyRecord('other', 'k-1', t0), undefined, 'the sweep removed the expired record');
    t.same(await analyses.idempotencyRecord('acme', 'k-1', later), reused, 'and kept the live one');
    t.equal((await analyses.get('GAP-2026-01-01-1111111111', 'acme', later)).payload.toString(), 'one', 'the analysis outlives its key');
  });
}

t.test('lmdb', async (t) => {
  contract(t, 'lmdb', async (now) => {
    const dir = mkdtempSync(join(tmpdir(), 'csr-contract-'));
    const stores = await openStores({ dataDir: dir, now, authenticates: true });
    return {
      ...stores,
      close: async () => {
        await stores.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });

  // The server and the CLI are two processes on one data directory; two directories in one
  // process stand for them here (each keeps its own table of verified keys).
  t.test('a revocation and a tier change by another process apply', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'csr-verified-'));
    const [cli, server] = await Promise.all([0, 1].map(() => openStores({ dataDir: dir, authenticates: true })));
    t.teardown(async () => {
      await Promise.all([cli.close(), server.close()]);
      rmSync(dir, { recursive: true, force: true });
    });
    const created = await cli.accounts.createKey('acme', 'pro');
    t.equal(server.accounts.authenticate(created.key)?.tier, 'pro', 'verified, and now trusted for a moment');
    // Another process's change is seen by polling (docs/cluster.md promises a second); the bound
    // here only stops a hang, so that a loaded machine does not decide the outcome.
    const within = async (what: string, check: () => boolean) => {
      const took = await until(check, what);
      t.ok(check(), `${what} (${took} ms)`);
    };
    await cli.accounts.setTier('acme', 'teams');
    await within('a tier change applies', () => server.accounts.authenticate(created.key)?.tier === 'teams');
    await cli.accounts.revokeKey(created.record.id);
    await within('a revocation applies', () => server.accounts.authenticate(created.key) === undefined);
  });
});

t.test('postgres', async (t) => {
  const server = await throwaway(t, startPostgres);
  if (!server) return;
  let databases = 0;
  const openPostgres: Open = async (now) =>
    openStores({ dataDir: '/nonexistent', databaseUrl: createDatabase(server.url, `contract_${++databases}`), now, authenticates: true });
  contract(t, 'postgres', openPostgres);

  t.test('migrations: versioned, applied once, safe to race', async (t) => {
    const url = createDatabase(server.url, 'migrations');
    const sqls = [connect(url), connect(url), connect(url)];
    t.teardown(() => Promise.all(sqls.map((sql) => sql.end())));
    const applied = await Promise.all(sqls.map((sql) => migrate(sql)));
    const versions = MIGRATIONS.map((m) => m.version);
    t.same(applied.flat(), versions, 'three nodes starting at once apply each version once');
    t.same(await migrate(sqls[0]), [], 'a restart applies nothing');
    t.same(
      (await sqls[0]`SELECT version FROM schema_migrations ORDER BY version`).map((r) => r.version),
      versions,
    );
  });

  t.test('an analysis stored at schema version 1 reads after the upgrade, without member spans', async (t) => {
    const url = createDatabase(server.url, 'upgrade');
    const sql = connect(url);
    t.teardown(() => sql.end());
    await sql.begin(async (tx) => {
      await tx`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
      await tx.unsafe(MIGRATIONS[0].sql);
      await tx`INSERT INTO schema_migrations (version, name) VALUES (1, ${MIGRATIONS[0].name})`;
      await tx`INSERT INTO analyses (id, account, created_at, expires_at, frameworks, posture_status, posture_score, critical_gaps, high_gaps, status, payload)
               VALUES ('GAP-2026-01-01-OLDOLDOLD0', 'acme', ${day0}, ${at(30)}, ${tx.array(['HIPAA'])}, 'at_risk', 70.5, 0, 1, 'completed', ${Buffer.from('{"data":{"id":"O"}}')})`;
    });
    t.same(
      await migrate(sql),
      MIGRATIONS.slice(1).map((m) => m.version),
      'the upgrade applies the versions after 1',
    );
    const stores = await openStores({ dataDir: '/nonexistent', databaseUrl: url, now: () => at(1) });
    t.teardown(() => stores.close());
    const stored = await stores.analyses.get('GAP-2026-01-01-OLDOLDOLD0', 'acme', at(1));
    t.same(stored.entry, entry('GAP-2026-01-01-OLDOLDOLD0', 'acme', day0, 30), 'the entry as it was, with no data_members');
    t.equal(stored.payload.toString(), '{"data":{"id":"O"}}');
  });

  t.test('the sweep runs on one node at a time', async (t) => {
    const url = createDatabase(server.url, 'sweep');
    const nodes = await Promise.all([0, 1, 2].map(() => openStores({ dataDir: '/nonexistent', databaseUrl: url })));
    t.teardown(() => Promise.all(nodes.map((n) => n.close())));
    for (let i = 0; i < 200; i++) await nodes[0].analyses.save(entry(`GAP-2026-01-01-S${String(i).padStart(9, '0')}`, 'acme', day0, 30), Buffer.from(`p${i}`));
    const counts = await Promise.all(nodes.map((n) => n.analyses.sweep(at(31))));
    t.equal(
      counts.reduce((a, b) => a + b, 0),
      200,
      'every due analysis swept exactly once across the nodes',
    );
    t.ok(counts.filter((c) => c > 0).length >= 1, `sweeps per node: ${counts.join(', ')}`);
  });

  t.test('the counts behind the total follow inserts, sweeps and deletes, and the list reads the keyset index', async (t) => {
    const url = createDatabase(server.url, 'counts');
    const stores = await openStores({ dataDir: '/nonexistent', databaseUrl: url });
    t.teardown(() => stores.close());
    const sql = connect(url);
    t.teardown(() => sql.end());
    for (let i = 0; i < 300; i++)
      await stores.analyses.save(
        entry(`GAP-2026-01-01-N${String(i).padStart(9, '0')}`, i % 3 ? 'acme' : 'other', at(i % 10), 30 + (i % 7), i % 2 ? ['SOC2', 'HIPAA'] : ['HIPAA']),
        Buffer.from('p'),
      );
    const exact = async (now: Date) =>
      (
        await sql<{ account: string; framework: string; n: string }[]>`
          SELECT account, f AS framework, count(*) AS n FROM analyses, unnest(array_append(frameworks, '')) AS f
          WHERE swept_at IS NULL AND expires_at > ${now} GROUP BY 1, 2 ORDER BY 1, 2`
      ).map((r) => `${r.account}/${r.framework || '*'}=${r.n}`);
    const listed = async (now: Date) => {
      const out: string[] = [];
      for (const account of ['acme', 'other'])
        for (const framework of [undefined, 'HIPAA', 'SOC2']) {
          const { total } = await stores.analyses.list(account, { offset: 0, limit: 0, framework }, now);
          if (total) out.push(`${account}/${framework ?? '*'}=${total}`);
        }
      return out.sort();
    };
    for (const [what, now] of [
      ['all live', at(20)],
      ['some expired, none swept', at(38)],
    ] as const)
      t.same(await listed(now), (await exact(now)).sort(), `totals agree with counting rows: ${what}`);
    await stores.analyses.sweep(at(38));
    t.same(await listed(at(38)), (await exact(at(38))).sort(), 'after the sweep');
    await sql`DELETE FROM analyses WHERE account = 'other' AND id LIKE '%0'`;
    t.same(await listed(at(38)), (await exact(at(38))).sort(), 'after a delete');

    // 300 rows are read faster whole: the planner is told to use an index, to show that one serves the page in its order.
    await sql`ANALYZE analyses`;
    const plan = await sql.begin(async (tx) => {
      await tx`SET LOCAL enable_seqscan = off`;
      await tx`SET LOCAL enable_bitmapscan = off`;
      const [row] = await tx.unsafe<Array<{ 'QUERY PLAN': unknown }>>(
        `EXPLAIN (FORMAT JSON) SELECT id FROM analyses WHERE account = 'acme' AND swept_at IS NULL AND expires_at > '2026-01-20T00:00:00Z'
         AND (created_at, id COLLATE "C") < ('2026-01-05T00:00:00Z'::timestamptz, 'GAP-2026-01-01-N000000100' COLLATE "C")
         ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT 20`,
      );
      return row['QUERY PLAN'];
    });
    const text = JSON.stringify(plan);
    t.match(text, /"Index Name":"analyses_by_account/, 'a page is read from an index over the account, its time and id');
    t.notMatch(text, /"Node Type":"Sort"/, 'in its order, with no sort');
  });

  t.test('a revocation and a tier change reach another node', async (t) => {
    const url = createDatabase(server.url, 'replica');
    const [a, b] = await Promise.all([0, 1].map(() => openStores({ dataDir: '/nonexistent', databaseUrl: url, authenticates: true })));
    t.teardown(() => Promise.all([a.close(), b.close()]));
    const created = await a.accounts.createKey('acme', 'pro');
    const within = async (what: string, check: () => boolean) => {
      const took = await until(check, what);
      t.ok(check(), `${what} on node B (${took} ms)`);
    };
    await within('a new key works', () => b.accounts.authenticate(created.key)?.tier === 'pro');
    await a.accounts.setTier('acme', 'teams');
    await within('a tier change applies', () => b.accounts.authenticate(created.key)?.tier === 'teams');
    await a.accounts.revokeKey(created.record.id);
    await within('a revocation applies', () => b.accounts.authenticate(created.key) === undefined);
  });
});
