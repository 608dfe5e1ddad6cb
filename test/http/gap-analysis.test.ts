import t from 'tap';
import { startTestService, call, type TestService } from '../helpers/service.js';
import { finding, primarySignals, testRegistry } from '../helpers/findings.js';
import { SCORING_VERSION } from '../../src/gap/scoring.js';

const ALL = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA'];

async function create(service: TestService, key: string, body: unknown) {
  return call(service, 'POST', '/v1/gap-analysis', { key, body });
}

// One service for the file, on the test's clock: each case makes accounts of its own and sets the
// clock it needs. The cases that only set it later than 2026-04 make nothing that the retention
// case's sweep (at 2026-03-31) could count. Analyses of thousands of findings, over the pool and
// to slow readers, are in gap-analysis-large.test.ts (full lane).
let now = new Date('2026-07-01T00:00:00Z');
const service = await startTestService({ now: () => now });
t.teardown(() => service.close());

t.test('create and get: both variants, hand-checked statuses', async (t) => {
  now = new Date('2026-07-01T00:00:00Z');
  const key = await service.key('pro');
  const [failing, accepted, passing] = primarySignals('HIPAA', 3);
  const res = await create(service, key, {
    frameworks: ['hipaa'],
    findings: [
      finding('f-1', failing.signal_id, 'open', { severity: { level: 'critical' } }),
      finding('f-2', accepted.signal_id, 'accepted'),
      finding('f-3', passing.signal_id, 'false_positive'),
      finding('f-4', passing.signal_id, 'resolved'),
    ],
  });
  t.equal(res.status, 200, res.text.slice(0, 300));
  const { data, meta } = res.body;
  t.match(data.id, /^GAP-\d{4}-\d{2}-\d{2}-[0-9A-Z]{10}$/);
  t.equal(data.analysis_id, data.id, 'Variant A and B ids agree');
  t.same(Object.keys(data.by_framework), ['HIPAA'], 'codes answered in canonical spelling');
  t.same(meta.version, '1.2.0');
  t.equal(meta.scoring_version, SCORING_VERSION);
  t.equal(meta.registry_version, testRegistry().manifest.registry_version);
  t.type(meta.processing_time_ms, 'number');

  const hipaa = data.by_framework.HIPAA;
  const gap = (control: string) => hipaa.gaps.find((g: { control: { id: string } }) => g.control.id === control);
  t.equal(gap(failing.control_id)?.status, 'non_compliant');
  t.equal(gap(failing.control_id)?.severity, 'critical', "the finding's severity wins");
  t.equal(gap(accepted.control_id)?.status, 'non_compliant', 'a risk-accepted finding alone earns no credit (scoring 2.0.0)');
  const compliant = hipaa.compliant.find((c: { control: { id: string } }) => c.control.id === passing.control_id);
  t.equal(compliant?.status, 'compliant');
  t.same(
    compliant?.validated_by.map((v: { finding_id: string }) => v.finding_id),
    ['f-3'],
    'resolved f-4 is excluded by default',
  );
  const counts = hipaa.posture;
  t.equal(counts.controls_total, 54);
  t.equal(counts.controls_compliant + counts.controls_partial + counts.controls_non_compliant + counts.controls_not_assessed, 54);
  t.equal(data.summary.findings.excluded_resolved, 1);
  t.equal(data.summary.critical_gaps >= 1, true);
  t.equal(data.frameworks[0].code, 'HIPAA');
  const variantA = data.frameworks[0].gaps.find((g: { control: { id: string } }) => g.control.id === failing.control_id);
  t.type(variantA.remediation.priority, 'number', 'Variant A priority is an integer');
  t.equal(variantA.remediation.priority, 1, 'critical → 1');
  t.equal(gap(failing.control_id).remediation.priority, 'critical', 'Variant B priority is a word');
  t.ok(Array.isArray(data.cross_framework.common_gaps));
  t.same(data.cross_framework_insights, { common_gaps: data.cross_framework.common_gaps }, 'Variant A carries common_gaps; Variant B adds the synergies');

  const again = await call(service, 'GET', `/v1/gap-analysis/${data.id}`, { key });
  t.equal(again.status, 200);
  t.equal(again.text, res.text, 'GET returns the same body as create');

  const other = await service.key('pro');
  const foreign = await call(service, 'GET', `/v1/gap-analysis/${data.id}`, { key: other });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.error.code, 'GAP_NOT_FOUND');
  const unknown = await call(service, 'GET', '/v1/gap-analysis/GAP-2026-01-01-0000000000', { key });
  t.equal(unknown.body.error.code, 'GAP_NOT_FOUND');

  const withResolved = await create(service, key, {
    frameworks: ['HIPAA'],
    findings: [finding('r-1', passing.signal_id, 'resolved')],
    options: { include_resolved: true, include_evidence_requirements: true },
  });
  t.equal(withResolved.body.data.by_framework.HIPAA.compliant[0].control.id, passing.control_id, 'include_resolved counts resolved as passing');
  const evidence = await create(service, key, {
    frameworks: ['HIPAA'],
    findings: [finding('e-1', failing.signal_id)],
    options: { include_evidence_requirements: true, include_remediation: false },
  });
  const evidenceGap = evidence.body.data.by_framework.HIPAA.gaps[0];
  t.ok(evidenceGap.evidence_requirements.length > 0, 'evidence items when asked');
  t.notOk('remediation' in evidenceGap, 'no remediation when include_remediation is false');
});

