import type { Sql } from 'postgres';
import type { AttemptOutcome, ClaimedDelivery, CreateWebhookOutcome, DeliveryRecord, WebhookEventType, WebhookRecord, WebhookStore } from '../webhooks.js';
import { LOCKS } from './migrations.js';

export interface WebhookRow {
  id: string;
  account: string;
  url: string;
  events: string[];
  secret: string;
  created_at: Date;
}

interface DeliveryRow {
  id: string;
  account: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  body: string;
  created_at: Date;
  status: DeliveryRecord['status'];
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
}

export const webhookOf = (row: WebhookRow): WebhookRecord => ({
  id: row.id,
  account: row.account,
  url: row.url,
  events: row.events as WebhookEventType[],
  secret: row.secret,
  created_at: row.created_at.toISOString(),
});

const iso = (value: Date | null) => (value ? value.toISOString() : null);

const deliveryOf = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  account: row.account,
  webhook_id: row.webhook_id,
  event_id: row.event_id,
  event_type: row.event_type as WebhookEventType,
  body: row.body,
  created_at: row.created_at.toISOString(),
  status: row.status,
  attempts: row.attempts,
  next_attempt_at: iso(row.next_attempt_at),
  last_attempt_at: iso(row.last_attempt_at),
  last_response_status: row.last_response_status,
  last_error: row.last_error,
  delivered_at: iso(row.delivered_at),
});

const DELIVERY_COLUMNS =
  'id, account, webhook_id, event_id, event_type, body, created_at, status, attempts, next_attempt_at, last_attempt_at, last_response_status, last_error, delivered_at';

/**
 * Webhooks and their outbox in PostgreSQL. Every node's dispatcher claims due deliveries with
 * FOR UPDATE SKIP LOCKED and a lease (locked_until), so two nodes never send one delivery at
 * once, and a node lost while sending leaves it to the others when its lease ends.
 */
export class PostgresWebhookStore implements WebhookStore {
  constructor(private readonly sql: Sql) {}

  async create(record: WebhookRecord, limit: number): Promise<CreateWebhookOutcome> {
    return this.sql.begin(async (tx): Promise<CreateWebhookOutcome> => {
      await tx`SELECT pg_advisory_xact_lock(${LOCKS.webhooks}::integer, hashtext(${record.account}))`;
      const [{ count }] = await tx<Array<{ count: number }>>`SELECT count(*)::integer AS count FROM webhooks WHERE account = ${record.account}`;
      if (count >= limit) return { created: false, count };
      await tx`
        INSERT INTO webhooks (id, account, url, events, secret, created_at)
        VALUES (${record.id}, ${record.account}, ${record.url}, ${tx.array(record.events)}, ${record.secret}, ${new Date(record.created_at)})`;
      return { created: true };
    });
  }

  async list(account: string): Promise<WebhookRecord[]> {
    return (await this.sql<WebhookRow[]>`SELECT * FROM webhooks WHERE account = ${account} ORDER BY created_at, id COLLATE "C"`).map(webhookOf);
  }

  async get(account: string, id: string): Promise<WebhookRecord | undefined> {
    const [row] = await this.sql<WebhookRow[]>`SELECT * FROM webhooks WHERE account = ${account} AND id = ${id}`;
    return row && webhookOf(row);
  }

  async delete(account: string, id: string): Promise<WebhookRecord | undefined> {
    // Its deliveries go with it (ON DELETE CASCADE).
    const [row] = await this.sql<WebhookRow[]>`DELETE FROM webhooks WHERE account = ${account} AND id = ${id} RETURNING *`;
    return row && webhookOf(row);
  }

  async deliveries(account: string, webhookId: string, window: { offset: number; limit: number }): Promise<{ total: number; items: DeliveryRecord[] }> {
    const sql = this.sql;
    const [[{ total }], rows] = await Promise.all([
      sql<Array<{ total: number }>>`SELECT count(*)::integer AS total FROM webhook_deliveries WHERE account = ${account} AND webhook_id = ${webhookId}`,
      sql<DeliveryRow[]>`
        SELECT ${sql.unsafe(DELIVERY_COLUMNS)} FROM webhook_deliveries WHERE account = ${account} AND webhook_id = ${webhookId}
        ORDER BY id COLLATE "C" DESC OFFSET ${window.offset} LIMIT ${window.limit}`,
    ]);
    return { total, items: rows.map(deliveryOf) };
  }

  async claim(now: Date, limit: number, options: { leaseMs: number; busyWebhooks: readonly string[] }): Promise<ClaimedDelivery[]> {
    const sql = this.sql;
    const rows = await sql<Array<DeliveryRow & { url: string; secret: string }>>`
      UPDATE webhook_deliveries d SET locked_until = ${new Date(now.getTime() + options.leaseMs)}
      FROM webhooks w
      WHERE w.id = d.webhook_id AND d.id IN (
        SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= ${now} AND (locked_until IS NULL OR locked_until <= ${now})
          ${options.busyWebhooks.length ? sql`AND webhook_id <> ALL(${sql.array([...options.busyWebhooks])})` : sql``}
        ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING ${sql.unsafe(
        DELIVERY_COLUMNS.split(', ')
          .map((column) => `d.${column}`)
          .join(', '),
      )}, w.url, w.secret`;
    return rows.map((row) => ({ ...deliveryOf(row), url: row.url, secret: row.secret }));
  }

  async finish(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const at = new Date(outcome.attempted_at);
    await this.sql`
      UPDATE webhook_deliveries SET status = ${outcome.status}, attempts = attempts + 1,
             next_attempt_at = ${outcome.next_attempt_at ? new Date(outcome.next_attempt_at) : null},
             last_attempt_at = ${at}, last_response_status = ${outcome.response_status}, last_error = ${outcome.error},
             delivered_at = ${outcome.status === 'delivered' ? at : null}, locked_until = NULL
      WHERE id = ${delivery.id}`;
  }

  async sweep(before: Date): Promise<number> {
    const removed = await this.sql`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ${before} RETURNING id`;
    return removed.length;
  }
}
