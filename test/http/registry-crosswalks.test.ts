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
const api = client(service, await service.key('pro'));
const community = client(service, await service.key('community'));
const versionMeta = { version: registry.manifest.registry_version, generated_at: registry.manifest.built_at };
const gapCodes = registry
  .frameworks()
  .filter((f) => f.gap_analysis)
  .map((f) => f.code);

t.test('Pro tier gate', async (t) => {
  for (const path of ['/v1/crosswalks', '/v1/crosswalks/controls?framework_a=HIPAA&framework_b=SOC2', '/v1/crosswalks/signals']) {
    expectTierRequired(t, await community.get(path), 'pro', 'community');
  }
});

t.test('GET /v1/crosswalks: overlap list, one framework, one pair', async (t) => {
  const { overlaps, stats } = registry.crosswalkOverlaps();
  const res = await api.get('/v1/crosswalks');
  t.equal(res.status, 200);
  t.same(res.body.data, { overlaps: overlaps.slice(0, 20), stats }, 'default limit 20');
  t.same(res.body.meta, { ...versionMeta, total: overlaps.length, limit: 20, offset: 0, has_more: overlaps.length > 20 });
  t.same(sortedKeys(res.body.data.overlaps[0]), ['crosswalk_count', 'framework_a', 'framework_b', 'overlap_percentage', 'shared_signals']);
  t.same(sortedKeys(stats), ['average_overlap', 'frameworks_analyzed', 'total_crosswalks']);
  const percentages: number[] = res.body.data.overlaps.map((o: { overlap_percentage: number }) => o.overlap_percentage);
  t.ok(
    percentages.every((p, i) => i === 0 || p <= percentages[i - 1]),
    'highest overlap first',
  );

  const tail = await api.get(`/v1/crosswalks?limit=100&offset=${overlaps.length - 5}`);
  t.equal(tail.body.data.overlaps.length, 5, 'the last window');
  t.equal(tail.body.meta.has_more, false);

  const ofOne = await api.get('/v1/crosswalks?framework_a=nist-csf&limit=100');
  t.equal(ofOne.body.meta.total, gapCodes.length - 1, 'every other gap framework');
  t.ok(
    ofOne.body.data.overlaps.every((o: { framework_a: string }) => o.framework_a === 'NISTCSF'),
    'oriented from framework_a',
  );

  const pair = await api.get('/v1/crosswalks?framework_a=HIPAA&framework_b=nist-csf');
  t.equal(pair.status, 200);
  t.same(pair.body.data, { overlap: registry.crosswalkOverlap('HIPAA', 'NISTCSF') });
  t.equal(pair.body.data.overlap.framework_b, 'NISTCSF', 'canonical code');
  t.same(pair.body.meta, versionMeta);

  const withControls = await api.get('/v1/crosswalks?framework_a=HIPAA&framework_b=NISTCSF&include_controls=true&limit=3');
  const controls = registry.controlCrosswalks('HIPAA', 'NISTCSF');
  t.same(withControls.body.data.overlap.controls, controls.items.slice(0, 3), 'include_controls adds the pair controls, up to limit');
  t.same(withControls.body.meta, { ...versionMeta, total: controls.total, limit: 3, offset: 0, has_more: controls.total > 3 });

  expectInvalid(t, await api.get('/v1/crosswalks?framework_b=HIPAA'), 'framework_a', { value: null });
  expectInvalid(t, await api.get('/v1/crosswalks?framework_a=NOPE'), 'framework_a', { valid_values: gapCodes });
  expectInvalid(t, await api.get('/v1/crosswalks?framework_a=HIPAA&framework_b=hipaa'), 'framework_b');
  expectInvalid(t, await api.get('/v1/crosswalks?include_controls=yes'), 'include_controls', { value: 'yes' });
  expectInvalid(t, await api.get('/v1/crosswalks?limit=101'), 'limit');
  expectInvalid(t, await api.get('/v1/crosswalks?limit=0'), 'limit');
});