t.test('create errors', async (t) => {
  now = new Date('2026-07-02T00:00:00Z');
  const pro = await service.key('pro');
  const teams = await service.key('teams');
  const [{ signal_id }] = primarySignals('SOC2', 1);

  const badStatus = await create(service, pro, { frameworks: ['SOC2'], findings: [finding('a', signal_id), finding('b', signal_id, 'done')] });
  t.equal(badStatus.status, 400);
  t.equal(badStatus.body.error.code, 'GAP_INVALID_FINDING');
  t.same(badStatus.body.error.details.index, 1);
  t.equal(badStatus.body.error.details.pointer, '/findings/1/status');

  const missingId = await create(service, pro, { frameworks: ['SOC2'], findings: [{ signal_id, status: 'open' }] });
  t.equal(missingId.body.error.code, 'GAP_INVALID_FINDING');
  t.equal(missingId.body.error.details.pointer, '/findings/0/id');

  const duplicate = await create(service, pro, { frameworks: ['SOC2'], findings: [finding('same', signal_id), finding('same', signal_id)] });
  t.equal(duplicate.body.error.code, 'GAP_INVALID_FINDING');
  t.match(duplicate.body.error.details.reason, /duplicate finding id same/);

  const badTime = await create(service, pro, { frameworks: ['SOC2'], findings: [finding('t', signal_id, 'open', { observed_at: 'yesterday' })] });
  t.equal(badTime.body.error.details.pointer, '/findings/0/observed_at');

  const variantB = await create(service, pro, { frameworks: ['SOC2'], findings: [{ id: 'b-1', signal_id }] });
  t.equal(variantB.status, 200, 'status and observed_at may be absent (Variant B); absent status reads as open');
  t.equal(variantB.body.data.by_framework.SOC2.gaps[0].findings[0].finding_status, 'open');

  const unknownSignals = await create(service, pro, {
    frameworks: ['SOC2'],
    findings: [
      finding('x', 'CSR-GEN-NET-NOPE-X-9001'),
      finding('y', signal_id),
      finding('z', 'CSR-GEN-NET-NOPE-Y-9002'),
      finding('w', 'CSR-GEN-NET-NOPE-X-9001'),
    ],
  });
  t.equal(unknownSignals.status, 400);
  t.equal(unknownSignals.body.error.code, 'GAP_SIGNAL_NOT_FOUND');
  t.same(unknownSignals.body.error.details.signal_ids, ['CSR-GEN-NET-NOPE-X-9001', 'CSR-GEN-NET-NOPE-Y-9002'], 'every unknown id, once');

  const unknownFramework = await create(service, pro, { frameworks: ['SOX'], findings: [] });
  t.equal(unknownFramework.body.error.code, 'GAP_FRAMEWORK_NOT_FOUND');
  t.same(unknownFramework.body.error.details.frameworks, ['SOX']);
  t.same(unknownFramework.body.error.details.valid_codes, ALL);

  const listingOnly = await create(service, pro, { frameworks: ['NIST-800-53'], findings: [] });
  t.equal(listingOnly.body.error.code, 'GAP_FRAMEWORK_NOT_FOUND', 'listing-only frameworks are not analysable');

  const tooManyFrameworks = await create(service, pro, { frameworks: ['SOC2', 'HIPAA'], findings: [] });
  t.equal(tooManyFrameworks.body.error.code, 'GAP_TOO_MANY_FRAMEWORKS');
  t.same(tooManyFrameworks.body.error.details, { count: 2, limit: 1, tier: 'pro' });

  const many = Array.from({ length: 101 }, (_, i) => finding(`f-${i}`, signal_id));
  const tooMany = await create(service, pro, { frameworks: ['SOC2'], findings: many });
  t.equal(tooMany.body.error.code, 'GAP_TOO_MANY_FINDINGS');
  t.same(tooMany.body.error.details, { count: 101, limit: 100, tier: 'pro' });
  const hundred = await create(service, pro, { frameworks: ['SOC2'], findings: many.slice(0, 100) });
  t.equal(hundred.status, 200, 'exactly the limit is fine');

  const teamsMany = await create(service, teams, { frameworks: ['SOC2'], findings: Array.from({ length: 501 }, (_, i) => finding(`f-${i}`, signal_id)) });
  t.same(teamsMany.body.error.details, { count: 501, limit: 500, tier: 'teams' });

  const badOption = await create(service, pro, { frameworks: ['SOC2'], findings: [], options: { min_confidence: 2 } });
  t.equal(badOption.body.error.code, 'invalid_parameter');
  t.equal(badOption.body.error.details.parameter, 'options.min_confidence');
  const unknownOption = await create(service, pro, { frameworks: ['SOC2'], findings: [], options: { verbose: true } });
  t.equal(unknownOption.body.error.details.parameter, 'options.verbose');

  const noFrameworks = await create(service, pro, { findings: [] });
  t.equal(noFrameworks.body.error.code, 'invalid_parameter');
  t.equal(noFrameworks.body.error.details.parameter, 'frameworks');

  const broken = await call(service, 'POST', '/v1/gap-analysis', { key: pro, rawBody: '{"frameworks":', headers: { 'content-type': 'application/json' } });
  t.equal(broken.body.error.code, 'invalid_json');

  const community = await service.key('community');
  const denied = await create(service, community, { frameworks: ['SOC2'], findings: [] });
  t.equal(denied.status, 403);
  t.equal(denied.body.error.code, 'GAP_TIER_REQUIRED');
  const deniedGet = await call(service, 'GET', '/v1/gap-analysis/summary', { key: community });
  t.equal(deniedGet.body.error.code, 'GAP_TIER_REQUIRED');
  const deniedCompare = await call(service, 'POST', '/v1/gap-analysis/compare', { key: pro, body: { baseline_id: 'a', current_id: 'b' } });
  t.equal(deniedCompare.status, 403);
  t.same(deniedCompare.body.error.details, { required_tier: 'teams', current_tier: 'pro' });
});

