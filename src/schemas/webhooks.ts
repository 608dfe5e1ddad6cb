/** Webhooks (docs/webhooks.md): registration body and answers. */
import { Type } from '@sinclair/typebox';
import { StringEnum } from './string-enum.js';

/** The events a webhook may subscribe to; src/store/webhooks.ts holds the same list (a test keeps them equal). */
export const WEBHOOK_EVENT_NAMES = ['analysis.created', 'posture.regressed', 'control.regressed'] as const;

export const WebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'Where deliveries are POSTed: an absolute https (or http) URL' }),
    events: Type.Array(StringEnum(WEBHOOK_EVENT_NAMES), { minItems: 1, uniqueItems: true, description: 'The events to deliver' }),
  },
  { additionalProperties: false },
);

const Webhook = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(StringEnum(WEBHOOK_EVENT_NAMES)),
  created_at: Type.String({ format: 'date-time' }),
};

export const WebhookView = Type.Object(Webhook);
export const WebhookList = Type.Array(WebhookView);
export const WebhookCreated = Type.Object({
  ...Webhook,
  secret: Type.String({ description: 'Signs every delivery (CSR-Signature); answered this once, never again' }),
});
export const WebhookDeleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

export const DeliveryList = Type.Array(
  Type.Object({
    id: Type.String(),
    event_id: Type.String(),
    event_type: StringEnum(WEBHOOK_EVENT_NAMES),
    status: StringEnum(['pending', 'delivered', 'failed'] as const, { description: 'failed: given up 24 hours after the event' }),
    attempts: Type.Integer({ minimum: 0 }),
    created_at: Type.String({ format: 'date-time' }),
    last_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    last_response_status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status at the last attempt" }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt did not count (timeout, refused, redirect, status)' }),
  }),
  { description: 'Newest first' },
);
