import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../core/errors.js';
import { bearerToken } from '../core/bearer.js';
import type { Route } from '../http/route.js';

/** Whether the Authorization header carries the metrics token (compared in constant time). */
function bearsToken(header: string | undefined, token: string): boolean {
  const presented = bearerToken(header);
  if (!presented) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /metrics for Prometheus (text exposition format). Open like the health probes unless
 * METRICS_TOKEN is set; it is an operator's endpoint, not an API operation, so it is left out of
 * the OpenAPI document and described in docs/operations.md instead.
 */
export const metricsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/metrics',
    tier: null,
    tag: 'operations',
    summary: 'Prometheus metrics of this node',
    documented: false,
    produces: ['text/plain; version=0.0.4; charset=utf-8'],
    async handler({ services, headers }) {
      const token = services.config.metricsToken;
      if (token && !bearsToken(headers.authorization, token)) throw new ApiError('unauthorized');
      const { registry } = services.metrics;
      return { headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }, file: Buffer.from(await registry.metrics()) };
    },
  },
];
