import t from 'tap';
import { Registry } from '../../src/registry/registry.js';
import { DOMAIN_CODES, SIGNAL_CATEGORIES } from '../../src/schemas/registry-source.js';
import { call, startTestService } from '../helpers/service.js';
import { client, expectInvalid, expectNotFound, sortedKeys } from '../helpers/registry-api.js';

const service = await startTestService();
const registry = Registry.open();
t.teardown(async () => {
  await registry.close();
  await service.close();
});
const api = client(service, await service.key('enterprise'));

const LIST_FIELDS = ['category', 'description', 'domain', 'id', 'severity', 'status', 'tags', 'title', 'version'];
const allIds = registry.signalIds();
const sample = registry.signal(allIds[0])!;

t.test('GET /v1/signals: list fields, id order, paging meta', async (t) => {
  const res = await api.get('/v1/signals');
  t.equal(res.status, 200);
  t.equal(res.body.data.length, 20, 'default per_page 20');
  t.same(res.body.meta, { total: allIds.length, page: 1, per_page: 20, total_pages: Math.ceil(allIds.length / 20) });
  t.same(
    res.body.data.map((s: { id: string }) => s.id),
    allIds.slice(0, 20),
    'id order',
  );
  // Spec 2.2: list items carry the list fields only.
  for (const item of res.body.data) t.same(sortedKeys(item), LIST_FIELDS);
  t.same(res.body.data[0], registry.signalItem(allIds[0]));

  const totalPages = Math.ceil(allIds.length / 100);
  const last = await api.get(`/v1/signals?per_page=100&page=${totalPages}`);
  t.equal(last.body.data.length, allIds.length - (totalPages - 1) * 100, 'last page holds the remainder');
  t.equal(last.body.data.at(-1).id, allIds.at(-1));
  const beyond = await api.get(`/v1/signals?per_page=100&page=${totalPages + 1}`);
  t.equal(beyond.status, 200);
  t.same(beyond.body.data, [], 'a page beyond the last is empty');
  t.equal(beyond.body.meta.total, allIds.length);

  expectInvalid(t, await api.get('/v1/signals?per_page=101'), 'per_page', { value: '101' });
  expectInvalid(t, await api.get('/v1/signals?per_page=0'), 'per_page');
  expectInvalid(t, await api.get('/v1/signals?page=0'), 'page', { value: '0' });
  expectInvalid(t, await api.get('/v1/signals?page=two'), 'page', { value: 'two' });
  expectInvalid(t, await api.get('/v1/signals?page=1.5'), 'page');
});

t.test('GET /v1/signals: filters', async (t) => {
  for (const [name, value, filter] of [
    ['domain', 'HIPAA', { domain: 'HIPAA' }],
    ['category', sample.category, { category: sample.category }],
    ['severity', 'critical', { severity: 'critical' }],
  ] as const) {
    const expected = registry.signalIds(filter);
    const res = await api.get(`/v1/signals?${name}=${value}&per_page=100`);
    t.equal(res.status, 200, `${name} filter`);
    t.equal(res.body.meta.total, expected.length, `${name}: total`);
    t.ok(res.body.data.length > 0 && res.body.data.every((s: Record<string, string>) => s[name] === value), `${name}: every item matches`);
  }

  const [tagA, tagB] = sample.tags;
  const tagged = await api.get(`/v1/signals?tag=${tagA}&tag=${tagB}&per_page=100`);
  t.equal(tagged.body.meta.total, registry.signalIds({ tags: [tagA, tagB] }).length, 'repeated tag: signals with every tag');
  t.ok(tagged.body.data.some((s: { id: string }) => s.id === sample.id));
  t.ok(tagged.body.data.every((s: { tags: string[] }) => s.tags.includes(tagA) && s.tags.includes(tagB)));

  const combined = await api.get(`/v1/signals?domain=${sample.domain}&category=${sample.category}&severity=${sample.severity}`);
  t.equal(combined.body.meta.total, registry.signalIds({ domain: sample.domain, category: sample.category, severity: sample.severity }).length);
  t.ok(
    combined.body.data.some((s: { id: string }) => s.id === sample.id),
    'filters combine',
  );

  expectInvalid(t, await api.get('/v1/signals?domain=NOPE'), 'domain', { valid_values: DOMAIN_CODES, value: 'NOPE' });
  expectInvalid(t, await api.get('/v1/signals?category=NOPE'), 'category', { valid_values: SIGNAL_CATEGORIES });
  expectInvalid(t, await api.get('/v1/signals?severity=urgent'), 'severity', { valid_values: ['critical', 'high', 'medium', 'low', 'info'] });
});

