import t from 'tap';
import { Registry } from '../../src/registry/registry.js';
import { DOMAIN_CODES, TOOL_CATEGORIES } from '../../src/schemas/registry-source.js';
import { startTestService } from '../helpers/service.js';
import { client, expectInvalid, expectNotFound, expectTierRequired, sortedKeys } from '../helpers/registry-api.js';

const service = await startTestService();
const registry = Registry.open();
t.teardown(async () => {
  await registry.close();
  await service.close();
});
const api = client(service, await service.key('teams'));
const pro = client(service, await service.key('pro'));
const { manifest } = registry;
const versionMeta = { version: manifest.registry_version, generated_at: manifest.built_at };

t.test('Teams tier gate on artifact types, templates, tool mappings and tools', async (t) => {
  for (const [method, path] of [
    ['GET', '/v1/artifact-types'],
    ['GET', '/v1/artifact-types/cloud.compute.vm'],
    ['POST', '/v1/artifact-types/resolve'],
    ['GET', '/v1/finding-templates'],
    ['GET', '/v1/finding-templates/FT-X'],
    ['GET', '/v1/tool-mappings'],
    ['GET', '/v1/tool-mappings/lookup?tool_id=a&rule_id=b'],
    ['GET', '/v1/security-tools'],
  ]) {
    const res = method === 'GET' ? await pro.get(path) : await pro.post(path, { resources: [] });
    expectTierRequired(t, res, 'teams', 'pro');
  }
});

t.test('GET /v1/artifact-types', async (t) => {
  const all = registry.artifactTypes();
  const res = await api.get('/v1/artifact-types');
  t.equal(res.status, 200);
  t.same(res.body.meta, { ...versionMeta, ocsf_version: manifest.ocsf_version, total: all.total, page: 1, per_page: 50 });
  t.same(res.body.data, all.items.slice(0, 50), 'id order, full records');
  const type = res.body.data[0];
  for (const field of ['id', 'name', 'description', 'category', 'subcategory', 'ocsf', 'security_attributes', 'provider_mappings', 'status'])
    t.ok(field in type, `has ${field}`);
  t.match(type.id, /^[a-z]+\.[a-z0-9_]+\.[a-z0-9_]+$/, 'dotted id');
  t.same(sortedKeys(type.ocsf), ['object', 'profile']);

  const aws = registry.artifactTypes({ category: 'cloud', provider: 'aws' });
  const filtered = await api.get('/v1/artifact-types?category=cloud&provider=aws&per_page=100');
  t.equal(filtered.body.meta.total, aws.total, 'category and provider');
  t.ok(
    filtered.body.data.every(
      (a: { category: string; provider_mappings: Array<{ provider: string }> }) =>
        a.category === 'cloud' && a.provider_mappings.some((m) => m.provider === 'aws'),
    ),
  );
  const sub = all.items[0].subcategory;
  const bySub = await api.get(`/v1/artifact-types?subcategory=${sub}&per_page=100`);
  t.equal(bySub.body.meta.total, registry.artifactTypes({ subcategory: sub }).total, 'subcategory');
  const word = all.items[0].name.split(' ')[0].toUpperCase();
  const byText = await api.get(`/v1/artifact-types?q=${encodeURIComponent(word)}&per_page=100`);
  t.equal(byText.body.meta.total, registry.artifactTypes({ q: word }).total, 'q, case-insensitive');
  t.ok(byText.body.data.some((a: { id: string }) => a.id === all.items[0].id));

  const lastPage = Math.ceil(all.total / 100);
  const last = await api.get(`/v1/artifact-types?per_page=100&page=${lastPage}`);
  t.equal(last.body.data.length, all.total - (lastPage - 1) * 100, 'last page');
  const beyond = await api.get(`/v1/artifact-types?per_page=100&page=${lastPage + 1}`);
  t.same(beyond.body.data, []);

  expectInvalid(t, await api.get('/v1/artifact-types?category=mainframe'), 'category', {
    valid_values: ['cloud', 'endpoint', 'network', 'application', 'data', 'identity'],
  });
  expectInvalid(t, await api.get('/v1/artifact-types?provider=ibm'), 'provider', { valid_values: ['aws', 'azure', 'gcp', 'oci', 'alibaba'] });
  expectInvalid(t, await api.get('/v1/artifact-types?per_page=101'), 'per_page');
});

