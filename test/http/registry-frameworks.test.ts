import t from 'tap';
import { Registry } from '../../src/registry/registry.js';
import { startTestService } from '../helpers/service.js';
import { client, expectInvalid, expectNotFound, expectTierRequired, sortedKeys } from '../helpers/registry-api.js';

const service = await startTestService();
const registry = Registry.open();
t.teardown(async () => {
  await registry.close();
  await service.close();
});
const community = client(service, await service.key('community'));
const frameworks = registry.frameworks();
const codes = frameworks.map((f) => f.code);

t.test('GET /v1/frameworks', async (t) => {
  const res = await community.get('/v1/frameworks');
  t.equal(res.status, 200, 'any tier');
  t.same(res.body.meta, { total: frameworks.length });
  t.same(
    res.body.data.map((f: { code: string }) => f.code),
    codes,
    'registry order',
  );
  for (const f of res.body.data) {
    for (const field of ['code', 'name', 'version', 'category', 'control_count', 'description']) t.ok(field in f, `${f.code} has ${field}`);
    t.ok(['healthcare', 'financial', 'government', 'general'].includes(f.category));
  }
  const nistCsf = res.body.data.find((f: { code: string }) => f.code === 'NISTCSF');
  t.equal(nistCsf.listing_code, 'NIST-CSF', 'one spelling for code, the listing spelling alongside');
  t.equal(nistCsf.control_count, registry.controls('NISTCSF').length);

  const healthcare = await community.get('/v1/frameworks?category=healthcare');
  t.same(
    healthcare.body.data.map((f: { code: string }) => f.code),
    frameworks.filter((f) => f.category === 'healthcare').map((f) => f.code),
  );
  t.equal(healthcare.body.meta.total, healthcare.body.data.length);
  expectInvalid(t, await community.get('/v1/frameworks?category=retail'), 'category', { valid_values: ['healthcare', 'financial', 'government', 'general'] });
});

t.test('GET /v1/frameworks/:code/controls', async (t) => {
  const controls = registry.controls('NISTCSF');
  for (const spelling of ['NISTCSF', 'NIST-CSF', 'nist-csf', 'nistcsf']) {
    const res = await community.get(`/v1/frameworks/${spelling}/controls?per_page=5`);
    t.equal(res.status, 200, `${spelling} accepted`);
    t.same(res.body.data.framework, {
      code: 'NISTCSF',
      name: frameworks.find((f) => f.code === 'NISTCSF')!.name,
      version: frameworks.find((f) => f.code === 'NISTCSF')!.version,
      custom: false,
    });
  }
  const res = await community.get('/v1/frameworks/NISTCSF/controls');
  t.same(res.body.meta, { total: controls.length, page: 1, per_page: 50, total_pages: Math.ceil(controls.length / 50) });
  const first = res.body.data.controls[0];
  t.same(sortedKeys(first), ['category', 'description', 'id', 'mapped_signals', 'signal_ids', 'title']);
  t.equal(first.id, controls[0].id, 'catalog order');
  t.equal(first.mapped_signals, controls[0].signal_ids.length, 'mapped_signals is the count');
  t.same(first.signal_ids, controls[0].signal_ids);

  const lastPage = Math.ceil(controls.length / 100);
  const last = await community.get(`/v1/frameworks/NISTCSF/controls?per_page=100&page=${lastPage}`);
  t.equal(last.body.data.controls.length, controls.length - (lastPage - 1) * 100, 'last page');
  const beyond = await community.get(`/v1/frameworks/NISTCSF/controls?per_page=100&page=${lastPage + 1}`);
  t.same(beyond.body.data.controls, [], 'empty beyond the last page');

  const category = registry.framework('HIPAA')!.control_categories[0];
  const byCategory = await community.get(`/v1/frameworks/HIPAA/controls?per_page=100&category=${encodeURIComponent(category.toLowerCase())}`);
  t.equal(byCategory.body.meta.total, registry.controls('HIPAA', category).length, 'category filter, any case');
  t.ok(byCategory.body.data.controls.every((c: { category: string }) => c.category === category));

  expectInvalid(t, await community.get('/v1/frameworks/HIPAA/controls?category=Nope'), 'category', {
    valid_values: registry.framework('HIPAA')!.control_categories,
  });
  expectInvalid(t, await community.get('/v1/frameworks/HIPAA/controls?per_page=101'), 'per_page');
  expectInvalid(t, await community.get('/v1/frameworks/HIPAA/controls?page=0'), 'page');
  expectNotFound(t, await community.get('/v1/frameworks/NOPE/controls'), 'Framework', 'NOPE');
});