t.test('GET /v1/signals/:id: detail fields', async (t) => {
  const res = await api.get(`/v1/signals/${sample.id}`);
  t.equal(res.status, 200);
  t.same(sortedKeys(res.body.data), [...LIST_FIELDS, 'created', 'detection', 'effort', 'remediation_hint', 'updated'].sort());
  t.same(sortedKeys(res.body.data.detection), ['artifact_types', 'conditions']);
  t.match(res.body.data.created, /^\d{4}-\d{2}-\d{2}$/);
  t.match(res.body.data.updated, /^\d{4}-\d{2}-\d{2}$/);
  t.match(res.body.data.id, /^CSR-[A-Z0-9]+-[A-Z]+-[A-Z0-9-]+-\d{3}$/);
  t.match(res.body.data.version, /^\d+\.\d+\.\d+$/);
  t.same(res.body.data, sample);
  expectNotFound(t, await api.get('/v1/signals/CSR-NOPE-001'), 'Signal', 'CSR-NOPE-001');
});

t.test('GET /v1/signals/:id/mappings', async (t) => {
  const res = await api.get(`/v1/signals/${sample.id}/mappings`);
  t.equal(res.status, 200);
  t.equal(res.body.data.signal_id, sample.id);
  t.same(res.body.data.mappings, registry.mappingsOfSignal(sample.id));
  for (const field of ['signal_id', 'framework', 'control_id', 'control_title', 'relationship', 'confidence', 'rationale'])
    t.ok(field in res.body.data.mappings[0], `mapping has ${field}`);

  const framework = registry.mappingsOfSignal(sample.id)[0].framework;
  const listing = registry
    .frameworks()
    .find((f) => f.code === framework)!
    .listing_code.toLowerCase();
  const one = await api.get(`/v1/signals/${sample.id}/mappings?framework=${listing}`);
  t.ok(one.body.data.mappings.length > 0, 'framework in listing spelling, lower case');
  t.ok(
    one.body.data.mappings.every((m: { framework: string }) => m.framework === framework),
    'answers with the canonical code',
  );

  expectInvalid(t, await api.get(`/v1/signals/${sample.id}/mappings?framework=NOPE`), 'framework', { valid_values: registry.frameworks().map((f) => f.code) });
  expectNotFound(t, await api.get('/v1/signals/CSR-NOPE-001/mappings'), 'Signal', 'CSR-NOPE-001');
});

t.test('POST /v1/signals/bulk', async (t) => {
  const ids = [allIds[0], 'CSR-NOPE-001', allIds[1]];
  const res = await api.post('/v1/signals/bulk', { ids });
  t.equal(res.status, 200);
  t.same(res.body.data.summary, { total: 3, found: 2, not_found: 1 });
  t.same(res.body.data.results[1], { id: 'CSR-NOPE-001', status: 'not_found' }, 'unknown id: a not_found entry, not an error');
  const first = registry.signal(allIds[0])!;
  t.same(res.body.data.results[0], {
    id: first.id,
    status: 'found',
    signal: { id: first.id, canonical_name: first.title, severity: first.severity, domain: first.domain },
  });

  const hundred = await api.post('/v1/signals/bulk', { ids: allIds.slice(0, 100) });
  t.equal(hundred.status, 200, '100 ids are accepted');
  t.equal(hundred.body.data.summary.found, 100);
  expectInvalid(t, await api.post('/v1/signals/bulk', { ids: allIds.slice(0, 101) }), 'ids', { limit: 100, value: 101 });
  expectInvalid(t, await api.post('/v1/signals/bulk', {}), 'ids', { value: null });
});

