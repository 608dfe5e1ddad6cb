/**
 * Stale evidence (docs/scoring.md, rule 5), over a real socket: a passing finding observed longer
 * ago than max_evidence_age_days (default 90) does not make a control compliant, and the control
 * says its evidence is stale in both variants; failures count whatever their age; the option on
 * create and on import, and its bounds.
 */
import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';
import { SCORING_VERSION } from '../../src/gap/scoring.js';

const NOW = '2026-11-28T12:00:00.000Z';
const OLD = '2026-06-01T00:00:00.000Z';
const FRESH = '2026-11-27T00:00:00.000Z';
const service = await startTestService({ now: () => new Date(NOW) });
t.teardown(() => service.close());
const key = await service.key('teams');
const [passing, failing, mixed] = primarySignals('HIPAA', 3);

async function analyse(findings: unknown[], options?: object) {
  const res = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings, ...(options && { options }) } });
  t.equal(res.status, 200, res.text.slice(0, 300));
  return res.body;
}
const statusOf = (data: any, controlId: string) => {
  const section = data.by_framework.HIPAA;
  if (section.compliant.some((c: any) => c.control.id === controlId)) return 'compliant';
  return section.gaps.find((g: any) => g.control.id === controlId)?.status ?? 'not_assessed';
};

t.test('a pass older than 90 days earns nothing and says so; a failure counts whatever its age', async (t) => {
  const { data, meta } = await analyse([
    finding('old-pass', passing.signal_id, 'false_positive', { observed_at: OLD }),
    finding('old-fail', failing.signal_id, 'open', { observed_at: '2025-01-01T00:00:00Z' }),
    finding('mixed-pass', mixed.signal_id, 'false_positive', { observed_at: OLD }),
    finding('mixed-fail', mixed.signal_id, 'open', { observed_at: FRESH }),
  ]);
  t.equal(meta.scoring_version, SCORING_VERSION);
  t.equal(meta.scoring_version, '2.1.0');
  t.equal(data.options.max_evidence_age_days, 90, 'the default, echoed');
  t.equal(statusOf(data, passing.control_id), 'not_assessed', `${passing.control_id}: not compliant on a six-month-old pass`);
  t.equal(statusOf(data, failing.control_id), 'non_compliant', `${failing.control_id}: a two-year-old failure still counts`);
  t.equal(statusOf(data, mixed.control_id), 'non_compliant', `${mixed.control_id}: the failure alone decides, not mixed evidence`);
  t.equal(data.summary.findings.stale_passing, 2, 'two passing findings set aside');
  const stale = data.by_framework.HIPAA.stale_evidence;
  const byId = Object.fromEntries(stale.map((s: any) => [s.control.id, s]));
  t.match(byId[passing.control_id], {
    status: 'not_assessed',
    last_observed_at: OLD,
    findings: [{ finding_id: 'old-pass', signal_id: passing.signal_id, finding_status: 'false_positive', observed_at: OLD }],
  });
  t.match(byId[mixed.control_id], { status: 'non_compliant', findings: [{ finding_id: 'mixed-pass' }] });
  t.notOk(byId[failing.control_id], 'failures are never stale');
  t.ok(typeof byId[passing.control_id].control.category === 'string');
  const variantA = data.frameworks[0].stale_evidence;
  t.same(
    variantA.map((s: any) => [s.control.id, s.status, s.last_observed_at]),
    stale.map((s: any) => [s.control.id, s.status, s.last_observed_at]),
    'Variant A says the same',
  );
  t.same(Object.keys(variantA[0].control), ['id', 'title']);
  t.notOk(
    data.by_framework.HIPAA.compliant.some((c: any) => c.control.id === passing.control_id),
    'never listed compliant',
  );
});

t.test('fresh and undated passes count; the limit is the caller’s', async (t) => {
  const fresh = (await analyse([finding('p', passing.signal_id, 'false_positive', { observed_at: FRESH })])).data;
  t.equal(statusOf(fresh, passing.control_id), 'compliant');
  t.same(fresh.by_framework.HIPAA.stale_evidence, []);
  t.equal(fresh.summary.findings.stale_passing, 0);
  const { observed_at: _dropped, ...undated } = finding('u', passing.signal_id, 'false_positive');
  t.equal(statusOf((await analyse([undated])).data, passing.control_id), 'compliant', 'no observed_at: taken as current');
  const wide = (await analyse([finding('p', passing.signal_id, 'false_positive', { observed_at: OLD })], { max_evidence_age_days: 365 })).data;
  t.equal(statusOf(wide, passing.control_id), 'compliant', 'max_evidence_age_days 365: the same pass counts');
  t.equal(wide.options.max_evidence_age_days, 365);
  const narrow = (await analyse([finding('p', passing.signal_id, 'false_positive', { observed_at: FRESH })], { max_evidence_age_days: 1 })).data;
  t.equal(statusOf(narrow, passing.control_id), 'not_assessed', 'a day and a half old, limit 1 day: 36 hours is past it');
});

t.test('bounds', async (t) => {
  for (const value of [0, 3651, 1.5, '90']) {
    const res = await call(service, 'POST', '/v1/gap-analysis', {
      key,
      body: { frameworks: ['HIPAA'], findings: [finding('p', passing.signal_id)], options: { max_evidence_age_days: value } },
    });
    t.equal(res.status, 400, `${JSON.stringify(value)}: 400`);
    t.match(res.body.error, { code: 'invalid_parameter', details: { parameter: 'options.max_evidence_age_days' } });
  }
});

t.test('on import: the query option', async (t) => {
  // A Prowler CSV of our own: one check passing on 2026-06-01, half a year before the analysis.
  const scan = [
    'CHECK_ID;STATUS;SEVERITY;RESOURCE_UID;RESOURCE_TYPE;PROVIDER;TIMESTAMP',
    's3_bucket_default_encryption;PASS;medium;arn:aws:s3:::example-data;AwsS3Bucket;aws;2026-06-01 08:15:00',
    '',
  ].join('\n');
  const importAt = (query: string) =>
    call(service, 'POST', `/v1/gap-analysis/import?frameworks=HIPAA&format=prowler-csv${query}`, {
      key,
      rawBody: scan,
      headers: { 'content-type': 'text/csv' },
    });
  const stale = await importAt('');
  t.equal(stale.status, 200, stale.text.slice(0, 300));
  t.equal(stale.body.data.summary.findings.stale_passing, 1);
  t.equal(stale.body.data.by_framework.HIPAA.compliant.length, 0, 'nothing compliant on a stale pass');
  t.ok(stale.body.data.by_framework.HIPAA.stale_evidence.length > 0);
  const counted = await importAt('&max_evidence_age_days=365');
  t.equal(counted.body.data.summary.findings.stale_passing, 0);
  t.ok(counted.body.data.by_framework.HIPAA.compliant.length > 0, 'within a year it counts');
  t.equal((await importAt('&max_evidence_age_days=0')).body.error.details.parameter, 'max_evidence_age_days');
});
