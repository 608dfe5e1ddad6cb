/**
 * Live responses against the OpenAPI document: every documented operation is called on a real
 * service (enterprise key, real registry, real analyses) and its answer is checked with ajv
 * against the document's schema for that status and media type, headers included. Then an error
 * per kind (401, 404, 400, 403) against the error responses the document lists.
 */
import t, { type Test } from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { routes } from '../../src/http/routes.js';
import { buildOpenApiDocument, openApiPath } from '../../src/api/openapi.js';
import { startTestService, call, type CallResult } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';

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
  const get = (path: string) => call(service, 'GET', path, { key });
  const post = (path: string, body: unknown) => call(service, 'POST', path, { key, body });

  const signals = (await get('/v1/signals?per_page=2')).body.data;
  const signalId = signals[0].id;
  const domainId = (await get('/v1/domains')).body.data[0].id;
  const control = (await get('/v1/frameworks/HIPAA/controls')).body.data.controls[0];
  const artifactType = (await get('/v1/artifact-types')).body.data[0];
  const template = (await get('/v1/finding-templates')).body.data[0];
  const toolMapping = (await get('/v1/tool-mappings')).body.data[0];
  const picked = primarySignals('HIPAA', 3);
  const findings = picked.map((p, i) => finding(`f-${i}`, p.signal_id, i === 0 ? 'resolved' : 'open'));
  const first = await post('/v1/gap-analysis', { frameworks: ['HIPAA', 'SOC2'], findings, options: { include_evidence_requirements: true } });
  const second = await post('/v1/gap-analysis', { frameworks: ['HIPAA'], findings: findings.map((f) => ({ ...f, status: 'open' })) });
  t.equal(first.status, 200, 'analysis created');

  const calls: Array<[string, string, () => Promise<CallResult>]> = [
    ['GET', '/healthz', () => call(service, 'GET', '/healthz')],
    ['GET', '/readyz', () => call(service, 'GET', '/readyz')],
    ['POST', '/v1/gap-analysis', async () => first],
    ['GET', '/v1/gap-analysis/summary', () => get('/v1/gap-analysis/summary')],
    ['POST', '/v1/gap-analysis/compare', () => post('/v1/gap-analysis/compare', { baseline_id: first.body.data.id, current_id: second.body.data.id, options: { include_unchanged: true } })],
    ['GET', '/v1/gap-analysis/:id', () => get(`/v1/gap-analysis/${first.body.data.id}`)],
    ['POST', '/v1/gap-analysis/:id/export', () => post(`/v1/gap-analysis/${first.body.data.id}/export`, { format: 'json' })],
    ['GET', '/v1/gap-analysis/:id/export', () => get(`/v1/gap-analysis/${first.body.data.id}/export?format=csv`)],
    ['GET', '/v1/signals', () => get('/v1/signals?per_page=3')],
    ['POST', '/v1/signals/bulk', () => post('/v1/signals/bulk', { ids: [signalId, 'CSR-NOPE-001'] })],
    ['GET', '/v1/signals/:id', () => get(`/v1/signals/${signalId}`)],
    ['GET', '/v1/signals/:id/mappings', () => get(`/v1/signals/${signalId}/mappings`)],
    ['GET', '/v1/mappings', () => get('/v1/mappings?per_page=3')],
    ['POST', '/v1/mappings/bulk', () => post('/v1/mappings/bulk', { signal_ids: [signalId, 'CSR-NOPE-001'] })],
    ['GET', '/v1/domains', () => get('/v1/domains')],
    ['GET', '/v1/domains/:id', () => get(`/v1/domains/${domainId}`)],
    ['GET', '/v1/search', () => get('/v1/search?q=encryption&per_page=3')],
    ['GET', '/v1/stats', () => get('/v1/stats')],
    ['GET', '/v1/frameworks', () => get('/v1/frameworks')],
    ['GET', '/v1/frameworks/:code/controls', () => get('/v1/frameworks/HIPAA/controls')],
    ['GET', '/v1/controls', () => get('/v1/controls?framework=HIPAA&per_page=5')],
    ['GET', '/v1/controls/:id', () => get(`/v1/controls/${encodeURIComponent(control.id)}?framework=HIPAA`)],
    ['GET', '/v1/artifact-types', () => get('/v1/artifact-types?per_page=3')],
    ['POST', '/v1/artifact-types/resolve', () => post('/v1/artifact-types/resolve', { resources: [{ provider: 'aws', resource_type: 'AWS::S3::Bucket' }] })],
    ['GET', '/v1/artifact-types/:id', () => get(`/v1/artifact-types/${artifactType.id}`)],
    ['GET', '/v1/crosswalks', () => get('/v1/crosswalks')],
    ['GET', '/v1/crosswalks/controls', () => get('/v1/crosswalks/controls?framework_a=HIPAA&framework_b=SOC2&limit=5')],
    ['GET', '/v1/crosswalks/signals', () => get('/v1/crosswalks/signals?limit=5')],
    ['GET', '/v1/finding-templates', () => get('/v1/finding-templates?per_page=3')],
    ['GET', '/v1/finding-templates/:id', () => get(`/v1/finding-templates/${template.id}`)],
    ['GET', '/v1/tool-mappings', () => get('/v1/tool-mappings?per_page=3')],
    ['GET', '/v1/tool-mappings/lookup', () => get(`/v1/tool-mappings/lookup?tool_id=${encodeURIComponent(toolMapping.tool_id)}&rule_id=${encodeURIComponent(toolMapping.rule_id)}`)],
    ['GET', '/v1/security-tools', () => get('/v1/security-tools')],
    ['POST', '/v1/validate', () => post('/v1/validate', { schema: 'signal', data: { id: 'x' } })],
    ['POST', '/v1/validate/batch', () => post('/v1/validate/batch', { schema: 'signal', items: [{ id: 'x' }] })],
    ['GET', '/v1/openapi.json', () => call(service, 'GET', '/v1/openapi.json')],
  ];
  const documented = routes.filter((route) => route.documented !== false).map((route) => `${route.method} ${route.path}`);
  t.same(calls.map(([method, path]) => `${method} ${path}`).sort(), documented.sort(), 'one call per documented operation');

  for (const [method, template, run] of calls) {
    const res = await run();
    t.equal(res.status, 200, `${method} ${template} answers 200${res.status === 200 ? '' : `: ${res.text.slice(0, 200)}`}`);
    check(t, method, template, res);
  }

  // Errors against the documented error responses.
  check(t, 'GET', '/v1/signals/:id', await call(service, 'GET', `/v1/signals/${signalId}`), 'no key → 401');
  check(t, 'GET', '/v1/signals/:id', await get('/v1/signals/CSR-NOPE-001'), 'unknown signal → 404');
  check(t, 'GET', '/v1/signals', await get('/v1/signals?per_page=1000'), 'per_page out of range → 400');
  check(t, 'GET', '/v1/gap-analysis/:id', await get('/v1/gap-analysis/GAP-2026-01-01-AAAAAAAAAA'), 'unknown analysis → 404');
  const community = await service.key('community');
  check(t, 'GET', '/v1/controls', await call(service, 'GET', '/v1/controls', { key: community }), 'tier too low → 403');
  check(t, 'POST', '/v1/gap-analysis', await post('/v1/gap-analysis', { frameworks: ['NOPE'], findings }), 'unknown framework → 400');
});
