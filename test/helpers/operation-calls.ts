/**
 * One real call per documented operation, each answering 200: the live contract test checks the
 * answers against the OpenAPI document, and test/tools/openapi-examples.ts keeps trimmed copies
 * of them as the document's examples.
 */
import { call, type CallResult } from './service.js';
import { finding, primarySignals } from './findings.js';

export interface OperationCall {
  method: string;
  /** The route's path template, e.g. /v1/signals/:id. */
  template: string;
  /** The request body sent, if any (the example request). */
  body?: unknown;
  run(): Promise<CallResult>;
}

export async function operationCalls(service: { url: string }, key: string): Promise<OperationCall[]> {
  const get = (path: string) => call(service, 'GET', path, { key });
  const post = (path: string, body: unknown) => call(service, 'POST', path, { key, body });
  const createBody = (frameworks: string[], findings: unknown[], options?: object) => ({ frameworks, findings, ...(options && { options }) });

  const signals = (await get('/v1/signals?per_page=2')).body.data;
  const signalId = signals[0].id;
  const domainId = (await get('/v1/domains')).body.data[0].id;
  const control = (await get('/v1/frameworks/HIPAA/controls')).body.data.controls[0];
  const artifactType = (await get('/v1/artifact-types')).body.data[0];
  const template = (await get('/v1/finding-templates')).body.data[0];
  const toolMapping = (await get('/v1/tool-mappings')).body.data[0];
  const picked = primarySignals('HIPAA', 3);
  const findings = picked.map((p, i) => finding(`f-${i}`, p.signal_id, i === 0 ? 'resolved' : 'open'));
  const firstBody = createBody(['HIPAA', 'SOC2'], findings, { include_evidence_requirements: true });
  const first = await post('/v1/gap-analysis', firstBody);
  const second = await post(
    '/v1/gap-analysis',
    createBody(
      ['HIPAA'],
      findings.map((f) => ({ ...f, status: 'open' })),
    ),
  );
  if (first.status !== 200 || second.status !== 200) throw new Error(`analyses not created: ${first.text.slice(0, 200)}`);
  const compareBody = { baseline_id: first.body.data.id, current_id: second.body.data.id, options: { include_unchanged: true } };
  // A two-row Prowler CSV of our own (docs/ingest.md): one failing and one passing check.
  const scan = [
    'CHECK_ID;STATUS;SEVERITY;RESOURCE_UID;RESOURCE_TYPE;PROVIDER;TIMESTAMP',
    's3_bucket_default_encryption;FAIL;medium;arn:aws:s3:::example-logs;AwsS3Bucket;aws;2026-11-20 08:15:00',
    's3_bucket_default_encryption;PASS;medium;arn:aws:s3:::example-data;AwsS3Bucket;aws;2026-11-20 08:15:00',
    '',
  ].join('\n');
  const resolveBody = { resources: [{ provider: 'aws', resource_type: 'AWS::S3::Bucket' }] };
  // A custom framework of our own (docs/custom-frameworks.md): a control with a direct signal, one equal to a HIPAA control.
  const customBody = {
    code: 'ACME-ISP',
    name: 'ACME information security policy',
    version: '2026.1',
    controls: [
      {
        id: 'AC-1',
        title: 'Administrators use multi-factor authentication',
        category: 'Access control',
        signals: [{ signal_id: picked[0].signal_id, relationship: 'primary', confidence: 0.9 }],
      },
      {
        id: 'AC-2',
        title: 'Access reviews',
        category: 'Access control',
        corresponds_to: [{ framework: 'HIPAA', control_id: picked[1].control_id, relationship: 'equal' }],
      },
    ],
  };
  const { code: _code, ...customVersion } = { ...customBody, version: '2026.2' };
  const retired = await post('/v1/frameworks', { ...customBody, code: 'RETIRED' });
  if (retired.status !== 200) throw new Error(`custom framework not created: ${retired.text.slice(0, 200)}`);
  // Posture history and webhooks (docs/posture.md, docs/webhooks.md): two analyses of one scope, a
  // public receiver address (private ones are refused by default) subscribed to an event these make none of.
  for (const status of ['false_positive', 'open']) {
    const scoped = await post('/v1/gap-analysis', {
      ...createBody(
        ['HIPAA'],
        findings.map((f) => ({ ...f, status })),
      ),
      scope: 'aws-prod',
    });
    if (scoped.status !== 200) throw new Error(`scoped analysis not created: ${scoped.text.slice(0, 200)}`);
  }
  const webhookBody = { url: 'https://93.184.215.14/csr-hooks', events: ['control.regressed'] };
  const hook = await post('/v1/webhooks', { ...webhookBody, url: `${webhookBody.url}?gone` });
  if (hook.status !== 200) throw new Error(`webhook not created: ${hook.text.slice(0, 200)}`);

  const table: Array<[string, string, () => Promise<CallResult>, unknown?]> = [
    ['GET', '/healthz', () => call(service, 'GET', '/healthz')],
    ['GET', '/readyz', () => call(service, 'GET', '/readyz')],
    ['POST', '/v1/gap-analysis', async () => first, firstBody],
    ['GET', '/v1/gap-analysis/summary', () => get('/v1/gap-analysis/summary')],
    ['POST', '/v1/gap-analysis/compare', () => post('/v1/gap-analysis/compare', compareBody), compareBody],
    ['GET', '/v1/gap-analysis/:id', () => get(`/v1/gap-analysis/${first.body.data.id}`)],
    ['POST', '/v1/gap-analysis/:id/export', () => post(`/v1/gap-analysis/${first.body.data.id}/export`, { format: 'json' }), { format: 'json' }],
    ['GET', '/v1/gap-analysis/:id/export', () => get(`/v1/gap-analysis/${first.body.data.id}/export?format=csv`)],
    ['GET', '/v1/signals', () => get('/v1/signals?per_page=3')],
    ['POST', '/v1/signals/bulk', () => post('/v1/signals/bulk', { ids: [signalId, 'CSR-NOPE-001'] }), { ids: [signalId, 'CSR-NOPE-001'] }],
    ['GET', '/v1/signals/:id', () => get(`/v1/signals/${signalId}`)],
    ['GET', '/v1/signals/:id/mappings', () => get(`/v1/signals/${signalId}/mappings`)],
    ['GET', '/v1/mappings', () => get('/v1/mappings?per_page=3')],
    ['POST', '/v1/mappings/bulk', () => post('/v1/mappings/bulk', { signal_ids: [signalId, 'CSR-NOPE-001'] }), { signal_ids: [signalId, 'CSR-NOPE-001'] }],
    ['GET', '/v1/domains', () => get('/v1/domains')],
    ['GET', '/v1/domains/:id', () => get(`/v1/domains/${domainId}`)],
    ['GET', '/v1/search', () => get('/v1/search?q=encryption&per_page=3')],
    ['GET', '/v1/stats', () => get('/v1/stats')],
    ['GET', '/v1/frameworks', () => get('/v1/frameworks')],
    ['GET', '/v1/frameworks/:code/controls', () => get('/v1/frameworks/HIPAA/controls')],
    ['POST', '/v1/frameworks', () => post('/v1/frameworks', customBody), customBody],
    ['PUT', '/v1/frameworks/:code', () => call(service, 'PUT', '/v1/frameworks/ACME-ISP', { key, body: customVersion }), customVersion],
    ['GET', '/v1/frameworks/:code', () => get('/v1/frameworks/ACME-ISP')],
    ['GET', '/v1/frameworks/:code/coverage', () => get('/v1/frameworks/HIPAA/coverage?tools=prowler,checkov&limit=2')],
    ['GET', '/v1/posture/history', () => get('/v1/posture/history?scope=aws-prod')],
    ['POST', '/v1/webhooks', () => post('/v1/webhooks', webhookBody), webhookBody],
    ['GET', '/v1/webhooks', () => get('/v1/webhooks')],
    ['GET', '/v1/webhooks/:id', () => get(`/v1/webhooks/${hook.body.data.id}`)],
    ['GET', '/v1/webhooks/:id/deliveries', () => get(`/v1/webhooks/${hook.body.data.id}/deliveries`)],
    ['DELETE', '/v1/webhooks/:id', () => call(service, 'DELETE', `/v1/webhooks/${hook.body.data.id}`, { key })],
    ['GET', '/v1/frameworks/template', () => get('/v1/frameworks/template')],
    ['DELETE', '/v1/frameworks/:code', () => call(service, 'DELETE', '/v1/frameworks/RETIRED', { key })],
    ['GET', '/v1/controls', () => get('/v1/controls?framework=HIPAA&per_page=5')],
    ['GET', '/v1/controls/:id', () => get(`/v1/controls/${encodeURIComponent(control.id)}?framework=HIPAA`)],
    ['GET', '/v1/artifact-types', () => get('/v1/artifact-types?per_page=3')],
    ['POST', '/v1/artifact-types/resolve', () => post('/v1/artifact-types/resolve', resolveBody), resolveBody],
    ['GET', '/v1/artifact-types/:id', () => get(`/v1/artifact-types/${artifactType.id}`)],
    ['GET', '/v1/crosswalks', () => get('/v1/crosswalks')],
    ['GET', '/v1/crosswalks/controls', () => get('/v1/crosswalks/controls?framework_a=HIPAA&framework_b=SOC2&limit=5')],
    ['GET', '/v1/crosswalks/signals', () => get('/v1/crosswalks/signals?limit=5')],
    ['GET', '/v1/finding-templates', () => get('/v1/finding-templates?per_page=3')],
    ['GET', '/v1/finding-templates/:id', () => get(`/v1/finding-templates/${template.id}`)],
    ['GET', '/v1/tool-mappings', () => get('/v1/tool-mappings?per_page=3')],
    [
      'GET',
      '/v1/tool-mappings/lookup',
      () => get(`/v1/tool-mappings/lookup?tool_id=${encodeURIComponent(toolMapping.tool_id)}&rule_id=${encodeURIComponent(toolMapping.rule_id)}`),
    ],
    ['GET', '/v1/security-tools', () => get('/v1/security-tools')],
    ['POST', '/v1/validate', () => post('/v1/validate', { schema: 'signal', data: { id: 'x' } }), { schema: 'signal', data: { id: 'x' } }],
    ['POST', '/v1/validate/batch', () => post('/v1/validate/batch', { schema: 'signal', items: [{ id: 'x' }] }), { schema: 'signal', items: [{ id: 'x' }] }],
    ['GET', '/v1/openapi.json', () => call(service, 'GET', '/v1/openapi.json')],
    [
      'POST',
      '/v1/findings/import',
      () => call(service, 'POST', '/v1/findings/import?format=prowler-csv', { key, rawBody: scan, headers: { 'content-type': 'text/csv' } }),
    ],
    [
      'POST',
      '/v1/gap-analysis/import',
      () =>
        call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA&format=prowler-csv', { key, rawBody: scan, headers: { 'content-type': 'text/csv' } }),
    ],
  ];
  return table.map(([method, template, run, requestBody]) => ({ method, template, run, ...(requestBody !== undefined && { body: requestBody }) }));
}
