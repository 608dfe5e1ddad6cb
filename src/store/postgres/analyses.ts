import type { JSONValue, Sql } from 'postgres';
import { ApiError } from '../../core/errors.js';
import { liveEntry, MAX_ANALYSIS_ID_LENGTH } from '../analyses.js';
import type { AnalysisIndexEntry, AnalysisListQuery, AnalysisStore, IdempotencyRecord, SaveOutcome, StoredAnalysis } from '../types.js';
import { LOCKS } from './migrations.js';
import type { AnalysisPostureWrite } from '../posture.js';
import { writePosture } from './posture.js';

/** The sweep's statement timeout (the guard gives its call SWEEP_TIMEOUT_MS, src/store/postgres/open.ts). */
const SWEEP_STATEMENT_TIMEOUT_MS = 290_000;

interface AnalysisRow {
  id: string;
  account: string;
  created_at: Date;
  expires_at: Date;
  frameworks: string[];
  posture_status: string;
  posture_score: number | null;
  critical_gaps: number;
  high_gaps: number;
  status: string;
  swept_at: Date | null;
  data_members: number[] | null;
  custom_frameworks: Array<{ code: string; revision: number }> | null;
}

interface IdempotencyRow {
  account: string;
  key: string;
  operation: string;
  fingerprint: string;
  analysis_id: string;
  status: number;
  created_at: Date;
  expires_at: Date;
}

const ENTRY_COLUMNS =
  'id, account, created_at, expires_at, frameworks, posture_status, posture_score, critical_gaps, high_gaps, status, swept_at, data_members, custom_frameworks';

function entryOf(row: AnalysisRow): AnalysisIndexEntry {
  const entry: AnalysisIndexEntry = {
    id: row.id,
    account: row.account,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    frameworks: row.frameworks,
    posture_status: row.posture_status,
    posture_score: row.posture_score,
    critical_gaps: row.critical_gaps,
    high_gaps: row.high_gaps,
    status: row.status as 'completed',
  };
  if (row.data_members) entry.data_members = row.data_members;
  if (row.custom_frameworks) entry.custom_frameworks = row.custom_frameworks;
  if (row.swept_at) entry.swept_at = row.swept_at.toISOString();
  return entry;
}

const recordOf = (row: IdempotencyRow): IdempotencyRecord => ({
  ...row,
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at.toISOString(),
});

/**
 * Stored analyses in PostgreSQL: one row per analysis, the payload (the create response's bytes
 * in their stored form, src/store/result-codec.ts) beside its index columns. Partial indexes over
 * live rows serve the listing and the sweeper; a swept row keeps its columns without the payload
 * as the tombstone that answers 410.
 */
export class PostgresAnalysisStore implements AnalysisStore {
  constructor(private readonly sql: Sql) {}

  async save(entry: AnalysisIndexEntry, payload: Buffer, idempotency?: IdempotencyRecord, posture?: AnalysisPostureWrite): Promise<SaveOutcome> {
    return this.sql.begin(async (tx): Promise<SaveOutcome> => {
      if (idempotency) {
        await tx`DELETE FROM idempotency_keys WHERE account = ${idempotency.account} AND key = ${idempotency.key} AND expires_at <= ${new Date(idempotency.created_at)}`;
        // A concurrent save under the same key makes this insert wait for its commit, then do nothing.
        const inserted = await tx`
          INSERT INTO idempotency_keys (account, key, operation, fingerprint, analysis_id, status, created_at, expires_at)
          VALUES (${idempotency.account}, ${idempotency.key}, ${idempotency.operation}, ${idempotency.fingerprint},
                  ${idempotency.analysis_id}, ${idempotency.status}, ${new Date(idempotency.created_at)}, ${new Date(idempotency.expires_at)})
          ON CONFLICT (account, key) DO NOTHING RETURNING key`;
        if (!inserted.length) {
          const [existing] = await tx<IdempotencyRow[]>`SELECT * FROM idempotency_keys WHERE account = ${idempotency.account} AND key = ${idempotency.key}`;
          return { stored: false, existing: recordOf(existing) };
        }
      }
      await tx`
        INSERT INTO analyses (id, account, created_at, expires_at, frameworks, posture_status, posture_score, critical_gaps, high_gaps, status, data_members, custom_frameworks, payload)
        VALUES (${entry.id}, ${entry.account}, ${new Date(entry.created_at)}, ${new Date(entry.expires_at)}, ${tx.array(entry.frameworks)},
                ${entry.posture_status}, ${entry.posture_score}, ${entry.critical_gaps}, ${entry.high_gaps}, ${entry.status},
                ${entry.data_members ? tx.array(entry.data_members) : null}::integer[],
                ${entry.custom_frameworks ? tx.json(entry.custom_frameworks as unknown as JSONValue) : null}, ${payload})`;
      // The posture record and webhook deliveries commit with the analysis (src/store/postgres/posture.ts).
      return posture ? { stored: true, deliveries: await writePosture(tx, entry, posture) } : { stored: true };
    });
  }

