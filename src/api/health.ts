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
    summary: 'Readiness: the registry index and the data store are open and the worker pool can take work (503 while its threads start or its queue is full)',
    otherSuccessStatuses: { 503: 'Not ready (status "starting" while the worker threads load, "busy" while the task queue is full): same body' },
    response: Type.Object({
      status: Type.Union([Type.Literal('ready'), Type.Literal('starting'), Type.Literal('busy')]),
      registry_version: Type.String(),
      content_hash: Type.String(),
      pool: Type.Object({ queued: Type.Integer(), queue_limit: Type.Integer() }),
      rate_limits: Type.Object({
        store: Type.Union([Type.Literal('memory'), Type.Literal('redis')]),
        shared: Type.Boolean({ description: 'false while Redis does not answer and each node counts alone (docs/cluster.md)' }),
        fallbacks: Type.Integer({ description: 'requests counted on this node alone because Redis did not answer, since start' }),
      }),
    }),
    handler: ({ services }) => {
      const manifest = services.registry.manifest;
      const pool = services.pool.health;
      const status = pool.ready ? 'ready' : pool.reason === 'starting' ? 'starting' : 'busy';
      return {
        status: pool.ready ? 200 : 503,
        json: {
          status,
          registry_version: manifest.registry_version,
          content_hash: manifest.content_hash,
          pool: { queued: pool.queued, queue_limit: pool.queue_limit },
          rate_limits: services.rateLimits(),
        },
      };
    },
  },
];
