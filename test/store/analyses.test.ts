import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDataStore } from '../../src/store/lmdb/database.js';
import { LmdbAnalysisStore } from '../../src/store/lmdb/analyses.js';
import { expiryOf, newAnalysisId, startSweeper } from '../../src/store/analyses.js';
import { ApiError } from '../../src/core/errors.js';
import type { AnalysisIndexEntry } from '../../src/store/types.js';

function entry(id: string, account: string, createdAt: Date, retentionDays: number): AnalysisIndexEntry {
  return {
    id,
    account,
    created_at: createdAt.toISOString(),
    expires_at: expiryOf(createdAt, retentionDays).toISOString(),
    frameworks: ['HIPAA'],
    posture_status: 'at_risk',
    posture_score: 70,
    critical_gaps: 0,
    high_gaps: 1,
    status: 'completed',
  };
}

async function codeOf(fn: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error.code : 'not-an-api-error';
  }
}

/** An LMDB data store in a temp dir, closed and removed when the test ends; and its analyses. */
function openTestStore(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'csr-analyses-'));
  const data = openDataStore(dir);
  t.teardown(async () => {
    await data.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { data, store: new LmdbAnalysisStore(data) };
}

t.test('analysis ids: GAP-<date>-<50 random bits>', async (t) => {
  const date = new Date('2026-11-21T10:00:00Z');
  const ids = new Set(Array.from({ length: 1000 }, () => newAnalysisId(date)));
  t.equal(ids.size, 1000, 'no collisions in 1000');
  for (const id of [...ids].slice(0, 20)) t.match(id, /^GAP-2026-11-21-[0-9A-HJKMNP-TV-Z]{10}$/);
});

t.test('retention, expiry and the sweeper with an injected clock', async (t) => {
  const { data, store } = openTestStore(t);
  const day0 = new Date('2026-01-01T00:00:00Z');
  const at = (days: number) => new Date(day0.getTime() + days * 86_400_000);

  await store.save(entry('GAP-2026-01-01-AAAAAAAAAA', 'acme', day0, 30), Buffer.from('{"data":{"id":"A"}}'));
  await store.save(entry('GAP-2026-01-01-BBBBBBBBBB', 'acme', at(1), 90), Buffer.from('{"data":{"id":"B"}}'));
  await store.save(entry('GAP-2026-01-01-CCCCCCCCCC', 'other', at(2), 30), Buffer.from('{"data":{"id":"C"}}'));

  t.equal((await store.get('GAP-2026-01-01-AAAAAAAAAA', 'acme', at(29))).payload.toString(), '{"data":{"id":"A"}}');
  t.equal(await codeOf(() => store.get('GAP-2026-01-01-AAAAAAAAAA', 'other', at(1))), 'GAP_NOT_FOUND', "another account's analysis is not found");
  t.equal(await codeOf(() => store.get('GAP-2026-01-01-ZZZZZZZZZZ', 'acme', at(1))), 'GAP_NOT_FOUND');
  t.equal(await codeOf(() => store.get('GAP-2026-01-01-AAAAAAAAAA', 'acme', at(30))), 'GAP_EXPIRED', 'expired at created + 30 days, before any sweep');

  const listed = await store.list('acme', { offset: 0, limit: 10 }, at(10));
  t.same(
    listed.items.map((e) => e.id),
    ['GAP-2026-01-01-BBBBBBBBBB', 'GAP-2026-01-01-AAAAAAAAAA'],
    'newest first, own analyses only',
  );
  t.equal((await store.list('acme', { offset: 0, limit: 10 }, at(31))).total, 1, 'expired analyses drop out of the list');

  t.equal(await store.sweep(at(29)), 0, 'nothing due yet');
  t.equal(await store.sweep(at(33)), 2, 'A (day 30) and C (day 32) are due');
  t.equal(data.analyses.getBinary('GAP-2026-01-01-AAAAAAAAAA'), undefined, 'the payload is gone');
  t.ok(data.analysisIndex.get('GAP-2026-01-01-AAAAAAAAAA')?.swept_at, 'a tombstone remains');
  t.equal(await codeOf(() => store.get('GAP-2026-01-01-AAAAAAAAAA', 'acme', at(33))), 'GAP_EXPIRED', '410 after the sweep too');
  t.equal(await codeOf(() => store.get('GAP-2026-01-01-AAAAAAAAAA', 'other', at(33))), 'GAP_NOT_FOUND', 'tombstones stay private');
  t.equal((await store.get('GAP-2026-01-01-BBBBBBBBBB', 'acme', at(33))).entry.id, 'GAP-2026-01-01-BBBBBBBBBB', 'the 90-day analysis survives');
  t.equal([...data.analysisExpiry.getRange()].length, 1, 'the expiry index holds only what is still live');

  let now = at(33);
  let swept!: () => void;
  const sweptSome = new Promise<void>((resolve) => (swept = resolve));
  const stop = startSweeper(
    store,
    10,
    () => now,
    (error) => t.fail(String(error)),
    (count) => count > 0 && swept(),
  );
  now = at(95);
  // The sweeper's timer is unref'd: this one keeps the process up while it runs, and bounds a hang.
  const bound = setTimeout(() => swept(), 30_000);
  await sweptSome;
  clearTimeout(bound);
  stop();
  t.equal(data.analyses.getBinary('GAP-2026-01-01-BBBBBBBBBB'), undefined, 'the interval sweeper removed B after day 91');
});

t.test('a payload is written apart from its index entry: a lost idempotency race or a crash between them leaves nothing for long', async (t) => {
  const { data, store } = openTestStore(t);
  const day0 = new Date('2026-01-01T00:00:00Z');
  const record = (analysisId: string) => ({
    account: 'acme',
    key: 'k-1',
    operation: 'POST /v1/gap-analysis',
    fingerprint: 'f1',
    analysis_id: analysisId,
    status: 200,
    created_at: day0.toISOString(),
    expires_at: new Date(day0.getTime() + 86_400_000).toISOString(),
  });

  const saves = await Promise.all(
    ['GAP-2026-01-01-AAAAAAAAAA', 'GAP-2026-01-01-BBBBBBBBBB'].map((id) =>
      store.save(entry(id, 'acme', day0, 30), Buffer.from(`{"data":{"id":"${id}"}}`), record(id)),
    ),
  );
  t.same(
    saves.map((outcome) => outcome.stored),
    [true, false],
    'two saves under one key, in the same turn: the first wins',
  );
  t.equal(data.analyses.getBinary('GAP-2026-01-01-BBBBBBBBBB'), undefined, "the loser's payload is removed with it");
  t.same(
    [...data.analysisExpiry.getRange()].map(({ key }) => key[1]),
    ['GAP-2026-01-01-AAAAAAAAAA'],
    'and its expiry record',
  );

  // What a crash after the payload's commit and before its entry's leaves behind.
  await Promise.all([
    data.analyses.put('GAP-2026-01-01-CCCCCCCCCC', Buffer.from('orphan')),
    data.analysisExpiry.put([Date.parse('2026-01-31T00:00:00Z'), 'GAP-2026-01-01-CCCCCCCCCC'], true),
  ]);
  t.equal(await codeOf(() => store.get('GAP-2026-01-01-CCCCCCCCCC', 'acme', day0)), 'GAP_NOT_FOUND', 'a payload without its entry is not an analysis');
  t.equal(await store.sweep(new Date('2026-02-01T00:00:00Z')), 2, 'due at its expiry, with A');
  t.equal(data.analyses.getBinary('GAP-2026-01-01-CCCCCCCCCC'), undefined, 'the sweep removed the orphan');
});