t.test('GET /v1/crosswalks/controls', async (t) => {
  const all = registry.controlCrosswalks('NISTCSF', 'ISO27001');
  const res = await api.get('/v1/crosswalks/controls?framework_a=NIST-CSF&framework_b=iso-27001');
  t.equal(res.status, 200);
  t.same(res.body.data.crosswalks, all.items.slice(0, 50), 'default limit 50, catalog order');
  t.same(res.body.data.summary, all.summary);
  t.same(sortedKeys(res.body.data.summary.relationship_breakdown), ['equivalent', 'partial', 'related']);
  t.same(res.body.meta, { ...versionMeta, total: all.total, limit: 50, offset: 0, has_more: all.total > 50 });
  const record = res.body.data.crosswalks[0];
  for (const field of ['control_a', 'control_b', 'shared_signals', 'strength', 'relationship']) t.ok(field in record, `record has ${field}`);
  t.same(sortedKeys(record.control_a), ['control_id', 'framework', 'title']);
  t.ok(record.strength >= 0 && record.strength <= 1);

  const offset = Math.max(0, all.total - 10);
  const last = await api.get(`/v1/crosswalks/controls?framework_a=NISTCSF&framework_b=ISO27001&limit=200&offset=${offset}`);
  t.equal(last.body.data.crosswalks.length, all.total - offset, 'last window');
  t.equal(last.body.meta.has_more, false);
  const beyond = await api.get(`/v1/crosswalks/controls?framework_a=NISTCSF&framework_b=ISO27001&offset=${all.total}`);
  t.same(beyond.body.data.crosswalks, [], 'empty beyond the end');

  const related = registry.controlCrosswalks('NISTCSF', 'ISO27001', { relationship: 'related', min_strength: 0.7 });
  const filtered = await api.get('/v1/crosswalks/controls?framework_a=NISTCSF&framework_b=ISO27001&relationship=related&min_strength=0.7&limit=200');
  t.equal(filtered.body.meta.total, related.total, 'relationship and min_strength');
  t.same(filtered.body.data.summary, related.summary);
  t.ok(filtered.body.data.crosswalks.every((c: { relationship: string; strength: number }) => c.relationship === 'related' && c.strength >= 0.7));
  const controlId = all.items[0].control_a.control_id;
  const oneControl = await api.get(`/v1/crosswalks/controls?framework_a=NISTCSF&framework_b=ISO27001&control_id=${encodeURIComponent(controlId)}`);
  t.equal(oneControl.body.meta.total, registry.controlCrosswalks('NISTCSF', 'ISO27001', { control_id: controlId }).total, 'control_id');
  t.ok(oneControl.body.data.crosswalks.every((c: { control_a: { control_id: string } }) => c.control_a.control_id === controlId));

  expectInvalid(t, await api.get('/v1/crosswalks/controls?framework_b=ISO27001'), 'framework_a', { value: null });
  expectInvalid(t, await api.get('/v1/crosswalks/controls?framework_a=NISTCSF'), 'framework_b', { value: null });
  expectInvalid(t, await api.get('/v1/crosswalks/controls?framework_a=NOPE&framework_b=ISO27001'), 'framework_a');
  expectInvalid(t, await api.get('/v1/crosswalks/controls?framework_a=NISTCSF&framework_b=ISO27001&relationship=same'), 'relationship', {
    valid_values: ['equivalent', 'related', 'partial'],
  });
  expectInvalid(t, await api.get('/v1/crosswalks/controls?framework_a=NISTCSF&framework_b=ISO27001&min_strength=2'), 'min_strength');
  expectInvalid(t, await api.get('/v1/crosswalks/controls?framework_a=NISTCSF&framework_b=ISO27001&limit=201'), 'limit');
  expectInvalid(t, await api.get('/v1/crosswalks/controls?framework_a=NISTCSF&framework_b=ISO27001&offset=-1'), 'offset');
});

t.test('GET /v1/crosswalks/signals', async (t) => {
  const all = registry.signalCoverages();
  const res = await api.get('/v1/crosswalks/signals');
  t.equal(res.status, 200);
  t.same(res.body.data.summary, all.summary);
  t.same(sortedKeys(res.body.data.summary.by_framework_count), ['2_frameworks', '3_frameworks', '4_plus_frameworks']);
  t.same(res.body.meta, { ...versionMeta, total: all.total, limit: 50, offset: 0, has_more: all.total > 50 });
  t.same(sortedKeys(res.body.data.signals[0]), ['controls_by_framework', 'framework_count', 'frameworks', 'signal_id'], 'list records omit is_multi_framework');
  t.ok(
    res.body.data.signals.every((s: { framework_count: number }) => s.framework_count >= 2),
    'default min_frameworks 2',
  );

  const wide = await api.get('/v1/crosswalks/signals?min_frameworks=4&framework=hipaa&limit=200');
  const expected = registry.signalCoverages({ min_frameworks: 4, framework: 'HIPAA' });
  t.equal(wide.body.meta.total, expected.total, 'min_frameworks and framework');
  t.ok(wide.body.data.signals.every((s: { frameworks: string[]; framework_count: number }) => s.framework_count >= 4 && s.frameworks.includes('HIPAA')));

  const offset = Math.max(0, all.total - 3);
  const last = await api.get(`/v1/crosswalks/signals?limit=200&offset=${offset}`);
  t.equal(last.body.data.signals.length, all.total - offset, 'last window');
  t.equal(last.body.meta.has_more, false);

  const signalId = all.items[0].signal_id;
  const single = await api.get(`/v1/crosswalks/signals?signal_id=${signalId}`);
  t.same(single.body.data, registry.signalCoverage(signalId), 'one signal: its coverage record');
  t.equal(single.body.data.is_multi_framework, true);
  t.same(single.body.meta, versionMeta);
  expectNotFound(t, await api.get('/v1/crosswalks/signals?signal_id=CSR-NOPE-001'), 'Signal', 'CSR-NOPE-001');
  expectInvalid(t, await api.get('/v1/crosswalks/signals?framework=NOPE'), 'framework');
  expectInvalid(t, await api.get('/v1/crosswalks/signals?min_frameworks=0'), 'min_frameworks');
  expectInvalid(t, await api.get('/v1/crosswalks/signals?min_frameworks=two'), 'min_frameworks');
  expectInvalid(t, await api.get('/v1/crosswalks/signals?limit=201'), 'limit');
});
