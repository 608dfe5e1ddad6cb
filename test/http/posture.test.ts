/**
 * Scopes and posture history (docs/posture.md), over real sockets, on LMDB and on PostgreSQL
 * (SKIPPED without its binaries): analyses filed under a scope on create (body) and on import
 * (query) come back in time order with each framework's score, status and coverage and the trend;
 * the framework filter, the time window and the limit; other scopes, other accounts and expired
 * analyses stay out; tiers and bad parameters.
 */
import t, { type Test } from 'tap';
import { startTestService, call, type TestService } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';
import { createDatabase, startPostgres, throwaway } from '../helpers/servers.js';

const DAY = 86_400_000;
/** This suite is about posture, not store deadlines: a loaded test machine must not time its store calls out. */
const STORE_DEADLINE = '15000';
const signals = primarySignals('HIPAA', 4);
const soc2 = primarySignals('SOC2', 2);
/** A Prowler CSV of our own: one failing check. */
const scan = [
  'CHECK_ID;STATUS;SEVERITY;RESOURCE_UID;RESOURCE_TYPE;PROVIDER;TIMESTAMP',
  's3_bucket_default_encryption;FAIL;medium;arn:aws:s3:::example-logs;AwsS3Bucket;aws;2026-11-20 08:15:00',
  '',
].join('\n');

