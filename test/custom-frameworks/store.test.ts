/**
 * The custom-framework store, one suite for LMDB and PostgreSQL (GUIDE habit 8): create with the
 * per-account limit, versions, delete, privacy, the same limit under concurrent creates, a second
 * process (LMDB) or node (PostgreSQL) seeing a write at once, and an analysis's record of the
 * custom frameworks it assessed. PostgreSQL runs on a throwaway server; SKIPPED without one.
 */
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStores } from '../../src/store/open.js';
import type { Stores } from '../../src/store/types.js';
import type { StoredCustomFramework } from '../../src/custom-frameworks/model.js';
import { createDatabase, startPostgres, throwaway } from '../helpers/servers.js';

function framework(account: string, code: string, at = '2026-11-01T00:00:00.000Z', controls = 2): StoredCustomFramework {
  const list = Array.from({ length: controls }, (_, i) => ({
    id: `C-${i + 1}`,
    title: `Control ${i + 1} – «quoted» "text"`,
    description: 'd',
    category: 'General',
    level: null,
    guidance: '',
    evidence: ['e'],
    signals: [{ signal_id: 'CSR-X-001', relationship: 'primary' as const, confidence: 0.8, rationale: '' }],
    corresponds_to: [{ framework: 'HIPAA', control_id: '164.308(a)(1)', relationship: 'equal' as const }],
  }));
  return {
    account,
    code,
    name: `Framework ${code}`,
    version: '1',
    description: '',
    revision: 1,
    control_count: list.length,
    source_format: 'json',
    created_at: at,
    updated_at: at,
    versions: [{ revision: 1, version: '1', created_at: at, control_count: list.length, source_format: 'json' }],
    controls: list,
  };
}

const summaryOf = ({ controls: _controls, ...summary }: StoredCustomFramework) => summary;

/** `open` gives two handles on one store: two processes on one LMDB directory, two nodes on one database. */
function contract(t: Test, name: string, open: () => Promise<[Stores, Stores]>) {
  t.test(`${name}: create, read, list, versions, delete`, async (t) => {
    const [a, b] = await open();
    const store = a.customFrameworks;
    const acme = framework('acme', 'ACME-ISP');
    t.same(await store.create(acme, 3), { created: true });
    t.same(await store.get('acme', 'ACME-ISP'), acme, 'read back field for field');
    t.same(await b.customFrameworks.get('acme', 'ACME-ISP'), acme, 'and at once through the other handle');
    t.equal(await store.get('rival', 'ACME-ISP'), undefined, "another account's is not there");
    t.equal(await store.get('acme', 'X'.repeat(600)), undefined, 'an absurd code is simply unknown');
    t.same(await store.create(framework('acme', 'ACME-ISP'), 3), { created: false, reason: 'exists' });
    t.same(await store.create(framework('rival', 'ACME-ISP'), 3), { created: true }, 'codes are per account');
    await store.create(framework('acme', 'B-2'), 3);
    await store.create(framework('acme', 'A-1'), 3);
    t.same(await store.create(framework('acme', 'C-3'), 3), { created: false, reason: 'limit', count: 3 }, "the limit counts the account's own");
    t.same(
      (await store.list('acme')).map((f) => f.code),
      ['A-1', 'ACME-ISP', 'B-2'],
      'by code',
    );
    t.same((await store.list('acme'))[1], summaryOf(acme), 'summaries without controls');

    const next = { ...framework('acme', 'ACME-ISP', '2026-11-02T00:00:00.000Z', 1), version: '2', created_at: 'ignored' };
    const stored = await store.replace(next);
    t.match(stored, { revision: 2, version: '2', control_count: 1, created_at: acme.created_at, updated_at: '2026-11-02T00:00:00.000Z' });
    t.same(
      stored!.versions.map((v) => [v.revision, v.version, v.created_at]),
      [
        [1, '1', acme.created_at],
        [2, '2', '2026-11-02T00:00:00.000Z'],
      ],
    );
    t.same(await b.customFrameworks.get('acme', 'ACME-ISP'), stored, 'the new version, through the other handle');
    t.equal(await store.replace(framework('acme', 'NOPE')), undefined, 'replace never creates');

    t.same(await b.customFrameworks.delete('acme', 'ACME-ISP'), summaryOf(stored!), 'delete answers what it removed');
    t.equal(await store.get('acme', 'ACME-ISP'), undefined);
    t.equal(await store.delete('acme', 'ACME-ISP'), undefined, 'a second delete finds nothing');
    t.equal((await store.get('rival', 'ACME-ISP'))?.account, 'rival', "the other account's is untouched");
    t.same(await store.create(framework('acme', 'C-3'), 3), { created: true }, 'room again');
  });

  t.test(`${name}: concurrent creates respect the limit`, async (t) => {
    const [a, b] = await open();
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).customFrameworks.create(framework('busy', `F-${i}`), 5)));
    t.equal(outcomes.filter((o) => o.created).length, 5, 'five created across both handles');
    t.equal((await a.customFrameworks.list('busy')).length, 5);
    const same = await Promise.all([a, b].map((s) => s.customFrameworks.create(framework('race', 'SAME'), 5)));
    t.same(same.map((o) => o.created).sort(), [false, true], 'one of two racing creates of one code wins');
  });

  t.test(`${name}: an analysis records the custom frameworks it assessed`, async (t) => {
    const [a, b] = await open();
    const entry = {
      id: 'GAP-2026-11-01-CUSTOM0001',
      account: 'acme',
      created_at: '2026-11-01T00:00:00.000Z',
      expires_at: '2027-11-01T00:00:00.000Z',
      frameworks: ['HIPAA', 'ACME-ISP'],
      posture_status: 'at_risk',
      posture_score: 70,
      critical_gaps: 0,
      high_gaps: 1,
      status: 'completed' as const,
      custom_frameworks: [{ code: 'ACME-ISP', revision: 2 }],
    };
    await a.analyses.save(entry, Buffer.from('{"data":{}}'));
    t.same((await b.analyses.get(entry.id, 'acme', new Date('2026-11-02T00:00:00Z'))).entry, entry);
    t.same(
      (await b.analyses.list('acme', { framework: 'ACME-ISP', offset: 0, limit: 10 }, new Date('2026-11-02T00:00:00Z'))).items,
      [entry],
      'the list filters by a custom code',
    );
  });
}

t.test('lmdb', async (t) => {
  contract(t, 'lmdb', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csr-custom-'));
    const handles = await Promise.all([0, 1].map(() => openStores({ dataDir: dir })));
    t.teardown(async () => {
      await Promise.all(handles.map((h) => h.close()));
      rmSync(dir, { recursive: true, force: true });
    });
    return handles as [Stores, Stores];
  });
});

t.test('postgres', async (t) => {
  const server = await throwaway(t, startPostgres);
  if (!server) return;
  let databases = 0;
  contract(t, 'postgres', async () => {
    const url = createDatabase(server.url, `custom_${++databases}`);
    const handles = await Promise.all([0, 1].map(() => openStores({ dataDir: '/nonexistent', databaseUrl: url })));
    t.teardown(() => Promise.all(handles.map((h) => h.close())));
    return handles as [Stores, Stores];
  });
});
