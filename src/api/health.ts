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
    summary: 'Readiness: the registry index and the data store are open and the worker threads have started (503 until then)',
    response: Type.Object({ status: Type.String(), registry_version: Type.String(), content_hash: Type.String() }),
    handler: ({ services }) => {
      const manifest = services.registry.manifest;
      const status = services.pool.isReady ? 'ready' : 'starting';
      return { status: status === 'ready' ? 200 : 503, json: { status, registry_version: manifest.registry_version, content_hash: manifest.content_hash } };
    },
  },
];