t.test('GET /v1/mappings', async (t) => {
  const all = registry.mappings({}, { offset: 0, limit: 50 });
  const res = await api.get('/v1/mappings');
  t.equal(res.status, 200);
  t.same(res.body.meta, { total: all.total, page: 1, per_page: 50, filters_applied: { framework: null, min_confidence: 0 } });
  t.same(
    res.body.data.map((m: { id: string }) => m.id),
    all.items.map((m) => m.id),
    'mapping id order',
  );
  t.same(sortedKeys(res.body.data[0]), [
    'confidence',
    'control_id',
    'control_title',
    'derived',
    'framework',
    'id',
    'provenance',
    'rationale',
    'relationship',
    'signal_id',
  ]);

  const pci = registry.mappings({ framework: 'PCIDSS', min_confidence: 0.85 });
  const filtered = await api.get('/v1/mappings?framework=pci-dss&min_confidence=0.85&per_page=100');
  t.same(filtered.body.meta.filters_applied, { framework: 'PCIDSS', min_confidence: 0.85 }, 'filters echoed, framework canonical');
  t.equal(filtered.body.meta.total, pci.total);
  t.ok(filtered.body.data.every((m: { framework: string; confidence: number }) => m.framework === 'PCIDSS' && m.confidence >= 0.85));

  const mapping = registry.mappingsOfSignal(sample.id)[0];
  const bySignal = await api.get(`/v1/mappings?signal_id=${sample.id}`);
  t.equal(bySignal.body.meta.total, registry.mappingsOfSignal(sample.id).length);
  t.equal(bySignal.body.meta.filters_applied.signal_id, sample.id);
  const byControl = await api.get(`/v1/mappings?framework=${mapping.framework}&control_id=${encodeURIComponent(mapping.control_id)}&per_page=100`);
  t.equal(byControl.body.meta.total, registry.mappings({ framework: mapping.framework, control_id: mapping.control_id }).total);
  t.ok(byControl.body.data.every((m: { control_id: string }) => m.control_id === mapping.control_id));

  const lastPage = Math.ceil(pci.total / 100);
  const last = await api.get(`/v1/mappings?framework=PCIDSS&min_confidence=0.85&per_page=100&page=${lastPage}`);
  t.equal(last.body.data.length, pci.total - (lastPage - 1) * 100, 'last page');
  const empty = await api.get(`/v1/mappings?framework=PCIDSS&min_confidence=0.85&per_page=100&page=${lastPage + 1}`);
  t.same(empty.body.data, [], 'beyond the last page');

  expectInvalid(t, await api.get('/v1/mappings?per_page=101'), 'per_page');
  expectInvalid(t, await api.get('/v1/mappings?min_confidence=1.5'), 'min_confidence', { value: '1.5' });
  expectInvalid(t, await api.get('/v1/mappings?min_confidence=-0.1'), 'min_confidence');
  expectInvalid(t, await api.get('/v1/mappings?min_confidence=high'), 'min_confidence');
  expectInvalid(t, await api.get('/v1/mappings?framework=NOPE'), 'framework', { value: 'NOPE' });
});

t.test('POST /v1/mappings/bulk', async (t) => {
  const res = await api.post('/v1/mappings/bulk', { signal_ids: [sample.id, 'CSR-NOPE-001'] });
  t.equal(res.status, 200);
  const expected = registry.mappingsOfSignal(sample.id);
  t.same(res.body.data.summary, { total_signals: 2, total_mappings: expected.length });
  t.same(res.body.data.results[1], { signal_id: 'CSR-NOPE-001', status: 'not_found', mappings: [] });
  t.same(res.body.data.results[0].mappings[0], {
    framework: expected[0].framework,
    control_id: expected[0].control_id,
    control_name: expected[0].control_title,
    confidence: expected[0].confidence,
  });

  const framework = expected[0].framework;
  const narrowed = await api.post('/v1/mappings/bulk', { signal_ids: [sample.id], framework: framework.toLowerCase(), min_confidence: 0.8 });
  const wanted = expected.filter((m) => m.framework === framework && m.confidence >= 0.8);
  t.equal(narrowed.body.data.summary.total_mappings, wanted.length, 'framework and min_confidence filter');

  expectInvalid(t, await api.post('/v1/mappings/bulk', { signal_ids: allIds.slice(0, 101) }), 'signal_ids', { limit: 100 });
  expectInvalid(t, await api.post('/v1/mappings/bulk', { signal_ids: [sample.id], min_confidence: 2 }), 'min_confidence');
  expectInvalid(t, await api.post('/v1/mappings/bulk', { signal_ids: [sample.id], framework: 'NOPE' }), 'framework');
});

t.test('GET /v1/domains and /v1/domains/:id', async (t) => {
  const res = await api.get('/v1/domains');
  t.equal(res.status, 200);
  t.equal(res.body.meta.total, registry.domains().length);
  t.same(
    res.body.data.map((d: { id: string }) => d.id),
    [...DOMAIN_CODES],
    'the 11 gap frameworks in spec order, then GEN',
  );
  for (const domain of res.body.data) t.same(sortedKeys(domain), ['categories', 'id', 'name', 'signal_count']);
  const hipaaCount = res.body.data.find((d: { id: string }) => d.id === 'HIPAA').signal_count;
  t.equal(hipaaCount, registry.signalIds({ domain: 'HIPAA' }).length);

  const detail = await api.get('/v1/domains/hipaa');
  t.equal(detail.status, 200, 'id in any case');
  t.equal(detail.body.data.id, 'HIPAA');
  for (const field of ['id', 'name', 'signal_count', 'categories', 'description', 'stats']) t.ok(field in detail.body.data, `detail has ${field}`);
  t.same(sortedKeys(detail.body.data.stats), ['by_category', 'by_severity']);
  t.same(sortedKeys(detail.body.data.stats.by_severity), ['critical', 'high', 'info', 'low', 'medium']);
  const bySeverity = Object.values(detail.body.data.stats.by_severity as Record<string, number>).reduce((a, b) => a + b, 0);
  t.equal(bySeverity, hipaaCount, 'severity counts add up to the domain total');
  expectNotFound(t, await api.get('/v1/domains/NOPE'), 'Domain', 'NOPE');
});

