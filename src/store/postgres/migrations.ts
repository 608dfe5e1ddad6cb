import type { Sql } from 'postgres';

/**
 * The PostgreSQL schema as numbered steps. Every node applies the missing ones at start, inside
 * one transaction under an advisory lock, so concurrent starts apply each step once and a failed
 * step leaves nothing half-done. A step, once released, is never edited: change the schema with a
 * new one.
 *
 * Steps are expand or contract (docs/cluster.md, "Schema changes"). An expand step only adds
 * (a table, a nullable column, an index, a trigger that keeps derived data), so the code of any
 * earlier release still runs against the schema after it: its `compatibleFrom` is 1. A contract
 * step removes or changes what earlier code relies on: its `compatibleFrom` is the first version
 * whose code no longer does. The database records each applied step's value, so that a node of an
 * older release, which cannot know the newer steps, can tell whether it may run against them.
 */
export interface Migration {
  version: number;
  name: string;
  /** The lowest version a node may know (its newest migration) and still run against a schema with this step. */
  compatibleFrom: number;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, analyses, idempotency',
    compatibleFrom: 1,
    sql: `
      -- One value per directory write transaction (writers serialise on an advisory lock), so
      -- "rows with change_seq > N" is exactly what a node's key replica has not seen yet.
      CREATE SEQUENCE directory_change_seq;
      CREATE TABLE accounts (
        name        text PRIMARY KEY,
        tier        text NOT NULL,
        created_at  timestamptz NOT NULL,
        updated_at  timestamptz NOT NULL,
        change_seq  bigint NOT NULL
      );
      CREATE INDEX accounts_change_seq ON accounts (change_seq);
      CREATE TABLE api_keys (
        id             text PRIMARY KEY,
        account        text NOT NULL REFERENCES accounts (name),
        secret_sha256  text NOT NULL,
        created_at     timestamptz NOT NULL,
        revoked_at     timestamptz,
        change_seq     bigint NOT NULL
      );
      CREATE INDEX api_keys_change_seq ON api_keys (change_seq);
      CREATE TABLE analyses (
        id              text PRIMARY KEY,
        account         text NOT NULL,
        created_at      timestamptz NOT NULL,
        expires_at      timestamptz NOT NULL,
        frameworks      text[] NOT NULL,
        posture_status  text NOT NULL,
        posture_score   double precision,
        critical_gaps   integer NOT NULL,
        high_gaps       integer NOT NULL,
        status          text NOT NULL,
        -- Set by the sweeper, which also drops the payload: the row stays as a tombstone (410).
        swept_at        timestamptz,
        payload         bytea
      );
      CREATE INDEX analyses_expiry ON analyses (expires_at, id) WHERE swept_at IS NULL;
      CREATE INDEX analyses_by_account ON analyses (account, created_at DESC, id DESC) WHERE swept_at IS NULL;
      CREATE TABLE idempotency_keys (
        account      text NOT NULL,
        key          text NOT NULL,
        operation    text NOT NULL,
        fingerprint  text NOT NULL,
        analysis_id  text NOT NULL,
        status       integer NOT NULL,
        created_at   timestamptz NOT NULL,
        expires_at   timestamptz NOT NULL,
        PRIMARY KEY (account, key)
      );
      CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
    `,
  },
  {
    version: 2,
    name: 'analyses: byte spans of the payload data members',
    // Additive: nodes of every release run against it.
    compatibleFrom: 1,
    sql: `
      -- NULL on rows stored before: their spans are found by reading the payload.
      ALTER TABLE analyses ADD COLUMN data_members integer[];
    `,
  },
  {
    version: 3,
    name: 'custom frameworks, and those an analysis assessed',
    // Additive: nodes of every release run against it.
    compatibleFrom: 1,
    sql: `
      -- An account's own frameworks (docs/custom-frameworks.md); controls apart from the columns
      -- the listing reads.
      CREATE TABLE custom_frameworks (
        account        text NOT NULL,
        code           text NOT NULL,
        name           text NOT NULL,
        version        text NOT NULL,
        description    text NOT NULL,
        revision       integer NOT NULL,
        control_count  integer NOT NULL,
        source_format  text NOT NULL,
        created_at     timestamptz NOT NULL,
        updated_at     timestamptz NOT NULL,
        versions       jsonb NOT NULL,
        controls       jsonb NOT NULL,
        PRIMARY KEY (account, code)
      );
      -- The custom frameworks an analysis assessed, [{code, revision}]; NULL when none.
      ALTER TABLE analyses ADD COLUMN custom_frameworks jsonb;
    `,
  },
  {
    version: 4,
    name: 'posture history of scoped analyses, webhooks and their delivery outbox',
    // Additive: nodes of every release run against it.
    compatibleFrom: 1,
    sql: `
      -- A scoped analysis's posture (docs/posture.md), inserted with it; removed at its expiry.
      CREATE TABLE analysis_posture (
        id          text PRIMARY KEY,
        account     text NOT NULL,
        scope       text NOT NULL,
        created_at  timestamptz NOT NULL,
        expires_at  timestamptz NOT NULL,
        overall     jsonb NOT NULL,
        -- The analysis's framework codes in its order (jsonb keeps no order of keys).
        framework_codes  text[] NOT NULL,
        frameworks  jsonb NOT NULL,
        -- Assessed control ids by framework and status: what regression events compare.
        controls    jsonb NOT NULL
      );
      CREATE INDEX analysis_posture_by_scope ON analysis_posture (account, scope, created_at, id COLLATE "C");
      CREATE INDEX analysis_posture_expiry ON analysis_posture (expires_at);
      -- Webhooks (docs/webhooks.md); the secret signs deliveries, so it is kept as given.
      CREATE TABLE webhooks (
        id          text PRIMARY KEY,
        account     text NOT NULL,
        url         text NOT NULL,
        events      text[] NOT NULL,
        secret      text NOT NULL,
        created_at  timestamptz NOT NULL
      );
      CREATE INDEX webhooks_by_account ON webhooks (account);
      -- The outbox: one row per event and webhook, written in the analysis's transaction.
      CREATE TABLE webhook_deliveries (
        id                    text PRIMARY KEY,
        account               text NOT NULL,
        webhook_id            text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id              text NOT NULL,
        event_type            text NOT NULL,
        body                  text NOT NULL,
        created_at            timestamptz NOT NULL,
        status                text NOT NULL,
        attempts              integer NOT NULL,
        next_attempt_at       timestamptz,
        last_attempt_at       timestamptz,
        last_response_status  integer,
        last_error            text,
        delivered_at          timestamptz,
        -- Set while one node's dispatcher sends it; another node takes it once this has passed.
        locked_until          timestamptz
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id COLLATE "C");
      CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created_at) WHERE status <> 'pending';
    `,
  },
  {
    version: 5,
    name: 'analyses: keyset index, per-account counts',
    // Additive: nodes of every release run against it.
    compatibleFrom: 1,
    sql: `
      -- (IF NOT EXISTS: on a large table, build them beforehand with CREATE INDEX CONCURRENTLY, docs/cluster.md.)
      -- An account's analyses newest first, ties broken by id in byte order: the list reads a page
      -- from where the previous one ended (its cursor) instead of skipping the rows before it.
      CREATE INDEX IF NOT EXISTS analyses_by_account_keyset ON analyses (account, created_at DESC, id COLLATE "C" DESC) WHERE swept_at IS NULL;
      -- Unswept analyses past their expiry, per account: what the counts below still hold.
      CREATE INDEX IF NOT EXISTS analyses_account_expiry ON analyses (account, expires_at) WHERE swept_at IS NULL;
      -- Unswept analyses per account, status and framework ('' for all of them): the list's total
      -- without counting rows. Kept by triggers, so that every node's writes count, whatever its release.
      CREATE TABLE analysis_counts (
        account    text NOT NULL,
        status     text NOT NULL,
        framework  text NOT NULL,
        n          bigint NOT NULL,
        PRIMARY KEY (account, status, framework)
      );
      CREATE FUNCTION csr_analysis_counts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- One upsert per statement, in key order, so that concurrent writers lock counts in the same order.
        IF TG_OP = 'INSERT' THEN
          INSERT INTO analysis_counts AS c (account, status, framework, n)
            SELECT r.account, r.status, f.framework, count(*) FROM new_rows r
            CROSS JOIN LATERAL (SELECT DISTINCT unnest(array_append(r.frameworks, '')) AS framework) f
            WHERE r.swept_at IS NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (account, status, framework) DO UPDATE SET n = c.n + EXCLUDED.n;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO analysis_counts AS c (account, status, framework, n)
            SELECT r.account, r.status, f.framework, -count(*) FROM old_rows r
            CROSS JOIN LATERAL (SELECT DISTINCT unnest(array_append(r.frameworks, '')) AS framework) f
            WHERE r.swept_at IS NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (account, status, framework) DO UPDATE SET n = c.n + EXCLUDED.n;
        ELSE
          INSERT INTO analysis_counts AS c (account, status, framework, n)
            SELECT account, status, framework, sum(d) FROM (
              SELECT r.account, r.status, f.framework, -1 AS d FROM old_rows r
              CROSS JOIN LATERAL (SELECT DISTINCT unnest(array_append(r.frameworks, '')) AS framework) f WHERE r.swept_at IS NULL
              UNION ALL
              SELECT r.account, r.status, f.framework, 1 FROM new_rows r
              CROSS JOIN LATERAL (SELECT DISTINCT unnest(array_append(r.frameworks, '')) AS framework) f WHERE r.swept_at IS NULL
            ) changes GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
          ON CONFLICT (account, status, framework) DO UPDATE SET n = c.n + EXCLUDED.n;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER analyses_count_inserts AFTER INSERT ON analyses REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION csr_analysis_counts();
      CREATE TRIGGER analyses_count_updates AFTER UPDATE ON analyses REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION csr_analysis_counts();
      CREATE TRIGGER analyses_count_deletes AFTER DELETE ON analyses REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION csr_analysis_counts();
      -- The rows already there (CREATE TRIGGER has locked out writers until this commits).
      INSERT INTO analysis_counts (account, status, framework, n)
        SELECT r.account, r.status, f.framework, count(*) FROM analyses r
        CROSS JOIN LATERAL (SELECT DISTINCT unnest(array_append(r.frameworks, '')) AS framework) f
        WHERE r.swept_at IS NULL GROUP BY 1, 2, 3;
    `,
  },
];

