import type { JSONValue, Sql, TransactionSql } from 'postgres';
import type { AssessedControls, FrameworkPoint } from '../../gap/posture-facts.js';
import type { AnalysisIndexEntry } from '../types.js';
import { PREVIOUS_LOOKBACK, type AnalysisPostureWrite, type HistoryQuery, type PostureRecord, type PostureStore, type PreviousAssessment } from '../posture.js';
import { deliveriesOf, type WebhookRecord } from '../webhooks.js';
import { LOCKS } from './migrations.js';
import { webhookOf, type WebhookRow } from './webhooks.js';

interface PostureRow {
  id: string;
  account: string;
  scope: string;
  created_at: Date;
  expires_at: Date;
  overall: PostureRecord['overall'];
  framework_codes: string[];
  frameworks: Record<string, FrameworkPoint>;
}

const RECORD_COLUMNS = 'id, account, scope, created_at, expires_at, overall, framework_codes, frameworks';

const recordOf = (row: PostureRow): PostureRecord => ({
  id: row.id,
  account: row.account,
  scope: row.scope,
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at.toISOString(),
  overall: row.overall,
  // In the analysis's order: jsonb keeps its keys sorted its own way.
  frameworks: Object.fromEntries(row.framework_codes.map((code) => [code, row.frameworks[code]])),
});

const NO_CONTROLS: AssessedControls = { compliant: [], partially_compliant: [], non_compliant: [] };
const json = (tx: TransactionSql, value: unknown) => tx.json(value as JSONValue);

/**
 * An analysis's posture record and webhook deliveries, inside the transaction that inserts the
 * analysis (PostgresAnalysisStore.save). Analyses of one scope take a lock on it, so each reads
 * the previous assessments committed before it on any node. Returns the deliveries written.
 */
export async function writePosture(tx: TransactionSql, entry: AnalysisIndexEntry, posture: AnalysisPostureWrite): Promise<number> {
  const { facts } = posture;
  const previous = new Map<string, PreviousAssessment>();
  if (facts.scope !== null) {
    const scope = facts.scope;
    const createdAt = new Date(entry.created_at);
    await tx`SELECT pg_advisory_xact_lock(${LOCKS.posture}::integer, hashtext(${entry.account} || chr(1) || ${scope}))`;
    const [later] = await tx`
      SELECT 1 FROM analysis_posture WHERE account = ${entry.account} AND scope = ${scope}
        AND (created_at, id COLLATE "C") > (${createdAt}, ${entry.id}::text COLLATE "C") LIMIT 1`;
    if (!later) {
      const earlier = await tx<Array<{ id: string; created_at: Date; frameworks: Record<string, FrameworkPoint> }>>`
        SELECT id, created_at, frameworks FROM analysis_posture WHERE account = ${entry.account} AND scope = ${scope}
          AND (created_at, id COLLATE "C") < (${createdAt}, ${entry.id}::text COLLATE "C") AND expires_at > ${createdAt}
        ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT ${PREVIOUS_LOOKBACK}`;
      const chosen = new Map<string, (typeof earlier)[number]>();
      for (const code of Object.keys(facts.frameworks)) {
        const row = earlier.find((candidate) => candidate.frameworks[code]);
        if (row) chosen.set(code, row);
      }
      const ids = [...new Set([...chosen.values()].map((row) => row.id))];
      const controlsOf = new Map<string, Record<string, AssessedControls>>();
      if (ids.length) {
        for (const row of await tx<
          Array<{ id: string; controls: Record<string, AssessedControls> }>
        >`SELECT id, controls FROM analysis_posture WHERE id = ANY(${ids})`)
          controlsOf.set(row.id, row.controls);
      }
      for (const [code, row] of chosen) {
        previous.set(code, {
          analysis_id: row.id,
          created_at: row.created_at.toISOString(),
          point: row.frameworks[code],
          controls: controlsOf.get(row.id)?.[code] ?? NO_CONTROLS,
        });
      }
    }
    await tx`
      INSERT INTO analysis_posture (id, account, scope, created_at, expires_at, overall, framework_codes, frameworks, controls)
      VALUES (${entry.id}, ${entry.account}, ${scope}, ${createdAt}, ${new Date(entry.expires_at)},
              ${json(tx, facts.overall)}, ${tx.array(Object.keys(facts.frameworks))}, ${json(tx, facts.frameworks)}, ${json(tx, facts.controls)})`;
  }
  const webhooks: WebhookRecord[] = (await tx<WebhookRow[]>`SELECT * FROM webhooks WHERE account = ${entry.account}`).map(webhookOf);
  if (!webhooks.length) return 0;
  const deliveries = deliveriesOf(entry.account, webhooks, posture.events(previous));
  if (deliveries.length) {
    const rows = deliveries.map((d) => ({
      id: d.id,
      account: d.account,
      webhook_id: d.webhook_id,
      event_id: d.event_id,
      event_type: d.event_type,
      body: d.body,
      created_at: new Date(d.created_at),
      status: d.status,
      attempts: d.attempts,
      next_attempt_at: new Date(d.next_attempt_at!),
    }));
    await tx`INSERT INTO webhook_deliveries ${tx(rows)}`;
  }
  return deliveries.length;
}

/** Posture records in PostgreSQL: one row per scoped analysis, indexed by (account, scope, created_at). */
export class PostgresPostureStore implements PostureStore {
  constructor(private readonly sql: Sql) {}

  async history(account: string, scope: string, query: HistoryQuery, now: Date): Promise<{ total: number; items: PostureRecord[] }> {
    const sql = this.sql;
    const filters = sql`
      account = ${account} AND scope = ${scope} AND expires_at > ${now}
      ${query.from !== undefined ? sql`AND created_at >= ${new Date(query.from)}` : sql``}
      ${query.to !== undefined ? sql`AND created_at <= ${new Date(query.to)}` : sql``}
      ${query.framework !== undefined ? sql`AND ${query.framework} = ANY (framework_codes)` : sql``}`;
    const [[{ total }], rows] = await Promise.all([
      sql<Array<{ total: number }>>`SELECT count(*)::integer AS total FROM analysis_posture WHERE ${filters}`,
      sql<
        PostureRow[]
      >`SELECT ${sql.unsafe(RECORD_COLUMNS)} FROM analysis_posture WHERE ${filters} ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT ${query.limit}`,
    ]);
    return { total, items: rows.reverse().map(recordOf) };
  }

  async sweep(now: Date): Promise<number> {
    const removed = await this.sql`DELETE FROM analysis_posture WHERE expires_at <= ${now} RETURNING id`;
    return removed.length;
  }
}
