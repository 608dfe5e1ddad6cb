import t from 'tap';
import { Registry } from '../../src/registry/registry.js';
import { startTestService } from '../helpers/service.js';
import { client, expectInvalid } from '../helpers/registry-api.js';
import { INLINE_BATCH_MAX_ITEMS } from '../../src/api/validate.js';
import type { TaskName } from '../../src/pool.js';

const service = await startTestService();
const registry = Registry.open();
t.teardown(async () => {
  await registry.close();
  await service.close();
});
const api = client(service, await service.key('community'));

const signal = registry.signal(registry.signalIds()[0])!;
const mapping = registry.mappingsOfSignal(signal.id)[0];
const artifact = registry.artifactTypes({ provider: 'aws' }, { offset: 0, limit: 1 }).items[0];
const finding = {
  id: 'f-1',
  signal_id: signal.id,
  status: 'open',
  observed_at: '2026-11-01T10:00:00Z',
  severity: { level: 'high', score: 7.5 },
  artifact: { type: 'cloud.storage.bucket', id: 'arn:aws:s3:::b', provider: 'aws' },
};

t.test('POST /v1/validate: registry objects are valid against their schemas', async (t) => {
  for (const [schema, data] of [
    ['signal', signal],
    ['signal', registry.signalItem(signal.id)],
    ['mapping', mapping],
    ['artifact', artifact],
    ['finding', finding],
    ['finding', { id: 'f-2', signal_id: signal.id }],
  ] as const) {
    const res = await api.post('/v1/validate', { schema, data });
    t.equal(res.status, 200);
    t.same(res.body.data, { valid: true, schema_type: schema, schema_version: '1.0.0' }, `${schema} valid; no errors field`);
  }
});

t.test('POST /v1/validate: errors with JSON pointer, message and keyword', async (t) => {
  const { title: _title, ...withoutTitle } = signal;
  const broken = { ...withoutTitle, severity: 'urgent', extra: true, detection: { ...signal.detection, conditions: [''] } };
  const res = await api.post('/v1/validate', { schema: 'signal', data: broken });
  t.equal(res.status, 200);
  const { valid, schema_type, schema_version, errors } = res.body.data;
  t.same({ valid, schema_type, schema_version }, { valid: false, schema_type: 'signal', schema_version: '1.0.0' });
  const byPath = Object.fromEntries(errors.map((e: { path: string; keyword: string; message: string }) => [e.path, e]));
  t.equal(byPath['/title']?.keyword, 'required', 'a missing field points at the field');
  t.equal(byPath['/severity']?.keyword, 'enum');
  t.match(byPath['/severity']?.message, /critical, high, medium, low, info/);
  t.equal(byPath['/extra']?.keyword, 'additionalProperties');
  t.equal(byPath['/detection/conditions/0']?.keyword, 'minLength', 'nested pointer');
  t.equal(errors.length, 4, 'every problem reported at once');

  const mappingRes = await api.post('/v1/validate', { schema: 'mapping', data: { ...mapping, confidence: 1.2, relationship: 'main' } });
  t.same(
    mappingRes.body.data.errors.map((e: { path: string; keyword: string }) => [e.path, e.keyword]),
    [
      ['/relationship', 'enum'],
      ['/confidence', 'maximum'],
    ],
  );
  const findingRes = await api.post('/v1/validate', {
    schema: 'finding',
    data: { id: 'f', signal_id: 'not-a-signal', status: 'closed', observed_at: 'yesterday' },
  });
  t.same(findingRes.body.data.errors.map((e: { path: string }) => e.path).sort(), ['/observed_at', '/signal_id', '/status']);
  const artifactRes = await api.post('/v1/validate', {
    schema: 'artifact',
    data: { ...artifact, id: 'NotDotted', provider_mappings: [{ provider: 'ibm', resource_type: 'x' }] },
  });
  t.same(
    artifactRes.body.data.errors.map((e: { path: string; keyword: string }) => [e.path, e.keyword]),
    [
      ['/id', 'pattern'],
      ['/provider_mappings/0/provider', 'enum'],
    ],
  );

  const notObject = await api.post('/v1/validate', { schema: 'finding', data: 'text' });
  t.same(notObject.body.data.errors, [{ path: '', message: 'must be object', keyword: 'type' }], 'a non-object is invalid, not a 400');

  expectInvalid(t, await api.post('/v1/validate', { schema: 'control', data: {} }), 'schema', {
    valid_values: ['signal', 'finding', 'artifact', 'mapping'],
    value: 'control',
  });
  expectInvalid(t, await api.post('/v1/validate', { schema: 'signal' }), 'data', { value: null });
  expectInvalid(t, await api.post('/v1/validate', { data: {} }), 'schema', { value: null });
});

t.test('POST /v1/validate/batch: inline and in the worker pool', async (t) => {
  const pool = service.services.pool;
  const run = pool.run.bind(pool);
  const pooled: string[] = [];
  pool.run = ((task: TaskName, input: never, transferList?: ArrayBuffer[]) => {
    pooled.push(task);
    return run(task, input, transferList);
  }) as typeof pool.run;
  t.teardown(() => {
    pool.run = run;
  });

  const small = await api.post('/v1/validate/batch', { schema: 'finding', items: [finding, { id: 'x' }, finding] });
  t.equal(small.status, 200);
  t.same(small.body.data.summary, { total: 3, valid: 2, invalid: 1 });
  t.same(small.body.data.results[0], { index: 0, valid: true });
  t.same(small.body.data.results[1], {
    index: 1,
    valid: false,
    errors: [{ path: '/signal_id', message: "must have required property 'signal_id'", keyword: 'required' }],
  });
  t.equal(small.body.data.schema_type, 'finding');
  t.equal(small.body.data.schema_version, '1.0.0');
  t.same(pooled, [], `up to ${INLINE_BATCH_MAX_ITEMS} items run inline`);

  const items = Array.from({ length: 100 }, (_, i) => (i % 10 === 0 ? { ...finding, status: 'unknown' } : { ...finding, id: `f-${i}` }));
  const large = await api.post('/v1/validate/batch', { schema: 'finding', items });
  t.equal(large.status, 200);
  t.same(pooled, ['validateBatch'], 'a larger batch runs in the pool');
  t.same(large.body.data.summary, { total: 100, valid: 90, invalid: 10 });
  t.same(large.body.data.results[10], {
    index: 10,
    valid: false,
    errors: [{ path: '/status', message: 'must be one of open, in_progress, resolved, accepted, false_positive', keyword: 'enum' }],
  });
  t.same(
    large.body.data.results.map((r: { index: number }) => r.index),
    items.map((_, i) => i),
    'results in item order',
  );

  const empty = await api.post('/v1/validate/batch', { schema: 'signal', items: [] });
  t.same(empty.body.data.summary, { total: 0, valid: 0, invalid: 0 });
  expectInvalid(t, await api.post('/v1/validate/batch', { schema: 'finding', items: [...items, finding] }), 'items', { limit: 100, value: 101 });
  expectInvalid(t, await api.post('/v1/validate/batch', { schema: 'nope', items: [] }), 'schema');
  expectInvalid(t, await api.post('/v1/validate/batch', { schema: 'finding' }), 'items', { value: null });
});