t.test('GET /v1/artifact-types/:id and POST /v1/artifact-types/resolve', async (t) => {
  const withMappings = registry.artifactTypes({ provider: 'aws' }, { offset: 0, limit: 1 }).items[0];
  const res = await api.get(`/v1/artifact-types/${withMappings.id}`);
  t.equal(res.status, 200);
  t.same(res.body.data, withMappings);
  t.match(res.body.data.version, /^\d+\.\d+\.\d+$/, 'detail carries version');
  t.same(res.body.meta, { ...versionMeta, ocsf_version: manifest.ocsf_version });
  expectNotFound(t, await api.get('/v1/artifact-types/cloud.nope.nope'), 'Artifact type', 'cloud.nope.nope');

  const mapping = withMappings.provider_mappings.find((m) => m.provider === 'aws')!;
  const resolved = await api.post('/v1/artifact-types/resolve', {
    resources: [
      { provider: 'aws', resource_type: mapping.resource_type },
      { provider: 'AWS', resource_type: mapping.resource_type.toLowerCase() },
      { provider: 'aws', resource_type: 'AWS::Nope::Nope' },
      { provider: 'ibm', resource_type: 'cos-bucket' },
    ],
  });
  t.equal(resolved.status, 200);
  const ref = { id: withMappings.id, name: withMappings.name, category: withMappings.category, subcategory: withMappings.subcategory };
  t.same(resolved.body.data[0], { provider: 'aws', resource_type: mapping.resource_type, artifact_type: ref, matched: true });
  t.equal(resolved.body.data[1].matched, true, 'provider and resource type compared case-insensitively');
  t.same(
    resolved.body.data[2],
    { provider: 'aws', resource_type: 'AWS::Nope::Nope', artifact_type: null, matched: false },
    'unmatched: matched false, artifact_type null',
  );
  t.equal(resolved.body.data[3].matched, false, 'an unknown provider is unmatched, not an error');
  t.same(resolved.body.meta, { ...versionMeta, total_requested: 4, total_matched: 2 });

  const many = Array.from({ length: 101 }, () => ({ provider: 'aws', resource_type: mapping.resource_type }));
  expectInvalid(t, await api.post('/v1/artifact-types/resolve', { resources: many }), 'resources', { limit: 100, value: 101 });
  const hundred = await api.post('/v1/artifact-types/resolve', { resources: many.slice(0, 100) });
  t.equal(hundred.body.meta.total_matched, 100, '100 resources are accepted');
  expectInvalid(t, await api.post('/v1/artifact-types/resolve', { resources: [{ provider: 'aws' }] }), 'resources.0.resource_type');
});

