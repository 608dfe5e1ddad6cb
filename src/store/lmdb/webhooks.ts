import type { AttemptOutcome, ClaimedDelivery, CreateWebhookOutcome, DeliveryRecord, WebhookRecord, WebhookStore } from '../webhooks.js';
import type { DataStore } from './database.js';

type DeliveryKey = [string, string, string];

/** Webhook ids are 32 characters; a longer one cannot exist (and LMDB keys are bounded). */
const MAX_ID_LENGTH = 64;

/**
 * Webhooks and their outbox in the embedded LMDB. Deliveries are due in [due time, delivery id]
 * order; one process serves a DATA_DIR, so a delivery being sent is held in memory rather than
 * leased in the store: after a crash every unfinished delivery is due again at once.
 */
export class LmdbWebhookStore implements WebhookStore {
  /** Deliveries this process is sending now. */
  private readonly sending = new Set<string>();

  constructor(private readonly store: DataStore) {}

  async create(record: WebhookRecord, limit: number): Promise<CreateWebhookOutcome> {
    return this.store.root.transaction((): CreateWebhookOutcome => {
      const count = this.store.webhooks.getKeysCount({ start: [record.account, ''], end: [record.account, '\uffff'] });
      if (count >= limit) return { created: false, count };
      this.store.webhooks.put([record.account, record.id], record);
      return { created: true };
    });
  }

  async list(account: string): Promise<WebhookRecord[]> {
    const items: WebhookRecord[] = [];
    for (const { value } of this.store.webhooks.getRange({ start: [account, ''], end: [account, '\uffff'] })) items.push(value);
    return items.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  async get(account: string, id: string): Promise<WebhookRecord | undefined> {
    return id.length <= MAX_ID_LENGTH ? this.store.webhooks.get([account, id]) : undefined;
  }

  async delete(account: string, id: string): Promise<WebhookRecord | undefined> {
    if (id.length > MAX_ID_LENGTH) return undefined;
    return this.store.root.transaction(() => {
      const record = this.store.webhooks.get([account, id]);
      if (!record) return undefined;
      this.store.webhooks.remove([account, id]);
      for (const { key, value } of this.store.webhookDeliveries.getRange({ start: [account, id, ''], end: [account, id, '\uffff'] })) {
        if (value.next_attempt_at) this.store.webhookDue.remove([Date.parse(value.next_attempt_at), value.id]);
        this.store.webhookDeliveries.remove(key);
      }
      return record;
    });
  }

  async deliveries(account: string, webhookId: string, window: { offset: number; limit: number }): Promise<{ total: number; items: DeliveryRecord[] }> {
    const range = { start: [account, webhookId, '\uffff'], end: [account, webhookId, ''], reverse: true };
    const total = this.store.webhookDeliveries.getKeysCount({ start: [account, webhookId, ''], end: [account, webhookId, '\uffff'] });
    const items: DeliveryRecord[] = [];
    for (const { value } of this.store.webhookDeliveries.getRange({ ...range, offset: window.offset, limit: window.limit })) items.push(value);
    return { total, items };
  }

  async claim(now: Date, limit: number, options: { leaseMs: number; busyWebhooks: readonly string[] }): Promise<ClaimedDelivery[]> {
    const claimed: ClaimedDelivery[] = [];
    const busy = new Set(options.busyWebhooks);
    for (const { value: key } of this.store.webhookDue.getRange({ start: [0, ''], end: [now.getTime(), '\uffff'] })) {
      if (claimed.length >= limit) break;
      const [account, webhookId, id] = key;
      if (this.sending.has(id) || busy.has(webhookId)) continue;
      const delivery = this.store.webhookDeliveries.get(key);
      const webhook = this.store.webhooks.get([account, webhookId]);
      if (!delivery || !webhook || delivery.status !== 'pending') continue;
      this.sending.add(id);
      claimed.push({ ...delivery, url: webhook.url, secret: webhook.secret });
    }
    return claimed;
  }

  async finish(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const key: DeliveryKey = [delivery.account, delivery.webhook_id, delivery.id];
    try {
      await this.store.root.transaction(() => {
        const current = this.store.webhookDeliveries.get(key);
        // Deleted with its webhook meanwhile.
        if (!current) return;
        if (current.next_attempt_at) this.store.webhookDue.remove([Date.parse(current.next_attempt_at), current.id]);
        this.store.webhookDeliveries.put(key, recordAfter(current, outcome));
        if (outcome.next_attempt_at) this.store.webhookDue.put([Date.parse(outcome.next_attempt_at), current.id], key);
      });
    } finally {
      this.sending.delete(delivery.id);
    }
  }

  async sweep(before: Date): Promise<number> {
    const old: DeliveryKey[] = [];
    const cutoff = before.toISOString();
    for (const { key, value } of this.store.webhookDeliveries.getRange({})) {
      if (value.status !== 'pending' && value.created_at < cutoff) old.push(key);
    }
    if (!old.length) return 0;
    await this.store.root.transaction(() => {
      for (const key of old) this.store.webhookDeliveries.remove(key);
    });
    return old.length;
  }
}

/** A delivery record after an attempt. */
export function recordAfter(current: DeliveryRecord, outcome: AttemptOutcome): DeliveryRecord {
  return {
    ...current,
    status: outcome.status,
    attempts: current.attempts + 1,
    next_attempt_at: outcome.next_attempt_at,
    last_attempt_at: outcome.attempted_at,
    last_response_status: outcome.response_status,
    last_error: outcome.error,
    delivered_at: outcome.status === 'delivered' ? outcome.attempted_at : current.delivered_at,
  };
}
