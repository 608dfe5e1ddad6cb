import t from 'tap';
import { routes } from '../../src/api/routes.js';
import { Router } from '../../src/http/router.js';

t.test('the route table is well formed', async (t) => {
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    t.notOk(seen.has(key), `${key} is declared once`);
    seen.add(key);
    t.ok(route.summary && route.tag, `${key} has a summary and a tag`);
    // A body is JSON checked by a schema, or a file in declared media types (scanner import).
    if (route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH')
      t.ok(route.body || (route.rawBody && route.accepts?.length), `${key} declares a body schema or the media types it takes`);
    // Public: the probes, the metrics (METRICS_TOKEN can close them), the OpenAPI document and the /docs page that renders it.
    if (route.tier === null)
      t.match(
        route.path,
        /^\/(healthz|readyz|metrics|v1\/openapi\.json|docs|docs\/assets\/:asset)$/,
        'only the probes, the metrics, the OpenAPI document and the docs page are public',
      );
    else t.match(route.path, /^\/v1\//, `${key} is under /v1`);
    // Operator endpoints (the docs page, /metrics) are not API operations.
    if (route.documented === false)
      t.match(route.path, /^\/(docs(\/|$)|metrics$)/, `${key}: only the docs page and the metrics stay out of the OpenAPI document`);
  }
});

t.test('fixed gap-analysis paths win over /gap-analysis/:id', async (t) => {
  const router = new Router(routes);
  const summary = router.match('GET', '/v1/gap-analysis/summary');
  t.equal(summary.kind === 'found' && summary.route.path, '/v1/gap-analysis/summary');
  const compare = router.match('POST', '/v1/gap-analysis/compare');
  t.equal(compare.kind === 'found' && compare.route.path, '/v1/gap-analysis/compare');
  const byId = router.match('GET', '/v1/gap-analysis/GAP-2026-11-21-ABCDEFGHJK');
  t.same(byId.kind === 'found' && byId.params, { id: 'GAP-2026-11-21-ABCDEFGHJK' });
  const wrong = router.match('GET', '/v1/gap-analysis/compare');
  t.equal(wrong.kind, 'method_not_allowed', 'GET on the fixed compare path is 405, not an analysis lookup');
});