t.test('GET /v1/finding-templates and /v1/finding-templates/:id', async (t) => {
  const all = registry.findingTemplates();
  const res = await api.get('/v1/finding-templates');
  t.equal(res.status, 200);
  t.same(res.body.meta, { ...versionMeta, total: all.total, page: 1, per_page: 50 });
  const template = res.body.data[0];
  t.same(sortedKeys(template), [
    'applicable_artifacts',
    'category',
    'description',
    'detection',
    'id',
    'remediation',
    'severity',
    'signal_id',
    'status',
    'title',
    'version',
  ]);
  t.same(sortedKeys(template.detection), ['criteria', 'method']);
  t.same(sortedKeys(template.remediation), ['description', 'steps']);

  const sample = all.items[0];
  const signal = registry.signal(sample.signal_id)!;
  for (const [name, value, filter] of [
    ['signal_id', sample.signal_id, { signal_id: sample.signal_id }],
    ['category', sample.category, { category: sample.category }],
    ['severity', sample.severity, { severity: sample.severity }],
    ['status', sample.status, { status: sample.status }],
    ['domain', signal.domain, { domain: signal.domain }],
  ] as const) {
    const filtered = await api.get(`/v1/finding-templates?${name}=${value}&per_page=100`);
    t.equal(filtered.body.meta.total, registry.findingTemplates(filter).total, `${name} filter`);
    t.ok(
      filtered.body.data.some((f: { id: string }) => f.id === sample.id),
      `${name}: the sample matches`,
    );
  }
  const byText = await api.get(`/v1/finding-templates?q=${encodeURIComponent(sample.id.toLowerCase())}`);
  t.same(
    byText.body.data.map((f: { id: string }) => f.id),
    [sample.id],
    'q searches ids',
  );

  const lastPage = Math.ceil(all.total / 100);
  const last = await api.get(`/v1/finding-templates?per_page=100&page=${lastPage}`);
  t.equal(last.body.data.length, all.total - (lastPage - 1) * 100, 'last page');
  t.same((await api.get(`/v1/finding-templates?per_page=100&page=${lastPage + 1}`)).body.data, []);

  expectInvalid(t, await api.get('/v1/finding-templates?status=active'), 'status', { valid_values: ['ACTIVE', 'DRAFT', 'DEPRECATED'] });
  expectInvalid(t, await api.get('/v1/finding-templates?severity=urgent'), 'severity');
  expectInvalid(t, await api.get('/v1/finding-templates?domain=NOPE'), 'domain', { valid_values: DOMAIN_CODES });
  expectInvalid(t, await api.get('/v1/finding-templates?per_page=101'), 'per_page');

  const withTools = all.items.find((f) => registry.findingTemplateDetail(f.id)!.tool_mappings.length > 0)!;
  const detail = await api.get(`/v1/finding-templates/${withTools.id}`);
  t.equal(detail.status, 200);
  // Spec 2.11: the detail replaces applicable_artifacts/detection/remediation with signal and tool_mappings.
  t.same(sortedKeys(detail.body.data), ['category', 'description', 'id', 'severity', 'signal', 'signal_id', 'status', 'title', 'tool_mappings', 'version']);
  const detailSignal = registry.signal(withTools.signal_id)!;
  t.same(detail.body.data.signal, { id: detailSignal.id, name: detailSignal.title, domain: detailSignal.domain, category: detailSignal.category });
  t.same(sortedKeys(detail.body.data.tool_mappings[0]), ['confidence', 'rule_id', 'tool_id', 'tool_name']);
  t.same(detail.body.meta, versionMeta);
  expectNotFound(t, await api.get('/v1/finding-templates/FT-NOPE'), 'Finding template', 'FT-NOPE');
});

t.test('GET /v1/tool-mappings and /v1/tool-mappings/lookup', async (t) => {
  const all = registry.toolMappings();
  const res = await api.get('/v1/tool-mappings');
  t.equal(res.status, 200);
  t.same(res.body.meta, { ...versionMeta, total: all.total, page: 1, per_page: 50 });
  t.same(sortedKeys(res.body.data[0]), ['confidence', 'finding_template_id', 'id', 'rule_id', 'rule_name', 'tool_id', 'tool_name']);
  t.same(res.body.data, all.items.slice(0, 50));

  const sample = all.items[0];
  for (const [name, value, filter] of [
    ['tool_id', sample.tool_id, { tool_id: sample.tool_id }],
    ['finding_template_id', sample.finding_template_id, { finding_template_id: sample.finding_template_id }],
    ['confidence', sample.confidence, { confidence: sample.confidence }],
    ['q', sample.rule_id.toLowerCase(), { q: sample.rule_id }],
  ] as const) {
    const filtered = await api.get(`/v1/tool-mappings?${name}=${encodeURIComponent(value)}&per_page=100`);
    t.equal(filtered.body.meta.total, registry.toolMappings(filter).total, `${name} filter`);
    t.ok(filtered.body.meta.total > 0, `${name}: some match`);
  }
  const lastPage = Math.ceil(all.total / 100);
  const last = await api.get(`/v1/tool-mappings?per_page=100&page=${lastPage}`);
  t.equal(last.body.data.length, all.total - (lastPage - 1) * 100, 'last page');
  t.same((await api.get(`/v1/tool-mappings?per_page=100&page=${lastPage + 1}`)).body.data, []);
  expectInvalid(t, await api.get('/v1/tool-mappings?confidence=high'), 'confidence', { valid_values: ['HIGH', 'MEDIUM', 'LOW'] });
  expectInvalid(t, await api.get('/v1/tool-mappings?per_page=101'), 'per_page');

  const lookup = await api.get(`/v1/tool-mappings/lookup?tool_id=${sample.tool_id}&rule_id=${encodeURIComponent(sample.rule_id.toLowerCase())}`);
  t.equal(lookup.status, 200);
  const matches = registry.lookupToolRule(sample.tool_id, sample.rule_id);
  t.same(lookup.body.data, matches, 'rule id compared case-insensitively');
  t.same(lookup.body.meta, { ...versionMeta, total: matches.length });
  t.same(sortedKeys(lookup.body.data[0]), ['confidence', 'finding_template', 'rule_id', 'tool_id', 'tool_name']);
  t.same(sortedKeys(lookup.body.data[0].finding_template), ['category', 'description', 'id', 'severity', 'signal_id', 'title']);
  const unknownRule = await api.get(`/v1/tool-mappings/lookup?tool_id=${sample.tool_id}&rule_id=no-such-rule`);
  t.same(unknownRule.body.data, [], 'a rule with no mapping is an empty list');
  expectNotFound(t, await api.get('/v1/tool-mappings/lookup?tool_id=no-such-tool&rule_id=x'), 'Security tool', 'no-such-tool');
  expectInvalid(t, await api.get(`/v1/tool-mappings/lookup?tool_id=${sample.tool_id}`), 'rule_id', { value: null });
  expectInvalid(t, await api.get('/v1/tool-mappings/lookup?rule_id=x'), 'tool_id', { value: null });
});