t.test('GET /v1/controls (Pro)', async (t) => {
  expectTierRequired(t, await community.get('/v1/controls'), 'pro', 'community');
  const pro = client(service, await service.key('pro'));
  const total = codes.reduce((sum, code) => sum + registry.controls(code).length, 0);
  const res = await pro.get('/v1/controls');
  t.equal(res.status, 200);
  t.same(res.body.meta, { total, page: 1, per_page: 50, total_pages: Math.ceil(total / 50) });
  const first = res.body.data[0];
  t.same(sortedKeys(first), ['category', 'description', 'framework', 'id', 'level', 'mapped_signals', 'title']);
  t.equal(first.framework, codes[0], 'frameworks in listing order, controls in catalog order');
  // mapping_id is required by the published schema (MappedSignalRef); the list once omitted it.
  t.same(sortedKeys(first.mapped_signals[0]), ['confidence', 'mapping_id', 'relationship', 'signal_id']);

  // A page that straddles two frameworks.
  const firstCount = registry.controls(codes[0]).length;
  const straddle = await pro.get(`/v1/controls?per_page=10&page=${Math.floor(firstCount / 10) + 1}`);
  const frameworksOnPage = new Set(straddle.body.data.map((c: { framework: string }) => c.framework));
  if (firstCount % 10 !== 0) t.same([...frameworksOnPage], [codes[0], codes[1]], 'a page can span two frameworks');
  t.equal(straddle.body.data.length, 10);

  const lastPage = Math.ceil(total / 100);
  const last = await pro.get(`/v1/controls?per_page=100&page=${lastPage}`);
  t.equal(last.body.data.length, total - (lastPage - 1) * 100, 'last page');
  t.equal(last.body.data.at(-1).id, registry.controls(codes.at(-1)!).at(-1)!.id);
  const beyond = await pro.get(`/v1/controls?per_page=100&page=${lastPage + 1}`);
  t.same(beyond.body.data, []);

  const pci = await pro.get('/v1/controls?framework=pci-dss&per_page=100');
  t.equal(pci.body.meta.total, registry.controls('PCIDSS').length, 'framework filter');
  t.ok(pci.body.data.every((c: { framework: string }) => c.framework === 'PCIDSS'));
  const category = registry.framework('HIPAA')!.control_categories[1];
  const byCategory = await pro.get(`/v1/controls?framework=HIPAA&category=${encodeURIComponent(category)}`);
  t.equal(byCategory.body.meta.total, registry.controls('HIPAA', category).length, 'category filter');

  expectInvalid(t, await pro.get('/v1/controls?framework=NOPE'), 'framework', { valid_values: codes, value: 'NOPE' });
  expectInvalid(t, await pro.get('/v1/controls?framework=HIPAA&category=Nope'), 'category');
  expectInvalid(t, await pro.get('/v1/controls?per_page=101'), 'per_page');
});

t.test('GET /v1/controls/:id (Pro)', async (t) => {
  const pro = client(service, await service.key('pro'));
  const unique = registry.controls('HIPAA').find((c) => registry.frameworksOfControlId(c.id).length === 1 && c.signal_ids.length > 0)!;
  expectTierRequired(t, await community.get(`/v1/controls/${encodeURIComponent(unique.id)}`), 'pro', 'community');

  const res = await pro.get(`/v1/controls/${encodeURIComponent(unique.id)}`);
  t.equal(res.status, 200, 'an unambiguous id needs no framework');
  const detail = res.body.data;
  for (const field of ['id', 'framework', 'title', 'category', 'description', 'level', 'guidance', 'evidence', 'mapped_signals', 'related_controls']) {
    t.ok(field in detail, `detail has ${field}`);
  }
  t.equal(detail.framework, 'HIPAA');
  for (const field of ['signal_id', 'confidence', 'relationship', 'title', 'severity', 'rationale'])
    t.ok(field in detail.mapped_signals[0], `mapped signal has ${field}`);
  const signal = registry.signal(detail.mapped_signals[0].signal_id)!;
  t.equal(detail.mapped_signals[0].title, signal.title);
  for (const related of detail.related_controls) t.ok('framework' in related && 'control_id' in related && 'title' in related);
  t.same(detail, registry.control('HIPAA', unique.id));

  const ambiguousId = registry
    .controls('PCIDSS')
    .map((c) => c.id)
    .find((id) => registry.frameworksOfControlId(id).length > 1);
  if (ambiguousId) {
    const candidates = registry.frameworksOfControlId(ambiguousId);
    const refused = await pro.get(`/v1/controls/${encodeURIComponent(ambiguousId)}`);
    expectInvalid(t, refused, 'framework', { valid_values: candidates, value: null });
    t.match(refused.body.error.message, ambiguousId, 'the message names the control');
    const chosen = await pro.get(`/v1/controls/${encodeURIComponent(ambiguousId)}?framework=pci-dss`);
    t.equal(chosen.status, 200);
    t.equal(chosen.body.data.framework, 'PCIDSS');
  } else {
    t.fail('expected a control id shared by PCI DSS and another framework');
  }

  expectNotFound(t, await pro.get('/v1/controls/NOPE-1'), 'Control', 'NOPE-1');
  expectNotFound(t, await pro.get('/v1/controls/NOPE-1?framework=HIPAA'), 'HIPAA control', 'NOPE-1');
  expectInvalid(t, await pro.get(`/v1/controls/${encodeURIComponent(unique.id)}?framework=NOPE`), 'framework');
});
