import t from 'tap';
import { expiryOf } from '../../src/store/analyses.js';
import { openStores } from '../../src/store/open.js';
import { connect } from '../../src/store/postgres/connection.js';
import { IncompatibleSchemaError, MIGRATIONS, migrate, type Migration, type SchemaState } from '../../src/store/postgres/migrations.js';
import { createDatabase, startPostgres, throwaway } from '../helpers/servers.js';

/**
 * Expand/contract migrations (docs/cluster.md, "Schema changes"): a node of this release runs
 * against a schema that a newer release extended with steps recorded as compatible with it, and
 * refuses one that a newer release contracted; steps applied before compatibility was recorded get
 * their record from the release that knows them.
 */
const newest = Math.max(...MIGRATIONS.map((m) => m.version));
/** What a newer release might add: an expand step, then a contract step that drops a column this release reads. */
const expand: Migration = {
  version: newest + 1,
  name: 'a newer release: a table of its own',
  compatibleFrom: 1,
  sql: 'CREATE TABLE future_things (id text PRIMARY KEY)',
};
const contract: Migration = {
  version: newest + 2,
  name: 'a newer release: analyses lose data_members',
  compatibleFrom: newest + 2,
  sql: 'ALTER TABLE analyses DROP COLUMN data_members',
};

const created = new Date();
const entry = (id: string) => ({
  id,
  account: 'acme',
  created_at: created.toISOString(),
  expires_at: expiryOf(created, 30).toISOString(),
  frameworks: ['HIPAA'],
  posture_status: 'at_risk',
  posture_score: 70,
  critical_gaps: 0,
  high_gaps: 1,
  status: 'completed' as const,
});

t.test('expand and contract steps of a newer release', async (t) => {
  const server = await throwaway(t, startPostgres);
  if (!server) return;

  await t.test('every step of this release records its compatibility', async (t) => {
    for (const migration of MIGRATIONS)
      t.ok(Number.isInteger(migration.compatibleFrom) && migration.compatibleFrom <= migration.version, `${migration.version}: ${migration.compatibleFrom}`);
  });

  await t.test('a node of this release runs against a schema a newer release expanded', async (t) => {
    const url = createDatabase(server.url, 'expanded');
    const sql = connect(url);
    t.teardown(() => sql.end());
    t.same(await migrate(sql, { migrations: [...MIGRATIONS, expand] }), [...MIGRATIONS.map((m) => m.version), expand.version], 'the newer release migrates');
    const states: SchemaState[] = [];
    t.same(await migrate(sql, { onState: (state) => states.push(state) }), [], 'this release, started again (a roll back), applies nothing');
    t.same(states, [{ newest: expand.version, known: newest, compatibleFrom: 1 }], 'and knows it runs on a newer schema');
    const stores = await openStores({ dataDir: '/nonexistent', databaseUrl: url });
    t.teardown(() => stores.close());
    await stores.analyses.save(entry('GAP-2026-01-01-EXPAND0001'), Buffer.from('{}'));
    t.equal((await stores.analyses.list('acme', { offset: 0, limit: 5 }, new Date())).total, 1, 'and stores and lists analyses there');
  });

  await t.test('a node of this release refuses a schema a newer release contracted', async (t) => {
    const url = createDatabase(server.url, 'contracted');
    const sql = connect(url);
    t.teardown(() => sql.end());
    await migrate(sql, { migrations: [...MIGRATIONS, expand, contract] });
    const refused = await migrate(sql).then(
      () => undefined,
      (error: unknown) => error,
    );
    t.ok(refused instanceof IncompatibleSchemaError, `migrate refuses: ${(refused as Error | undefined)?.message}`);
    await t.rejects(
      openStores({ dataDir: '/nonexistent', databaseUrl: url }),
      new RegExp(
        `migration ${contract.version}, which nodes knowing versions below ${contract.version} cannot run against; this release knows up to ${newest}\\. Upgrade this node`,
      ),
      'the node stops, saying which step and why',
    );
  });

  await t.test('steps applied before compatibility was recorded get their record', async (t) => {
    const url = createDatabase(server.url, 'unrecorded');
    const sql = connect(url);
    t.teardown(() => sql.end());
    // The table as releases before this record kept it: no compatible_from.
    await sql.begin(async (tx) => {
      await tx`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
      for (const migration of MIGRATIONS.slice(0, 3)) {
        await tx.unsafe(migration.sql);
        await tx`INSERT INTO schema_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
      }
    });
    t.same(
      await migrate(sql),
      MIGRATIONS.slice(3).map((m) => m.version),
      'the later steps are applied',
    );
    t.same(
      await sql<{ version: number; compatible_from: number }[]>`SELECT version, compatible_from FROM schema_migrations ORDER BY version`,
      MIGRATIONS.map((m) => ({ version: m.version, compatible_from: m.compatibleFrom })),
      'and every step has its compatibility recorded',
    );
  });
});
