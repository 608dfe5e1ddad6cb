import { randomBytes } from 'node:crypto';

/** The events a webhook may subscribe to (docs/webhooks.md). */
export const WEBHOOK_EVENTS = ['analysis.created', 'posture.regressed', 'control.regressed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** A registered receiver. The secret signs every delivery; it is answered once, at registration. */
export interface WebhookRecord {
  id: string;
  account: string;
  url: string;
  events: WebhookEventType[];
  secret: string;
  created_at: string;
}

/** An event as the analysis's commit writes it; each subscribed webhook gets a delivery of it. */
export interface WebhookEventDraft {
  id: string;
  type: WebhookEventType;
  created_at: string;
  /** The delivery body, exactly as sent and signed. */
  body: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event to one webhook: the outbox row, and the record GET /v1/webhooks/{id}/deliveries shows. */
export interface DeliveryRecord {
  id: string;
  account: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookEventType;
  body: string;
  created_at: string;
  status: DeliveryStatus;
  attempts: number;
  /** When the next attempt is due; null once delivered or given up. */
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  /** The receiver's HTTP status at the last attempt; null when none came (refused, timed out). */
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
}

/** A due delivery taken by one node's dispatcher, with what it needs to send it. */
export interface ClaimedDelivery extends DeliveryRecord {
  url: string;
  secret: string;
}

/** What an attempt leaves: the next state of the delivery. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  attempted_at: string;
  next_attempt_at: string | null;
  response_status: number | null;
  error: string | null;
}

export type CreateWebhookOutcome = { created: true } | { created: false; count: number };

/**
 * Webhooks and their delivery outbox. Deliveries are written by the analysis store in the
 * analysis's commit (AnalysisStore.save); this store lists them and hands due ones to the
 * dispatcher: at least once, since a delivery stays due until an attempt's outcome is recorded.
 */
export interface WebhookStore {
  create(record: WebhookRecord, limit: number): Promise<CreateWebhookOutcome>;
  list(account: string): Promise<WebhookRecord[]>;
  get(account: string, id: string): Promise<WebhookRecord | undefined>;
  /** Removes the webhook and its deliveries; the removed record, or undefined when there was none. */
  delete(account: string, id: string): Promise<WebhookRecord | undefined>;
  /** The webhook's deliveries, newest first. */
  deliveries(account: string, webhookId: string, window: { offset: number; limit: number }): Promise<{ total: number; items: DeliveryRecord[] }>;
  /**
   * Up to `limit` deliveries due by `now`, oldest due first, none of `busyWebhooks`, each taken
   * for `leaseMs` so that no other dispatcher sends it meanwhile (a node that dies holding one
   * leaves it to be taken again when the lease ends).
   */
  claim(now: Date, limit: number, options: { leaseMs: number; busyWebhooks: readonly string[] }): Promise<ClaimedDelivery[]>;
  finish(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void>;
  /** Removes delivered and failed records older than `before`; returns how many. */
  sweep(before: Date): Promise<number>;
}

/** Ids that sort by creation time: `<prefix>_<12 hex digits of ms><16 random hex digits>`. */
export function timeOrderedId(prefix: string, at: Date): string {
  return `${prefix}_${at.getTime().toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;
}

/** Each webhook's delivery of each event it subscribes to, due at the event's time. */
export function deliveriesOf(account: string, webhooks: readonly WebhookRecord[], events: readonly WebhookEventDraft[]): DeliveryRecord[] {
  const deliveries: DeliveryRecord[] = [];
  for (const event of events) {
    const at = new Date(event.created_at);
    for (const webhook of webhooks) {
      if (!webhook.events.includes(event.type)) continue;
      deliveries.push({
        id: timeOrderedId('dlv', at),
        account,
        webhook_id: webhook.id,
        event_id: event.id,
        event_type: event.type,
        body: event.body,
        created_at: event.created_at,
        status: 'pending',
        attempts: 0,
        next_attempt_at: event.created_at,
        last_attempt_at: null,
        last_response_status: null,
        last_error: null,
        delivered_at: null,
      });
    }
  }
  return deliveries;
}