/** Advisory lock ids of this service ("csr" in the high bytes, then the purpose). */
export const LOCKS = {
  migrations: 0x637372_01,
  sweep: 0x637372_02,
  directory: 0x637372_03,
  /** With the account's hash as the second key: one account's framework writes at a time. */
  customFrameworks: 0x637372_04,
  /** With a hash of account and scope as the second key: one scope's analyses commit one at a time. */
  posture: 0x637372_05,
  /** With the account's hash as the second key: one account's webhook registrations at a time. */
  webhooks: 0x637372_06,
} as const;

/** The database's schema as a node found it at start (after applying what it knew was missing). */
export interface SchemaState {
  /** The newest step applied. */
  newest: number;
  /** The newest step this release knows. */
  known: number;
  /** The lowest `known` any node may have to run against this schema (the greatest compatibleFrom applied). */
  compatibleFrom: number;
}

/** A database migrated by a release whose steps this one may not run against. */
export class IncompatibleSchemaError extends Error {}

/**
 * Applies the missing migrations (of `migrations`, the release's own by default) and returns the
 * versions applied now. A schema with steps newer than this release knows is fine as long as each
 * of them was recorded as compatible with it; otherwise this refuses with IncompatibleSchemaError.
 */
export async function migrate(sql: Sql, options: { migrations?: readonly Migration[]; onState?: (state: SchemaState) => void } = {}): Promise<number[]> {
  const migrations = options.migrations ?? MIGRATIONS;
  return sql.begin(async (tx) => {
    // A migration may rewrite a large table, and may wait for another node's: no statement timeout here.
    await tx`SET LOCAL statement_timeout = 0`;
    await tx`SELECT pg_advisory_xact_lock(${LOCKS.migrations})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
    // Each step's compatibility, recorded as applied; filled in below for steps applied before it was kept.
    await tx`ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS compatible_from integer`;
    const rows = await tx<{ version: number; compatible_from: number | null }[]>`SELECT version, compatible_from FROM schema_migrations ORDER BY version`;
    const mine = new Map(migrations.map((m) => [m.version, m]));
    for (const row of rows) {
      const known = mine.get(row.version);
      if (row.compatible_from === null && known) {
        await tx`UPDATE schema_migrations SET compatible_from = ${known.compatibleFrom} WHERE version = ${row.version}`;
        row.compatible_from = known.compatibleFrom;
      }
    }
    const known = Math.max(...migrations.map((m) => m.version));
    // A step applied by a newer release says which releases still run against it; unrecorded, assume only its own.
    const blocking = rows.filter((row) => (row.compatible_from ?? row.version) > known);
    if (blocking.length)
      throw new IncompatibleSchemaError(
        `The database schema has migration ${blocking.map((row) => row.version).join(', ')}, which nodes knowing versions below ` +
          `${Math.max(...blocking.map((row) => row.compatible_from ?? row.version))} cannot run against; this release knows up to ${known}. ` +
          'Upgrade this node (docs/cluster.md, "Schema changes").',
      );
    const applied = new Set(rows.map((row) => row.version));
    const now: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO schema_migrations (version, name, compatible_from) VALUES (${migration.version}, ${migration.name}, ${migration.compatibleFrom})`;
      now.push(migration.version);
    }
    const all = [...rows.map((row) => row.compatible_from ?? row.version), ...migrations.filter((m) => now.includes(m.version)).map((m) => m.compatibleFrom)];
    options.onState?.({ newest: Math.max(0, ...applied, ...now), known, compatibleFrom: Math.max(1, ...all) });
    return now;
  });
}