t.test('GET /v1/tool-mappings/lookup resolves other spellings of a rule id through the alias table', async (t) => {
  const canonical = registry.lookupToolRule('trivy', 'KSV-0001');
  t.same(registry.lookupToolRule('trivy', 'KSV001'), [], 'lookupToolRule takes the registry spelling only');
  t.ok(canonical.length > 0, 'KSV-0001 is mapped');
  for (const spelling of ['KSV001', 'ksv-001', 'AVD-KSV-0001']) {
    const res = await api.get(`/v1/tool-mappings/lookup?tool_id=trivy&rule_id=${spelling}`);
    t.equal(res.status, 200);
    t.same(res.body.data, canonical, `${spelling} answers as KSV-0001`);
  }
  const fsbp = await api.get(
    `/v1/tool-mappings/lookup?tool_id=aws-security-hub&rule_id=${encodeURIComponent('aws-foundational-security-best-practices/v/1.0.0/S3.1')}`,
  );
  t.same(
    fsbp.body.data.map((m: { rule_id: string }) => m.rule_id),
    ['S3.1'],
    'a per-standard Security Hub id answers as the consolidated control',
  );
  const resolved = registry.resolveToolRule('kube-bench', '1.2.1', { benchmark: '1.23' });
  t.equal(resolved?.rule_id, 'cis-1.23/1.2.1', 'a bare kube-bench number resolves with the benchmark');
  t.equal(resolved?.matched_by, 'form');
  t.equal(registry.resolveToolRule('trivy', 'aws-s3-enable-bucket-encryption')?.matched_by, 'alias', 'a tfsec-era id goes through the alias table');
  t.equal(registry.resolveToolRule('trivy', 'no-such-rule'), undefined);
});

t.test('GET /v1/security-tools', async (t) => {
  const tools = registry.tools();
  const res = await api.get('/v1/security-tools');
  t.equal(res.status, 200);
  t.same(res.body.meta, { ...versionMeta, total: tools.length });
  const tool = res.body.data[0];
  for (const field of ['id', 'name', 'vendor', 'category', 'description', 'website', 'supported_platforms', 'output_formats', 'mapping_count'])
    t.ok(field in tool, `has ${field}`);
  t.equal(tool.mapping_count, registry.toolMappings({ tool_id: tool.id }).total, 'mapping_count counts the tool mappings');

  const byCategory = await api.get(`/v1/security-tools?category=${tool.category}`);
  t.same(byCategory.body.data, registry.tools({ category: tool.category }));
  const byText = await api.get(`/v1/security-tools?q=${encodeURIComponent(tool.vendor.toUpperCase())}`);
  t.ok(
    byText.body.data.some((x: { id: string }) => x.id === tool.id),
    'q searches the vendor',
  );
  const paged = await api.get('/v1/security-tools?page=2&per_page=1');
  t.equal(paged.status, 400, 'no pagination: a page parameter is refused, naming it');
  t.equal(paged.body.error.details.parameter, 'page');
  t.match(paged.body.error.details.reason, /not paged/);
  expectInvalid(t, await api.get('/v1/security-tools?category=antivirus'), 'category', { valid_values: TOOL_CATEGORIES });
});