t.test('retention: 410 before and after the sweep', async (t) => {
  now = new Date('2026-03-01T12:00:00Z');
  const key = await service.key('pro');
  const [{ signal_id }] = primarySignals('CIS', 1);
  const res = await create(service, key, { frameworks: ['CIS'], findings: [finding('f', signal_id)] });
  t.equal(res.headers.get('x-analysis-expires-at'), '2026-03-31T12:00:00.000Z', 'Pro keeps 30 days');
  t.match(res.headers.get('server-timing'), /^analysis;dur=\d+\.\d, store;dur=\d+\.\d$/, 'the analysis and the durable write are timed');
  const id = res.body.data.id;
  now = new Date('2026-03-31T11:59:59Z');
  t.equal((await call(service, 'GET', `/v1/gap-analysis/${id}`, { key })).status, 200, 'still there a second before expiry');
  now = new Date('2026-03-31T12:00:00Z');
  const expired = await call(service, 'GET', `/v1/gap-analysis/${id}`, { key });
  t.equal(expired.status, 410);
  t.equal(expired.body.error.code, 'GAP_EXPIRED');
  t.equal(expired.body.error.details.expired_at, '2026-03-31T12:00:00.000Z');
  t.equal(await service.services.analyses.sweep(now), 1);
  const swept = await call(service, 'GET', `/v1/gap-analysis/${id}`, { key });
  t.equal(swept.status, 410, 'a swept analysis still answers 410, not 404');

  const enterprise = await service.key('enterprise');
  const long = await create(service, enterprise, { frameworks: ['CIS'], findings: [finding('f', signal_id)] });
  t.equal(long.headers.get('x-analysis-expires-at'), '2027-03-31T12:00:00.000Z', 'Enterprise keeps 365 days');
});

