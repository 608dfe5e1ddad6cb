/**
 * Webhooks (Teams and up, docs/webhooks.md): register a receiver for analysis.created,
 * posture.regressed and control.regressed; list, read and delete them; read each one's deliveries.
 * Deliveries themselves are written by the analyses' commits and sent by src/webhooks/dispatcher.ts.
 */
import { ApiError, notFound } from '../core/errors.js';
import { json, type Route, type RouteContext } from '../http/route.js';
import { timeOrderedId, type WebhookEventType, type WebhookRecord } from '../store/webhooks.js';
import { AddressRefused, receiverAddresses, urlProblem } from '../webhooks/addresses.js';
import { newSecret } from '../webhooks/signing.js';
import { DeliveryList, WebhookBody, WebhookCreated, WebhookDeleted, WebhookList, WebhookView } from '../schemas/webhooks.js';
import { pageMeta, pageParams, pageWindow, QuerySchema, type PageQuery } from './query.js';
import { PagesMeta, TotalMeta } from '../schemas/api.js';

/** Webhooks one account may have. */
export const WEBHOOKS_PER_ACCOUNT = 10;

const view = ({ id, url, events, created_at }: WebhookRecord) => ({ id, url, events, created_at });

async function create(ctx: RouteContext<unknown, { url: string; events: WebhookEventType[] }>) {
  const { services, account, body } = ctx;
  const problem = urlProblem(body.url);
  if (problem) throw new ApiError('webhook_url_refused', { url: body.url, reason: problem });
  const { hostname } = new URL(body.url);
  try {
    await receiverAddresses(hostname, services.config.webhookAllowPrivate);
  } catch (error) {
    const reason = error instanceof AddressRefused ? error.message : `${hostname} does not resolve (${(error as Error).message})`;
    throw new ApiError('webhook_url_refused', { url: body.url, reason });
  }
  const now = services.now();
  const record: WebhookRecord = {
    id: timeOrderedId('wh', now),
    account: account.name,
    url: body.url,
    events: body.events,
    secret: newSecret(),
    created_at: now.toISOString(),
  };
  const outcome = await services.webhooks.create(record, WEBHOOKS_PER_ACCOUNT);
  if (!outcome.created) throw new ApiError('webhook_limit_reached', { count: outcome.count, limit: WEBHOOKS_PER_ACCOUNT });
  return json({ ...view(record), secret: record.secret });
}

async function list({ services, account }: RouteContext) {
  const webhooks = (await services.webhooks.list(account.name)).map(view);
  return json(webhooks, { total: webhooks.length });
}

async function own(ctx: RouteContext): Promise<WebhookRecord> {
  const webhook = await ctx.services.webhooks.get(ctx.account.name, ctx.params.id);
  if (!webhook) throw notFound('Webhook', ctx.params.id);
  return webhook;
}

async function read(ctx: RouteContext) {
  return json(view(await own(ctx)));
}

async function remove(ctx: RouteContext) {
  const removed = await ctx.services.webhooks.delete(ctx.account.name, ctx.params.id);
  if (!removed) throw notFound('Webhook', ctx.params.id);
  return json({ id: removed.id, deleted: true });
}

const DeliveriesQuery = QuerySchema(pageParams(20, 100));

async function deliveries(ctx: RouteContext<PageQuery>) {
  const webhook = await own(ctx);
  const { total, items } = await ctx.services.webhooks.deliveries(ctx.account.name, webhook.id, pageWindow(ctx.query));
  const data = items.map(({ body: _body, account: _account, webhook_id: _webhook, ...delivery }) => delivery);
  return json(data, pageMeta(total, ctx.query, true));
}

export const webhookRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/webhooks',
    tier: 'teams',
    tag: 'webhooks',
    summary: 'Register a receiver for analysis.created, posture.regressed and control.regressed; answers the signing secret, once',
    body: WebhookBody,
    response: WebhookCreated,
    errors: ['webhook_url_refused', 'webhook_limit_reached'],
    handler: create,
  },
  {
    method: 'GET',
    path: '/v1/webhooks',
    tier: 'teams',
    tag: 'webhooks',
    summary: "The account's webhooks, oldest first (never their secrets)",
    response: WebhookList,
    meta: TotalMeta,
    handler: list,
  },
  {
    method: 'GET',
    path: '/v1/webhooks/:id',
    tier: 'teams',
    tag: 'webhooks',
    summary: 'A webhook (never its secret)',
    response: WebhookView,
    handler: read,
  },
  {
    method: 'DELETE',
    path: '/v1/webhooks/:id',
    tier: 'teams',
    tag: 'webhooks',
    summary: 'Delete a webhook and its delivery records; nothing more is sent to it',
    response: WebhookDeleted,
    handler: remove,
  },
  {
    method: 'GET',
    path: '/v1/webhooks/:id/deliveries',
    tier: 'teams',
    tag: 'webhooks',
    summary: "A webhook's deliveries, newest first: status, attempts, the receiver's last answer",
    query: DeliveriesQuery,
    response: DeliveryList,
    meta: PagesMeta,
    handler: deliveries,
  },
];