async function historySuite(t: Test, env: Record<string, string>) {
  let clock = Date.parse('2026-11-21T09:00:00Z');
  const service: TestService = await startTestService({ env, now: () => new Date(clock) });
  t.teardown(() => service.close());
  const teams = await service.key('teams');
  const rival = await service.key('teams');
  const pro = await service.key('pro');
  const create = (body: unknown, key = teams) => call(service, 'POST', '/v1/gap-analysis', { key, body });
  const history = (query: string, key = teams) => call(service, 'GET', `/v1/posture/history?${query}`, { key });
  const statuses = (...s: string[]) => signals.map((p, i) => finding(`f-${i}`, p.signal_id, s[i]));

  // Three analyses of scope prod a day apart, one of staging, one with no scope.
  const made: Array<{ id: string; created_at: string }> = [];
  const first = await create({
    frameworks: ['HIPAA'],
    scope: 'prod',
    findings: statuses('false_positive', 'false_positive', 'false_positive', 'false_positive'),
  });
  t.equal(first.status, 200, first.text.slice(0, 300));
  t.equal(first.body.data.scope, 'prod', 'the result says its scope');
  made.push(first.body.data);
  clock += DAY;
  const second = await create({
    frameworks: ['HIPAA', 'SOC2'],
    scope: 'prod',
    findings: [...statuses('false_positive', 'false_positive', 'open', 'open'), finding('s-0', soc2[0].signal_id, 'false_positive')],
  });
  t.equal(second.status, 200, second.text.slice(0, 300));
  made.push(second.body.data);
  clock += DAY;
  const imported = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA&format=prowler-csv&scope=prod', {
    key: teams,
    rawBody: scan,
    headers: { 'content-type': 'text/csv' },
  });
  t.equal(imported.status, 200, imported.text.slice(0, 300));
  t.equal(imported.body.data.scope, 'prod', 'an import is filed under the scope its query names');
  made.push(imported.body.data);
  const staging = await create({ frameworks: ['HIPAA'], scope: 'staging', findings: statuses('open', 'open', 'open', 'open') });
  t.equal(staging.body.data.scope, 'staging');
  const unscoped = await create({ frameworks: ['HIPAA'], findings: statuses('open', 'open', 'open', 'open') });
  t.equal(unscoped.body.data.scope, null, 'no scope: null');
  t.equal((await create({ frameworks: ['HIPAA'], scope: 'prod', findings: statuses('open') }, rival)).status, 200, "another account's prod");

  t.test('the scope in time order, each framework with score, status and coverage, and the trend', async (t) => {
    const res = await history('scope=prod');
    t.equal(res.status, 200, res.text.slice(0, 300));
    const { data, meta } = res.body;
    t.same(
      data.analyses.map((a: any) => a.analysis_id),
      made.map((m) => m.id),
      'its three analyses, oldest first; not staging, unscoped or the other account',
    );
    t.same(meta, { total: 3, returned: 3, truncated: false, limit: 1000 });
    t.equal(data.scope, 'prod');
    t.equal(data.framework, null);
    const hipaa = data.analyses.map((a: any) => a.frameworks.HIPAA);
    t.match(hipaa[0], { score: 100, status: 'compliant' });
    t.match(hipaa[1], { score: 50, status: 'non_compliant' });
    t.equal(hipaa[2].score, 0, 'the import: one failing check');
    for (const [i, analysis] of data.analyses.entries()) {
      const stored = (await call(service, 'GET', `/v1/gap-analysis/${analysis.analysis_id}`, { key: teams })).body.data;
      for (const [code, point] of Object.entries(analysis.frameworks) as Array<[string, any]>) {
        const posture = stored.by_framework[code].posture;
        t.same(
          point,
          {
            score: posture.score,
            status: posture.status,
            coverage: posture.coverage,
            controls_assessed: posture.controls_total - posture.controls_not_assessed,
            controls_total: posture.controls_total,
          },
          `analysis ${i} ${code}: as its result says`,
        );
      }
      t.same(analysis.overall, { score: stored.summary.posture_score, status: stored.summary.overall_posture, coverage: stored.summary.coverage });
      t.equal(analysis.created_at, made[i].created_at);
    }
    t.same(Object.keys(data.analyses[1].frameworks), ['HIPAA', 'SOC2'], 'each analysis with its own frameworks');
    t.match(data.trend.HIPAA, {
      analyses: 3,
      first: { analysis_id: made[0].id, score: 100 },
      previous: { analysis_id: made[1].id, score: 50 },
      latest: { analysis_id: made[2].id, score: 0 },
      score_change: -100,
      change_since_previous: -50,
      direction: 'declining',
    });
    t.match(data.trend.SOC2, { analyses: 1, score_change: null, direction: 'insufficient_data' }, 'one analysis: no trend');
  });

  t.test('one framework, a window and a limit', async (t) => {
    const soc = await history('scope=prod&framework=soc-2');
    t.equal(soc.body.data.framework, 'SOC2', 'any accepted spelling, answered canonical');
    t.same(
      soc.body.data.analyses.map((a: any) => [a.analysis_id, Object.keys(a.frameworks)]),
      [[made[1].id, ['SOC2']]],
    );
    t.same(Object.keys(soc.body.data.trend), ['SOC2']);
    const window = await history(`scope=prod&from=${encodeURIComponent(made[1].created_at)}&to=${encodeURIComponent(made[2].created_at)}`);
    t.same(
      window.body.data.analyses.map((a: any) => a.analysis_id),
      [made[1].id, made[2].id],
      'from and to are inclusive',
    );
    const offset = await history(`scope=prod&to=${encodeURIComponent(new Date(Date.parse(made[1].created_at)).toISOString().replace('Z', '+00:00'))}`);
    t.equal(offset.body.data.analyses.length, 2, 'a bound with an offset');
    const limited = await history('scope=prod&limit=2');
    t.same(
      limited.body.data.analyses.map((a: any) => a.analysis_id),
      [made[1].id, made[2].id],
      'the newest two',
    );
    t.same(limited.body.meta, { total: 3, returned: 2, truncated: true, limit: 2 });
    t.same((await history('scope=nothing-here')).body.data.analyses, [], 'an unknown scope is an empty history');
  });

  t.test('refusals', async (t) => {
    const missing = await history('framework=HIPAA');
    t.equal(missing.status, 400);
    t.match(missing.body.error, { code: 'invalid_parameter', details: { parameter: 'scope' } });
    const bad = await history('scope=prod&framework=NOPE');
    t.match(bad.body.error, { code: 'invalid_parameter', details: { parameter: 'framework', value: 'NOPE' } });
    t.ok(bad.body.error.details.valid_values.includes('HIPAA'));
    const backwards = await history(`scope=prod&from=2026-11-25T00:00:00Z&to=2026-11-20T00:00:00Z`);
    t.match(backwards.body.error, { code: 'invalid_parameter', details: { parameter: 'to' } });
    t.match((await history('scope=prod&from=yesterday')).body.error, { code: 'invalid_parameter', details: { parameter: 'from' } });
    t.match((await history('scope=prod&limit=1001')).body.error, { code: 'invalid_parameter', details: { parameter: 'limit' } });
    const tier = await history('scope=prod', pro);
    t.equal(tier.status, 403);
    t.match(tier.body.error, { code: 'GAP_TIER_REQUIRED', details: { required_tier: 'teams', current_tier: 'pro' } });
    for (const scope of ['', 'line\nbreak', 'x'.repeat(201)]) {
      const res = await create({ frameworks: ['HIPAA'], scope, findings: statuses('open') });
      t.equal(res.status, 400, `scope ${JSON.stringify(scope.slice(0, 12))}: 400`);
      t.match(res.body.error.details, { parameter: 'scope' });
    }
    const importBad = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA&format=prowler-csv&scope=', {
      key: teams,
      rawBody: scan,
      headers: { 'content-type': 'text/csv' },
    });
    t.match(importBad.body.error, { code: 'invalid_parameter', details: { parameter: 'scope' } });
  });

  t.test('expired analyses leave the history with their retention', async (t) => {
    clock = Date.parse(made[0].created_at) + 90 * DAY + 1000;
    const res = await history('scope=prod');
    t.same(
      res.body.data.analyses.map((a: any) => a.analysis_id),
      [made[1].id, made[2].id],
      "the first analysis is past Teams' 90 days",
    );
    clock += 10 * DAY;
    t.same((await history('scope=prod')).body, {
      data: { scope: 'prod', framework: null, analyses: [], trend: {} },
      meta: { total: 0, returned: 0, truncated: false, limit: 1000 },
    });
    t.equal(await service.services.posture.sweep(new Date(clock)), 5, 'the sweep removes the records of the five expired scoped analyses');
    t.equal(await service.services.posture.sweep(new Date(clock)), 0, 'once');
  });
}