  async get(id: string, account: string, now: Date): Promise<StoredAnalysis> {
    const [row] =
      id.length <= MAX_ANALYSIS_ID_LENGTH
        ? await this.sql<Array<AnalysisRow & { payload: Buffer | null }>>`SELECT ${this.sql.unsafe(ENTRY_COLUMNS)}, payload FROM analyses WHERE id = ${id}`
        : [];
    const entry = liveEntry(row && entryOf(row), id, account, now);
    if (!row.payload) throw new ApiError('GAP_EXPIRED', { id, expired_at: entry.expires_at });
    return { entry, payload: row.payload };
  }

  /**
   * A page walks the keyset index from the cursor (or from the newest), so page 10,000 costs what
   * page 1 does; the total comes from the per-account counts the triggers keep (migration 5), less
   * the analyses past their expiry that the sweep has not reached yet.
   */
  async list(account: string, query: AnalysisListQuery, now: Date): Promise<{ total: number; items: AnalysisIndexEntry[] }> {
    const sql = this.sql;
    const match = sql`
      ${query.framework ? sql`AND ${query.framework} = ANY (frameworks)` : sql``}
      ${query.status ? sql`AND status = ${query.status}` : sql``}`;
    const after = query.after;
    const [[{ total }], rows] = await Promise.all([
      sql<{ total: string }[]>`
        SELECT (SELECT COALESCE(sum(n), 0) FROM analysis_counts
                WHERE account = ${account} AND framework = ${query.framework ?? ''} ${query.status ? sql`AND status = ${query.status}` : sql``})
             - (SELECT count(*) FROM analyses WHERE account = ${account} AND swept_at IS NULL AND expires_at <= ${now} ${match}) AS total`,
      sql<AnalysisRow[]>`
        SELECT ${sql.unsafe(ENTRY_COLUMNS)} FROM analyses
        WHERE account = ${account} AND swept_at IS NULL AND expires_at > ${now} ${match}
        ${after ? sql`AND (created_at, id COLLATE "C") < (${new Date(after.created_at)}, ${after.id} COLLATE "C")` : sql``}
        ORDER BY created_at DESC, id COLLATE "C" DESC OFFSET ${query.offset} LIMIT ${query.limit}`,
    ]);
    return { total: Number(total), items: rows.map(entryOf) };
  }

  async idempotencyRecord(account: string, key: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const [row] = await this.sql<IdempotencyRow[]>`SELECT * FROM idempotency_keys WHERE account = ${account} AND key = ${key} AND expires_at > ${now}`;
    return row && recordOf(row);
  }

  /** One node sweeps at a time: the others find the advisory lock taken and skip this round. */
  async sweep(now: Date): Promise<number> {
    return this.sql.begin(async (tx) => {
      const [{ locked }] = await tx<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(${LOCKS.sweep}) AS locked`;
      if (!locked) return 0;
      // A sweep after a long pause may remove many payloads: the statement timeout of a request does not fit it.
      await tx`SELECT set_config('statement_timeout', ${String(SWEEP_STATEMENT_TIMEOUT_MS)}, true)`;
      const swept = await tx`UPDATE analyses SET payload = NULL, swept_at = ${now} WHERE swept_at IS NULL AND expires_at <= ${now} RETURNING id`;
      await tx`DELETE FROM idempotency_keys WHERE expires_at <= ${now}`;
      return swept.length;
    });
  }
}
