import { Type } from '@sinclair/typebox';
import type { Route } from '../http/route.js';

/** Probes for load balancers and orchestrators: no auth, no rate limit. */
export const healthRoutes: Route[] = [
  {
    method: 'GET',
    path: '/healthz',
    tier: null,
    tag: 'operations',
    summary: 'Liveness: the process is up and serving HTTP',
    response: Type.Object({ status: Type.Literal('ok') }),
    handler: () => ({ json: { status: 'ok' } }),
  },
  {
    method: 'GET',
    path: '/readyz',
    tier: null,
    tag: 'operations',
    summary:
      'Readiness: the registry index is open, the data store and (with REDIS_URL) Redis answer within their deadlines, and the worker pool can take work (503 while any of these fails)',
    otherSuccessStatuses: {
      503: 'Not ready (status "starting" while the worker threads load, "unavailable" while PostgreSQL or Redis does not answer within its deadline, "busy" while the task queue is full): same body',
    },
    response: Type.Object({
      status: Type.Union([Type.Literal('ready'), Type.Literal('starting'), Type.Literal('unavailable'), Type.Literal('busy')]),
      registry_version: Type.String(),
      content_hash: Type.String(),
      pool: Type.Object({ queued: Type.Integer(), queue_limit: Type.Integer() }),
      store: Type.Object({
        kind: Type.Union([Type.Literal('lmdb'), Type.Literal('postgres')]),
        available: Type.Boolean({ description: 'false while PostgreSQL does not answer within STORE_TIMEOUT_MS (docs/cluster.md)' }),
        since: Type.Optional(Type.String({ format: 'date-time', description: 'when `available` last changed' })),
        timeout_ms: Type.Optional(Type.Integer({ description: 'the deadline of one store call' })),
        refused: Type.Optional(
          Type.Object(
            { timeout: Type.Integer(), unreachable: Type.Integer(), account_busy: Type.Integer() },
            { description: 'store calls answered 503 store_unavailable since start, by reason' },
          ),
        ),
      }),
      rate_limits: Type.Object({
        store: Type.Union([Type.Literal('memory'), Type.Literal('redis')]),
        shared: Type.Boolean({ description: 'false while Redis does not answer and each node counts alone (docs/cluster.md)' }),
        fallbacks: Type.Integer({ description: 'requests counted on this node alone because Redis did not answer, since start' }),
      }),
    }),
    handler: ({ services }) => {
      const manifest = services.registry.manifest;
      const pool = services.pool.health;
      const store = services.storeHealth();
      const rateLimits = services.rateLimits();
      // Redis counts as failing only where it is configured: the memory limiter is never shared and never down.
      const dependencies = store.available && (rateLimits.store === 'memory' || rateLimits.shared);
      const status = !pool.ready && pool.reason === 'starting' ? 'starting' : !dependencies ? 'unavailable' : pool.ready ? 'ready' : 'busy';
      return {
        status: status === 'ready' ? 200 : 503,
        json: {
          status,
          registry_version: manifest.registry_version,
          content_hash: manifest.content_hash,
          pool: { queued: pool.queued, queue_limit: pool.queue_limit },
          store,
          rate_limits: rateLimits,
        },
      };
    },
  },
];