t.test('GET /v1/search', async (t) => {
  const q = sample.title.split(' ').slice(0, 3).join(' ');
  const hits = registry.search(q);
  const res = await api.get(`/v1/search?q=${encodeURIComponent(q)}`);
  t.equal(res.status, 200);
  t.same(res.body.meta, { total: hits.length, query: q, page: 1, per_page: 20 }, 'meta echoes q');
  t.equal(res.body.data[0].score, 1, 'the best hit scores 1');
  t.same(sortedKeys(res.body.data[0]), ['domain', 'id', 'score', 'severity', 'title']);
  const scores: number[] = res.body.data.map((h: { score: number }) => h.score);
  t.ok(
    scores.every((s, i) => s >= 0 && s <= 1 && (i === 0 || s <= scores[i - 1])),
    'scores in 0..1, ranked',
  );
  const exact = await api.get(`/v1/search?q=${encodeURIComponent(sample.title)}&per_page=5`);
  t.ok(
    exact.body.data.some((h: { id: string }) => h.id === sample.id),
    'a title finds its signal',
  );

  const inDomain = await api.get(`/v1/search?q=${encodeURIComponent(q)}&domain=${sample.domain}&per_page=100`);
  t.equal(inDomain.body.meta.total, registry.search(q, { domain: sample.domain }).length);
  t.ok(
    inDomain.body.data.every((h: { domain: string }) => h.domain === sample.domain),
    'domain filter',
  );

  const lastPage = Math.ceil(hits.length / 100);
  const beyond = await api.get(`/v1/search?q=${encodeURIComponent(q)}&per_page=100&page=${lastPage + 1}`);
  t.same(beyond.body.data, []);
  const none = await api.get('/v1/search?q=zzqxjvw');
  t.same(none.body, { data: [], meta: { total: 0, query: 'zzqxjvw', page: 1, per_page: 20 } });

  expectInvalid(t, await api.get('/v1/search'), 'q', { value: null });
  expectInvalid(t, await api.get('/v1/search?q='), 'q');
  expectInvalid(t, await api.get('/v1/search?q=x&domain=NOPE'), 'domain', { valid_values: DOMAIN_CODES });
  expectInvalid(t, await api.get('/v1/search?q=x&per_page=101'), 'per_page');
});

t.test('GET /v1/stats', async (t) => {
  const res = await api.get('/v1/stats');
  t.equal(res.status, 200);
  t.same(res.body.data, registry.stats());
  t.same(sortedKeys(res.body.data), [
    'by_domain',
    'by_severity',
    'categories',
    'domains',
    'last_updated',
    'registry_version',
    'spec_version',
    'total_mappings',
    'total_signals',
  ]);
  t.equal(res.body.data.total_signals, allIds.length);
  t.equal(res.body.data.domains, DOMAIN_CODES.length);
  t.ok(!Number.isNaN(Date.parse(res.body.data.last_updated)), 'last_updated is ISO 8601');
});

t.test('no key: 401 on the registry endpoints', async (t) => {
  const res = await call(service, 'GET', '/v1/signals');
  t.equal(res.status, 401);
  t.equal(res.body.error.code, 'unauthorized');
});

t.test('a superseded 1.0.0 signal still answers, naming its successors', async (t) => {
  const id = 'CSR-GEN-CRYPTO-BUCKET-ENCRYPTION-057';
  const res = await api.get(`/v1/signals/${id}`);
  t.equal(res.status, 200);
  t.equal(res.body.data.status, 'superseded');
  t.ok(res.body.data.superseded_by.length > 1, 'the broad topic names several successors');
  for (const successor of res.body.data.superseded_by.slice(0, 3)) {
    const next = await api.get(`/v1/signals/${successor}`);
    t.equal(next.status, 200);
    t.equal(next.body.data.status, 'active');
    t.notOk('superseded_by' in next.body.data, 'an active signal has no superseded_by');
  }
});
