import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';

// Defects an adversarial review found; each stays fixed.
const service = await startTestService();
t.teardown(() => service.close());
const key = await service.key('enterprise');

t.test('ids longer than any real one are not found, never a 500', async (t) => {
  const long = 'A'.repeat(6000);
  for (const path of [
    `/v1/signals/${long}`,
    `/v1/signals/${long}/mappings`,
    `/v1/domains/${long}`,
    `/v1/artifact-types/${long}`,
    `/v1/finding-templates/${long}`,
    `/v1/signals?tag=${long}`,
    `/v1/mappings?signal_id=${long}`,
    `/v1/tool-mappings/lookup?tool_id=prowler&rule_id=${long}`,
  ]) {
    const res = await call(service, 'GET', path, { key });
    t.ok(res.status >= 200 && res.status < 500, `${path.slice(0, 40)}… answers ${res.status}`);
  }
  const analysis = await call(service, 'GET', `/v1/gap-analysis/${long}`, { key });
  t.equal(analysis.status, 404);
  t.equal(analysis.body.error.code, 'GAP_NOT_FOUND');
  const compare = await call(service, 'POST', '/v1/gap-analysis/compare', { key, body: { baseline_id: long, current_id: long } });
  t.equal(compare.body.error.code, 'GAP_NOT_FOUND');
  const multibyte = await call(service, 'GET', `/v1/signals/${encodeURIComponent('✓'.repeat(1400))}`, { key });
  t.equal(multibyte.status, 404);
});

t.test('query parameters: one value each, plain decimal numbers', async (t) => {
  const repeated = await call(service, 'GET', '/v1/signals?severity=high&severity=low', { key });
  t.equal(repeated.status, 400);
  t.same(repeated.body.error.details.parameter, 'severity');
  t.match(repeated.body.error.details.reason, /more than once/);
  t.equal((await call(service, 'GET', '/v1/signals?tag=a&tag=b', { key })).status, 200, 'tag is repeatable');
  for (const bad of ['0x10', '1e1', '%205', '5.0', '']) {
    const res = await call(service, 'GET', `/v1/signals?per_page=${bad}`, { key });
    t.equal(res.status, 400, `per_page=${bad}`);
    t.equal(res.body.error.details.parameter, 'per_page');
  }
  t.equal((await call(service, 'GET', '/v1/mappings?min_confidence=0.75', { key })).status, 200);
  t.equal((await call(service, 'GET', '/v1/mappings?min_confidence=.5e0', { key })).status, 400);
});

t.test('request bodies refuse unknown fields', async (t) => {
  const typo = await call(service, 'POST', '/v1/mappings/bulk', { key, body: { signal_ids: ['x'], min_confidance: 0.9 } });
  t.equal(typo.status, 400);
  t.equal(typo.body.error.details.parameter, 'min_confidance');
  const nested = await call(service, 'POST', '/v1/artifact-types/resolve', {
    key,
    body: { resources: [{ provider: 'aws', resource_type: 'AWS::S3::Bucket', region: 'x' }] },
  });
  t.equal(nested.body.error.details.parameter, 'resources.0.region');
  const gap = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings: [], option: { min_confidence: 0.5 } } });
  t.equal(gap.status, 400);
  t.equal(gap.body.error.details.parameter, 'option');
});

t.test('gap analysis: error pointers and the analyses list', async (t) => {
  const [{ signal_id }] = primarySignals('HIPAA', 1);
  const res = await call(service, 'POST', '/v1/gap-analysis', {
    key,
    body: { frameworks: ['HIPAA'], findings: [finding('f', signal_id, 'open', { severity: {} })] },
  });
  t.equal(res.body.error.code, 'GAP_INVALID_FINDING');
  t.equal(res.body.error.details.pointer, '/findings/0/severity/level');
  t.match(res.body.error.details.reason, /^severity\.level is required/);

  for (let i = 0; i < 3; i++) await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings: [finding('f', signal_id)] } });
  const second = await call(service, 'GET', '/v1/gap-analysis/summary?page=2&limit=2', { key });
  t.equal(second.body.meta.per_page, 2, 'limit is the page size when per_page is absent');
  t.equal(second.body.data.analyses.length, 1);
  const status = await call(service, 'GET', '/v1/gap-analysis/summary?status=bogus', { key });
  t.same(status.body.error.details.valid_values, ['pending', 'completed', 'failed']);
});

t.test('compare: scores and trend over the frameworks both analyses cover', async (t) => {
  const [hipaa] = primarySignals('HIPAA', 1);
  const [soc2] = primarySignals('SOC2', 1);
  const baseline = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['SOC2'], findings: [finding('a', soc2.signal_id, 'open')] } });
  const current = await call(service, 'POST', '/v1/gap-analysis', {
    key,
    body: { frameworks: ['HIPAA'], findings: [finding('b', hipaa.signal_id, 'false_positive')] },
  });
  const res = await call(service, 'POST', '/v1/gap-analysis/compare', { key, body: { baseline_id: baseline.body.data.id, current_id: current.body.data.id } });
  t.equal(res.status, 200);
  t.same(res.body.data.frameworks_compared, []);
  t.equal(res.body.data.summary.overall_change, 'not_comparable', 'no framework in common: no trend');
  t.equal(res.body.data.comparison.trend.direction, 'not_comparable');
  t.equal(res.body.data.comparison.current.overall_posture_score, 100, 'each side’s own overall score is still reported');
});

t.test('an empty export POST exports json', async (t) => {
  const [{ signal_id }] = primarySignals('CIS', 1);
  const created = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['CIS'], findings: [finding('f', signal_id)] } });
  const res = await call(service, 'POST', `/v1/gap-analysis/${created.body.data.id}/export`, {
    key,
    rawBody: '',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /application\/json/);
  t.equal(res.body.data.id, created.body.data.id);
});
