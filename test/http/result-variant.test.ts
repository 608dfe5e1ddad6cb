/**
 * `?variant=a|b`: an analysis answered in one of the spec's two shapes, on every route
 * that answers with one (create, get, an idempotent retry, scanner import), for analyses stored
 * with their member spans and for one stored before they were kept.
 */
import t from 'tap';
import { startTestService, call, type TestService } from '../helpers/service.js';
import { finding, testRegistry } from '../helpers/findings.js';
import { fixture } from '../ingest/helpers.js';
import { INLINE_ANALYSIS_MAX_BYTES } from '../../src/api/gap-analysis.js';
import { answerOf, compressedForm } from '../../src/store/result-codec.js';
import { expectedVariant, type AnalysisResultJson } from '../helpers/variants.js';

const ALL = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA'];

async function storedUnion(service: TestService, key: string, id: string): Promise<AnalysisResultJson> {
  const res = await call(service, 'GET', `/v1/gap-analysis/${id}`, { key });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

const ids = testRegistry().signalIds();
const bodyOf = (count: number) => ({
  frameworks: ALL,
  // Ids with quotes, backslashes and brackets: the cut must not be misled by what strings hold.
  findings: Array.from({ length: count }, (_, i) =>
    finding(i % 5 ? `v-${i}` : `v-"{[${i}]}",\\`, ids[(i * 31) % ids.length], i % 3 ? 'open' : 'resolved', {
      artifact: { type: 'cloud.storage.object_bucket', id: `b-${i % 7}`, provider: 'aws' },
    }),
  ),
  options: { include_evidence_requirements: true },
});

// One service for the file (one worker thread, as every test service has): each case makes
// accounts of its own.
const service = await startTestService();
t.teardown(() => service.close());

t.test('create and get answer either variant alone; what is stored is both', async (t) => {
  const key = await service.key('enterprise');
  // 4 findings run on the HTTP thread, 300 in the worker.
  for (const count of [4, 300]) {
    const body = bodyOf(count);
    t.equal(Buffer.byteLength(JSON.stringify(body)) > INLINE_ANALYSIS_MAX_BYTES, count === 300, `${count} findings: ${count === 300 ? 'the pool' : 'inline'}`);
    for (const variant of ['a', 'b'] as const) {
      const created = await call(service, 'POST', `/v1/gap-analysis?variant=${variant}`, { key, body });
      t.equal(created.status, 200, `${count} findings, ?variant=${variant}`);
      const id = (created.body.data.analysis_id ?? created.body.data.id) as string;
      const union = await storedUnion(service, key, id);
      t.same(
        Object.keys(union.data),
        [
          'analysis_id',
          'id',
          'created_at',
          'status',
          'frameworks_requested',
          'options',
          'scope',
          'summary',
          'posture',
          'frameworks',
          'by_framework',
          'cross_framework_insights',
          'cross_framework',
          'resources',
          'coverage_plan',
        ],
        `${count}/${variant}: the stored analysis has both variants`,
      );
      const want = expectedVariant(union, variant);
      t.equal(
        created.text,
        JSON.stringify(want),
        `${count}/${variant}: the answer is the union without Variant ${variant === 'a' ? 'B' : 'A'}'s members, byte for byte`,
      );
      for (const other of ['a', 'b'] as const) {
        const got = await call(service, 'GET', `/v1/gap-analysis/${id}?variant=${other}`, { key });
        t.equal(got.text, JSON.stringify(expectedVariant(union, other)), `${count}: GET ?variant=${other} of an analysis created with ?variant=${variant}`);
      }
    }
  }
  const union = await call(service, 'POST', '/v1/gap-analysis', { key, body: bodyOf(300) });
  const a = await call(service, 'GET', `/v1/gap-analysis/${union.body.data.id}?variant=a`, { key });
  t.ok(a.text.length < union.text.length * 0.5, `Variant A alone is under half the union's bytes (${a.text.length} of ${union.text.length})`);

  for (const [method, path] of [
    ['POST', '/v1/gap-analysis?variant=A'],
    ['GET', `/v1/gap-analysis/${union.body.data.id}?variant=both`],
    ['POST', '/v1/gap-analysis/import?frameworks=HIPAA&variant=c'],
  ] as const) {
    const res = await call(service, method, path, { key, body: method === 'POST' ? bodyOf(2) : undefined });
    t.equal(res.status, 400, `${method} ${path}`);
    t.equal(res.body.error.code, 'invalid_parameter');
    t.same([res.body.error.details.parameter, res.body.error.details.valid_values], ['variant', ['a', 'b']], 'names the parameter and its values');
  }
});

t.test('an idempotent retry answers in the variant it asks for', async (t) => {
  const key = await service.key('enterprise');
  const body = bodyOf(20);
  const first = await call(service, 'POST', '/v1/gap-analysis?variant=a', { key, body, headers: { 'idempotency-key': 'variant-retry' } });
  t.equal(first.status, 200, first.text.slice(0, 200));
  const retry = await call(service, 'POST', '/v1/gap-analysis?variant=b', { key, body, headers: { 'idempotency-key': 'variant-retry' } });
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  const union = await storedUnion(service, key, first.body.data.analysis_id);
  t.equal(retry.text, JSON.stringify(expectedVariant(union, 'b')), 'the same analysis, in Variant B');
  const plain = await call(service, 'POST', '/v1/gap-analysis', { key, body, headers: { 'idempotency-key': 'variant-retry' } });
  t.equal(plain.text, JSON.stringify(union), 'and without the parameter, both');
});

t.test('an analysis stored as sent, before member spans were kept: found by reading it, in the pool', async (t) => {
  const key = await service.key('enterprise', 'variant-legacy');
  const created = await call(service, 'POST', '/v1/gap-analysis', { key, body: bodyOf(300) });
  const { analyses, now } = service.services;
  const stored = await analyses.get(created.body.data.id, 'variant-legacy', now());
  const members = Object.keys(created.body.data).length;
  t.ok(stored.entry.data_members && stored.entry.data_members.length === 2 * members, `a new analysis keeps the spans of its ${members} members`);
  const { data_members: _spans, ...legacyEntry } = stored.entry;
  const legacyId = created.body.data.id.replace(/.$/, (c: string) => (c === 'Z' ? 'Y' : 'Z'));
  t.ok(compressedForm(stored.payload)?.brotli, 'a new analysis is stored compressed');
  await analyses.save({ ...legacyEntry, id: legacyId }, await answerOf(stored.payload));
  const legacy = await analyses.get(legacyId, 'variant-legacy', now());
  t.notOk('data_members' in legacy.entry, 'the copy is stored as before: no spans');
  t.equal(legacy.payload[0], 0x7b, 'and as it was sent, uncompressed');
  for (const variant of ['a', 'b'] as const) {
    const fromSpans = await call(service, 'GET', `/v1/gap-analysis/${created.body.data.id}?variant=${variant}`, { key });
    const fromReading = await call(service, 'GET', `/v1/gap-analysis/${legacyId}?variant=${variant}`, { key });
    t.equal(fromReading.status, 200, fromReading.text.slice(0, 200));
    t.equal(fromReading.text, fromSpans.text, `Variant ${variant}: the same bytes as from kept spans`);
  }
});

t.test('scanner import answers in the variant asked for; the parameter is not an analysis option', async (t) => {
  const key = await service.key('enterprise');
  const res = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA,SOC2&format=prowler-csv&variant=b', {
    key,
    rawBody: fixture('prowler.csv'),
    headers: { 'content-type': 'text/csv' },
  });
  t.equal(res.status, 200, res.text.slice(0, 200));
  const union = await storedUnion(service, key, res.body.data.id);
  t.equal(res.text, JSON.stringify(expectedVariant(union, 'b')));
  t.notOk('variant' in (union.data.options as object), 'options echo the analysis options only');
  t.ok((union.meta.import as object | undefined) !== undefined, 'meta.import is kept in both');
});
