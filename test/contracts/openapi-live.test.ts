/**
 * Live responses against the OpenAPI document: every documented operation is called on a real
 * service (enterprise key, real registry, real analyses) and its answer is checked with ajv
 * against the document's schema for that status and media type, headers included. Then an error
 * per kind (401, 404, 400, 403) against the error responses the document lists.
 */
import t, { type Test } from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { routes } from '../../src/api/routes.js';
import { buildOpenApiDocument, openApiPath } from '../../src/api/openapi.js';
import { startTestService, call, type CallResult } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';
import { operationCalls } from '../helpers/operation-calls.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const document = buildOpenApiDocument(routes, { version: '1.0.0' }) as any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

/** The documented operation a route template names. */
function operationOf(method: string, template: string) {
  return document.paths[openApiPath(template)]?.[method.toLowerCase()];
}

function check(t: Test, method: string, template: string, res: CallResult, label = `${method} ${template} → ${res.status}`): void {
  const op = operationOf(method, template);
  if (!t.ok(op, `${label}: documented`)) return;
  const response = op.responses[String(res.status)];
  if (!t.ok(response, `${label}: status ${res.status} is documented`)) return;
  const type = (res.headers.get('content-type') ?? '').split(';')[0];
  const content = response.content?.[type];
  if (!t.ok(content, `${label}: ${type} is documented for ${res.status}`)) return;
  if (type === 'application/json') {
    const validate = ajv.compile(content.schema);
    const valid = validate(res.body);
    t.ok(valid, `${label}: body matches the schema${valid ? '' : ` ${ajv.errorsText(validate.errors?.slice(0, 3))}`}`);
  }
  for (const name of Object.keys(response.headers ?? {})) {
    if (name === 'Retry-After' && res.status !== 429 && res.status !== 503) continue;
    const schema = document.components.headers[name].schema;
    const value = res.headers.get(name);
    t.ok(value !== null && ajv.validate(schema, value), `${label}: header ${name} (${value})`);
  }
}

t.test('every operation answers as the document says', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('enterprise');
  const starting = await call(service, 'GET', '/readyz');
  check(t, 'GET', '/readyz', starting, `/readyz while starting → ${starting.status}`);
  await service.services.pool.ready;
  const calls = await operationCalls(service, key);
  const documented = routes.filter((route) => route.documented !== false).map((route) => `${route.method} ${route.path}`);
  t.same(calls.map(({ method, template }) => `${method} ${template}`).sort(), documented.sort(), 'one call per documented operation');

  for (const { method, template, run } of calls) {
    const res = await run();
    t.equal(res.status, 200, `${method} ${template} answers 200${res.status === 200 ? '' : `: ${res.text.slice(0, 200)}`}`);
    check(t, method, template, res);
  }

  // Errors against the documented error responses.
  const get = (path: string) => call(service, 'GET', path, { key });
  const signalId = primarySignals('HIPAA', 1)[0].signal_id;
  const findings = [finding('f-1', signalId)];
  check(t, 'GET', '/v1/signals/:id', await call(service, 'GET', `/v1/signals/${signalId}`), 'no key → 401');
  check(t, 'GET', '/v1/signals/:id', await get('/v1/signals/CSR-NOPE-001'), 'unknown signal → 404');
  check(t, 'GET', '/v1/signals', await get('/v1/signals?per_page=1000'), 'per_page out of range → 400');
  check(t, 'GET', '/v1/gap-analysis/:id', await get('/v1/gap-analysis/GAP-2026-01-01-AAAAAAAAAA'), 'unknown analysis → 404');
  const community = await service.key('community');
  check(t, 'GET', '/v1/controls', await call(service, 'GET', '/v1/controls', { key: community }), 'tier too low → 403');
  check(
    t,
    'POST',
    '/v1/gap-analysis',
    await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['NOPE'], findings } }),
    'unknown framework → 400',
  );
});

t.test('every operation carries an example that matches its schemas', async (t) => {
  for (const route of routes.filter((r) => r.documented !== false)) {
    const label = `${route.method} ${route.path}`;
    const op = operationOf(route.method, route.path);
    const examples = Object.entries(op.responses['200'].content as Record<string, { schema: object; example?: unknown }>).filter(
      ([, media]) => media.example !== undefined,
    );
    if (!t.equal(examples.length, 1, `${label}: one response example`)) continue;
    const [type, media] = examples[0];
    if (type === 'application/json')
      t.ok(ajv.validate(media.schema, media.example), `${label}: the example matches the response schema ${ajv.errorsText(ajv.errors?.slice(0, 3))}`);
    else t.type(media.example, 'string', `${label}: a ${type} example`);
    if (route.body) {
      const request = op.requestBody.content['application/json'];
      t.ok(request.example !== undefined && ajv.validate(request.schema, request.example), `${label}: a request example that matches the body schema`);
    }
  }
});