t.test('LMDB', (t) => historySuite(t, {}));

t.test('PostgreSQL', async (t) => {
  const server = await throwaway(t, startPostgres);
  if (!server) return;
  await historySuite(t, { DATABASE_URL: createDatabase(server.url, 'posture_history'), STORE_TIMEOUT_MS: STORE_DEADLINE });
});

t.test('PostgreSQL, two nodes: a scope filed on both reads the same on either', async (t) => {
  const server = await throwaway(t, startPostgres);
  if (!server) return;
  const url = createDatabase(server.url, 'posture_two_nodes');
  const [a, b] = await Promise.all([0, 1].map(() => startTestService({ env: { DATABASE_URL: url, STORE_TIMEOUT_MS: STORE_DEADLINE } })));
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const key = await a.key('teams');
  // Node B's key replica follows the database within a second (docs/cluster.md).
  const started = Date.now();
  while (!b.services.accounts.authenticate(key) && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 10));
  const ids: string[] = [];
  for (const [i, node] of [a, b, a, b].entries()) {
    const res = await call(node, 'POST', '/v1/gap-analysis', {
      key,
      body: { frameworks: ['HIPAA'], scope: 'shared', findings: signals.map((s, j) => finding(`f-${j}`, s.signal_id, j < i ? 'open' : 'false_positive')) },
    });
    t.equal(res.status, 200, res.text.slice(0, 200));
    ids.push(res.body.data.id);
  }
  const fromA = await call(a, 'GET', '/v1/posture/history?scope=shared', { key });
  const fromB = await call(b, 'GET', '/v1/posture/history?scope=shared', { key });
  t.same(
    fromA.body.data.analyses.map((x: any) => x.analysis_id),
    ids,
    'node A lists the four, whichever node stored them',
  );
  t.same(fromB.body.data, fromA.body.data, 'node B answers the same');
  const scores = fromA.body.data.analyses.map((x: any) => x.frameworks.HIPAA.score);
  t.ok(
    scores[0] === 100 && scores.every((score: number, i: number) => i === 0 || score < scores[i - 1]),
    `each worse than the one before, across nodes: ${scores.join(', ')}`,
  );
  t.equal(fromA.body.data.trend.HIPAA.direction, 'declining');
});