t.test('summary: newest first, paging, filters, trend, isolation', async (t) => {
  now = new Date('2026-05-01T00:00:00Z');
  const key = await service.key('teams');
  const [a, b] = primarySignals('PCIDSS', 2);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    now = new Date(now.getTime() + 3_600_000);
    // Fewer failing findings each time: the score rises.
    const findings = [
      finding('p', a.signal_id, 'false_positive'),
      ...(i < 3 ? [finding('q', b.signal_id, 'open')] : [finding('q', b.signal_id, 'false_positive')]),
    ];
    const res = await create(service, key, { frameworks: i === 4 ? ['PCIDSS', 'SOC2'] : ['PCIDSS'], findings });
    ids.push(res.body.data.id);
  }
  const other = await service.key('teams');
  await create(service, other, { frameworks: ['PCIDSS'], findings: [finding('z', a.signal_id)] });

  const page1 = await call(service, 'GET', '/v1/gap-analysis/summary?page=1&per_page=2', { key });
  t.equal(page1.status, 200);
  t.same(
    page1.body.data.analyses.map((x: { id: string }) => x.id),
    [ids[4], ids[3]],
    'newest first',
  );
  const { next_cursor: cursor, ...meta } = page1.body.meta;
  t.same(meta, { total: 5, page: 1, per_page: 2, total_pages: 3, limit: 2 });
  const byCursor = await call(service, 'GET', `/v1/gap-analysis/summary?per_page=2&cursor=${cursor}`, { key });
  t.same(
    byCursor.body.data.analyses.map((x: { id: string }) => x.id),
    [ids[2], ids[1]],
    'meta.next_cursor gives the next page (docs/api.md)',
  );
  t.same([byCursor.body.meta.page, byCursor.body.meta.total], [null, 5]);
  t.same(page1.body.data.trend, { direction: 'stable', score_change: 0 });
  const item = page1.body.data.analyses[1];
  t.same(
    Object.keys(item).sort(),
    [
      'analysis_id',
      'analysis_status',
      'created_at',
      'critical_gaps',
      'expires_at',
      'frameworks',
      'high_gaps',
      'id',
      'overall_posture',
      'posture_score',
      'status',
    ].sort(),
  );
  const page3 = await call(service, 'GET', '/v1/gap-analysis/summary?page=3&per_page=2', { key });
  t.same(
    page3.body.data.analyses.map((x: { id: string }) => x.id),
    [ids[0]],
  );
  const beyond = await call(service, 'GET', '/v1/gap-analysis/summary?page=9&per_page=2', { key });
  t.same(beyond.body.data.analyses, []);

  const variantB = await call(service, 'GET', '/v1/gap-analysis/summary?limit=3', { key });
  t.equal(variantB.body.data.analyses.length, 3);
  const filtered = await call(service, 'GET', '/v1/gap-analysis/summary?framework=soc2', { key });
  t.same(
    filtered.body.data.analyses.map((x: { id: string }) => x.id),
    [ids[4]],
  );
  const improving = await call(service, 'GET', '/v1/gap-analysis/summary?framework=PCIDSS&per_page=50', { key });
  t.equal(improving.body.data.analyses.length, 5);

  t.equal((await call(service, 'GET', '/v1/gap-analysis/summary?per_page=51', { key })).status, 400);
  t.equal((await call(service, 'GET', '/v1/gap-analysis/summary?limit=51', { key })).body.error.details.parameter, 'limit');
  t.equal((await call(service, 'GET', '/v1/gap-analysis/summary?status=done', { key })).body.error.details.parameter, 'status');
  t.equal((await call(service, 'GET', '/v1/gap-analysis/summary?framework=SOX', { key })).body.error.details.parameter, 'framework');
  const others = await call(service, 'GET', '/v1/gap-analysis/summary', { key: other });
  t.equal(others.body.meta.total, 1, 'only the caller’s analyses');
});

t.test('compare', async (t) => {
  now = new Date('2026-06-01T00:00:00Z');
  const key = await service.key('teams');
  const [a, b, c] = primarySignals('ISO27001', 3);
  const baseline = await create(service, key, {
    frameworks: ['ISO27001', 'SOC2'],
    findings: [finding('1', a.signal_id, 'open'), finding('2', b.signal_id, 'open'), finding('3', c.signal_id, 'false_positive')],
  });
  now = new Date('2026-06-11T00:00:00Z');
  const current = await create(service, key, {
    frameworks: ['ISO27001', 'GDPR'],
    findings: [finding('1', a.signal_id, 'false_positive'), finding('2', b.signal_id, 'open'), finding('3', c.signal_id, 'open')],
  });
  const res = await call(service, 'POST', '/v1/gap-analysis/compare', {
    key,
    body: { baseline_id: baseline.body.data.id, current_id: current.body.data.id, options: { include_unchanged: true } },
  });
  t.equal(res.status, 200, res.text.slice(0, 300));
  const data = res.body.data;
  t.match(data.comparison_id, /^CMP-/);
  t.same(data.frameworks_compared, ['ISO27001']);
  t.same(data.frameworks_only_in_baseline, ['SOC2'], 'frameworks in one analysis only are reported');
  t.same(data.frameworks_only_in_current, ['GDPR']);
  const iso = data.by_framework.find((f: { framework: string }) => f.framework === 'ISO27001');
  t.equal(iso.controls_improved, 1, `${a.control_id}: non_compliant → compliant`);
  t.equal(iso.controls_regressed, 1, `${c.control_id}: compliant → non_compliant`);
  t.same(data.changes, { improved: 1, regressed: 1, new_gaps: 1, resolved: 1, no_longer_assessed: 0 });
  t.same(
    data.comparison.gaps_resolved.map((g: { control_id: string }) => g.control_id),
    [a.control_id],
  );
  t.same(
    data.comparison.gaps_added.map((g: { control_id: string }) => g.control_id),
    [c.control_id],
  );
  t.same(
    data.comparison.gaps_unchanged.map((g: { control_id: string; days_open: number }) => [g.control_id, g.days_open]),
    [[b.control_id, 10]],
  );
  t.equal(data.comparison.baseline.id, baseline.body.data.id);
  t.same(data.comparison.by_framework.ISO27001.controls_improved, 1);
  t.ok(['improving', 'declining', 'stable'].includes(data.comparison.trend.direction));

  const withoutUnchanged = await call(service, 'POST', '/v1/gap-analysis/compare', {
    key,
    body: { baseline_id: baseline.body.data.id, current_id: current.body.data.id },
  });
  t.notOk('gaps_unchanged' in withoutUnchanged.body.data.comparison);
  const foreign = await call(service, 'POST', '/v1/gap-analysis/compare', {
    key: await service.key('teams'),
    body: { baseline_id: baseline.body.data.id, current_id: current.body.data.id },
  });
  t.equal(foreign.body.error.code, 'GAP_NOT_FOUND');
  const missing = await call(service, 'POST', '/v1/gap-analysis/compare', { key, body: { baseline_id: baseline.body.data.id } });
  t.equal(missing.body.error.code, 'invalid_parameter');
  t.equal(missing.body.error.details.parameter, 'current_id');
});
