/**
 * Custom frameworks over a real socket (docs/custom-frameworks.md): defining, listing, reading,
 * versioning and deleting them; privacy across accounts; using them in gap analysis beside the
 * registry's frameworks, in imports, comparisons, the analyses list, every export and the
 * cross-framework insights; a stored analysis staying readable after its framework changes.
 */
import t, { type Test } from 'tap';
import { startTestService, call, type CallResult } from '../helpers/service.js';
import { finding, testRegistry } from '../helpers/findings.js';
import { sampleFramework } from '../custom-frameworks/fixtures.js';
import { parseCsv, pdfToText, readWorkbook } from '../export/read-back.js';

const service = await startTestService();
t.teardown(() => service.close());
await service.services.pool.ready;

const enterprise = await service.key('enterprise', 'acme');
const rival = await service.key('enterprise', 'rival');
const teams = await service.key('teams', 'small');

const as = (key: string) => ({
  get: (path: string) => call(service, 'GET', path, { key }),
  post: (path: string, body: unknown) => call(service, 'POST', path, { key, body }),
  put: (path: string, body: unknown) => call(service, 'PUT', path, { key, body }),
  delete: (path: string) => call(service, 'DELETE', path, { key }),
});
const acme = as(enterprise);
const other = as(rival);

function expectError(t: Test, res: CallResult, status: number, code: string, label = code): any {
  t.equal(res.status, status, `${label}: ${status}${res.status === status ? '' : ` (${res.text.slice(0, 300)})`}`);
  t.equal(res.body?.error?.code, code, `${label}: ${code}`);
  return res.body?.error?.details ?? {};
}

const sample = sampleFramework();

t.test('below Enterprise: the tier error of the other tier limits, and nothing custom is listed', async (t) => {
  const small = as(teams);
  for (const res of [
    await small.post('/v1/frameworks', sample.body),
    await small.put('/v1/frameworks/ACME-ISP', sample.body),
    await small.delete('/v1/frameworks/ACME-ISP'),
    await small.get('/v1/frameworks/template'),
    await small.get('/v1/frameworks/ACME-ISP/coverage'),
  ]) {
    const details = expectError(t, res, 403, 'GAP_TIER_REQUIRED');
    t.same(details, { required_tier: 'enterprise', current_tier: 'teams' });
  }
  const list = await small.get('/v1/frameworks');
  t.equal(list.status, 200);
  t.ok(
    list.body.data.every((f: any) => f.custom === false),
    'registry frameworks only, each custom: false',
  );
});

t.test('define, read, list, version and delete', async (t) => {
  const created = await acme.post('/v1/frameworks', sample.body);
  t.equal(created.status, 200, created.text.slice(0, 300));
  const framework = created.body.data;
  t.match(framework, {
    code: 'ACME-ISP',
    name: sample.body.name,
    version: '2026.1',
    custom: true,
    category: 'custom',
    revision: 1,
    control_count: 4,
    source_format: 'json',
    gap_analysis: true,
  });
  t.same(framework.control_categories, ['Access control', 'Operations', 'People']);
  t.same(
    framework.versions.map((v: any) => [v.revision, v.version, v.control_count]),
    [[1, '2026.1', 4]],
  );
  const ac2 = framework.controls.find((c: any) => c.id === 'AC-2');
  t.same(ac2.corresponds_to, [{ framework: 'HIPAA', control_id: sample.equal.control_id, relationship: 'equal' }], 'framework codes stored canonical');
  const ac4 = framework.controls.find((c: any) => c.id === 'AC-4');
  t.same(
    ac4,
    {
      id: 'AC-4',
      title: 'Background checks for staff',
      description: '',
      category: 'People',
      level: null,
      guidance: '',
      evidence: [],
      signals: [],
      corresponds_to: [],
    },
    'defaults filled in',
  );

  const read = await acme.get('/v1/frameworks/acme-isp');
  t.equal(read.status, 200, 'read back in any case');
  t.same(read.body.data, framework, 'as created');
  const builtIn = await acme.get('/v1/frameworks/hipaa');
  t.equal(builtIn.status, 200);
  t.match(builtIn.body.data, { code: 'HIPAA', custom: false });

  const list = await acme.get('/v1/frameworks');
  const codes = list.body.data.map((f: any) => f.code);
  t.equal(codes.at(-1), 'ACME-ISP', 'listed after the registry frameworks');
  t.equal(list.body.meta.total, codes.length);
  t.match(list.body.data.at(-1), { code: 'ACME-ISP', custom: true, revision: 1, control_count: 4 });
  t.notOk(list.headers.get('etag'), 'an Enterprise listing is its own: no registry validator');
  const healthcare = await acme.get('/v1/frameworks?category=healthcare');
  t.notOk(
    healthcare.body.data.some((f: any) => f.custom),
    'a category filter lists the registry frameworks of that category',
  );

  const controls = await acme.get('/v1/frameworks/ACME-ISP/controls?per_page=2');
  t.equal(controls.status, 200);
  t.match(controls.body.data.framework, { code: 'ACME-ISP', custom: true, revision: 1 });
  t.same(controls.body.meta, { total: 4, page: 1, per_page: 2, total_pages: 2 });
  t.same(controls.body.data.controls[0].signal_ids, [sample.direct.signal_id], 'AC-1: its direct signal');
  t.ok(controls.body.data.controls[1].signal_ids.includes(sample.equal.signal_id), "AC-2: the equal HIPAA control's signals");
  const people = await acme.get('/v1/frameworks/ACME-ISP/controls?category=people');
  t.same(
    people.body.data.controls.map((c: any) => c.id),
    ['AC-4'],
  );
  const badCategory = await acme.get('/v1/frameworks/ACME-ISP/controls?category=nope');
  t.same(expectError(t, badCategory, 400, 'invalid_parameter').valid_values, ['Access control', 'Operations', 'People']);

  const duplicate = await acme.post('/v1/frameworks', sample.body);
  t.same(expectError(t, duplicate, 409, 'framework_exists'), { code: 'ACME-ISP', built_in: false });

  const sameVersion = await acme.put('/v1/frameworks/ACME-ISP', sample.body);
  t.match(expectError(t, sameVersion, 400, 'framework_invalid', 'the same version label again'), { pointer: '/version' });
  const next: Record<string, any> = { ...sample.body, version: '2026.2', controls: sample.body.controls.slice(0, 3) };
  delete next.code;
  const replaced = await acme.put('/v1/frameworks/acme-isp', next);
  t.equal(replaced.status, 200, replaced.text.slice(0, 300));
  t.match(replaced.body.data, { code: 'ACME-ISP', version: '2026.2', revision: 2, control_count: 3, created_at: framework.created_at });
  t.same(
    replaced.body.data.versions.map((v: any) => [v.revision, v.version, v.control_count]),
    [
      [1, '2026.1', 4],
      [2, '2026.2', 3],
    ],
  );
  const renamed = await acme.put('/v1/frameworks/ACME-ISP', { ...next, code: 'OTHER', version: '3' });
  t.match(expectError(t, renamed, 400, 'framework_invalid', 'a body code other than the path'), { pointer: '/code' });
  expectError(t, await acme.put('/v1/frameworks/NOPE', { ...next, version: '9' }), 404, 'not_found', 'PUT does not create');
  expectError(t, await acme.put('/v1/frameworks/HIPAA', { ...next, version: '9' }), 404, 'not_found', 'PUT cannot touch a registry framework');

  // Another module of the suite uses ACME-ISP at revision 2; this one deletes its own.
  const scratch = await acme.post('/v1/frameworks', { ...sample.body, code: 'SCRATCH' });
  t.equal(scratch.status, 200);
  const deleted = await acme.delete('/v1/frameworks/scratch');
  t.same(deleted.body.data, { code: 'SCRATCH', deleted: true, revision: 1 });
  expectError(t, await acme.get('/v1/frameworks/SCRATCH'), 404, 'not_found', 'gone');
  expectError(t, await acme.delete('/v1/frameworks/SCRATCH'), 404, 'not_found', 'a second delete');
  expectError(t, await acme.delete('/v1/frameworks/HIPAA'), 404, 'not_found', 'a registry framework cannot be deleted');
});

t.test('a code cannot shadow a built-in one', async (t) => {
  for (const code of ['HIPAA', 'soc2', 'NIST-CSF', 'nist_csf', 'ISO-27001', 'NIST-800-53', 'template']) {
    const res = await acme.post('/v1/frameworks', { ...sample.body, code });
    t.same(expectError(t, res, 409, 'framework_exists', code), { code: code.toUpperCase(), built_in: true });
  }
});

t.test('a bad definition is refused where it is wrong, and nothing is stored', async (t) => {
  const cases: Array<[string, unknown, Record<string, unknown>]> = [
    ['no code', { ...sample.body, code: undefined }, { pointer: '/code' }],
    ['bad code', { ...sample.body, code: '1ACME' }, { pointer: '/code' }],
    ['no controls', { ...sample.body, code: 'BAD', controls: [] }, { pointer: '/controls' }],
    ['unknown field', { ...sample.body, code: 'BAD', owner: 'me' }, { pointer: '/owner' }],
    [
      'unknown signal',
      { ...sample.body, code: 'BAD', controls: [sample.body.controls[0], { id: 'X-1', title: 'x', signals: [{ signal_id: 'CSR-NOPE-NOPE-001' }] }] },
      { pointer: '/controls/1/signals/0', control_id: 'X-1' },
    ],
    [
      'unknown built-in control',
      {
        ...sample.body,
        code: 'BAD',
        controls: [{ id: 'X-1', title: 'x', corresponds_to: [{ framework: 'HIPAA', control_id: 'nope', relationship: 'equal' }] }],
      },
      { pointer: '/controls/0/corresponds_to/0' },
    ],
    [
      'unknown framework',
      { ...sample.body, code: 'BAD', controls: [{ id: 'X-1', title: 'x', corresponds_to: [{ framework: 'NOPE', control_id: '1', relationship: 'equal' }] }] },
      { pointer: '/controls/0/corresponds_to/0' },
    ],
    [
      'bad relationship',
      {
        ...sample.body,
        code: 'BAD',
        controls: [{ id: 'X-1', title: 'x', corresponds_to: [{ framework: 'HIPAA', control_id: sample.equal.control_id, relationship: 'same' }] }],
      },
      { pointer: '/controls/0/corresponds_to/0/relationship' },
    ],
    [
      'confidence over 1',
      { ...sample.body, code: 'BAD', controls: [{ id: 'X-1', title: 'x', signals: [{ signal_id: sample.direct.signal_id, confidence: 1.5 }] }] },
      { pointer: '/controls/0/signals/0/confidence' },
    ],
    [
      'duplicate control id',
      {
        ...sample.body,
        code: 'BAD',
        controls: [
          { id: 'X-1', title: 'x' },
          { id: 'X-1', title: 'y' },
        ],
      },
      { pointer: '/controls/1/id', control_id: 'X-1' },
    ],
  ];
  for (const [label, body, expected] of cases) {
    const details = expectError(t, await acme.post('/v1/frameworks', body), 400, 'framework_invalid', label);
    t.match(details, { format: 'json', ...expected }, `${label}: where`);
    t.type(details.reason, 'string');
  }
  expectError(
    t,
    await call(service, 'POST', '/v1/frameworks', { key: enterprise, rawBody: '{"code":', headers: { 'content-type': 'application/json' } }),
    400,
    'invalid_json',
  );
  expectError(
    t,
    await call(service, 'POST', '/v1/frameworks', { key: enterprise, rawBody: 'x', headers: { 'content-type': 'text/html' } }),
    415,
    'unsupported_media_type',
  );
  expectError(t, await acme.get('/v1/frameworks/BAD'), 404, 'not_found', 'nothing stored');
});

t.test('another account never sees it', async (t) => {
  const details = expectError(t, await other.get('/v1/frameworks/ACME-ISP'), 404, 'not_found', 'read');
  t.same(details, { resource: 'Framework', id: 'ACME-ISP' });
  expectError(t, await other.get('/v1/frameworks/ACME-ISP/controls'), 404, 'not_found', 'controls');
  expectError(t, await other.get('/v1/frameworks/ACME-ISP/coverage'), 404, 'not_found', 'coverage');
  expectError(t, await other.put('/v1/frameworks/ACME-ISP', { ...sample.body, version: 'x' }), 404, 'not_found', 'put');
  expectError(t, await other.delete('/v1/frameworks/ACME-ISP'), 404, 'not_found', 'delete');
  const list = await other.get('/v1/frameworks');
  t.notOk(
    list.body.data.some((f: any) => f.custom),
    'not listed',
  );
  const analysis = await other.post('/v1/gap-analysis', { frameworks: ['ACME-ISP'], findings: [finding('f-1', sample.direct.signal_id)] });
  t.same(expectError(t, analysis, 400, 'GAP_FRAMEWORK_NOT_FOUND', 'not usable').frameworks, ['ACME-ISP']);
  // The same code is free for the other account: codes are per account.
  const theirs = await other.post('/v1/frameworks', { ...sample.body, name: 'Rival policy', controls: [sample.body.controls[3]] });
  t.equal(theirs.status, 200);
  t.equal((await acme.get('/v1/frameworks/ACME-ISP')).body.data.name, sample.body.name, 'each account reads its own');
  t.equal((await other.delete('/v1/frameworks/ACME-ISP')).status, 200);
  t.equal((await acme.get('/v1/frameworks/ACME-ISP')).status, 200, 'deleting theirs leaves ours');
});

/** The confidence of a signal's mapping to a control in the registry. */
function registryConfidence(signalId: string, framework: string, controlId: string): number {
  return testRegistry()
    .mappingsOfSignal(signalId)
    .find((m) => m.framework === framework && m.control_id === controlId)!.confidence;
}

const analysisFindings = () => [
  finding('f-direct', sample.direct.signal_id, 'open', { severity: { level: 'critical' } }),
  finding('f-equal', sample.equal.signal_id, 'open'),
  finding('f-intersects', sample.intersects.signal_id, 'open'),
];

let storedId = '';

t.test('gap analysis: beside the registry frameworks, direct and inherited evidence', async (t) => {
  const created = await acme.post('/v1/gap-analysis', { frameworks: ['HIPAA', 'acme-isp'], findings: analysisFindings() });
  t.equal(created.status, 200, created.text.slice(0, 300));
  const data = created.body.data;
  storedId = data.id;
  t.same(data.frameworks_requested, ['HIPAA', 'ACME-ISP'], 'the custom code as stored');
  const variantA = data.frameworks[1];
  t.match(variantA, { code: 'ACME-ISP', name: sample.body.name, version: '2026.2', custom: true, revision: 2 }, 'Variant A names the version assessed');
  t.equal(data.frameworks[0].custom, undefined, 'a registry framework carries no custom mark');
  const custom = data.by_framework['ACME-ISP'];
  t.match(custom, { name: sample.body.name, version: '2026.2', custom: true, revision: 2 });
  t.match(
    custom.posture,
    { controls_total: 3, controls_non_compliant: 2, controls_not_assessed: 1 },
    'AC-3 (intersects_with, capped at 0.6) is not assessed at the default 0.7',
  );
  const gap = (id: string) => custom.gaps.find((g: any) => g.control.id === id);
  t.match(gap('AC-1'), {
    status: 'non_compliant',
    confidence: 0.9,
    severity: 'critical',
    control: { id: 'AC-1', title: sample.body.controls[0].title, category: 'Access control' },
  });
  t.same(
    gap('AC-1').findings,
    [{ finding_id: 'f-direct', signal_id: sample.direct.signal_id, finding_status: 'open', relationship: 'primary', confidence: 0.9 }],
    'the direct signal as written',
  );
  const inherited = registryConfidence(sample.equal.signal_id, 'HIPAA', sample.equal.control_id);
  t.match(gap('AC-2'), { status: 'non_compliant', confidence: inherited }, 'equal keeps the built-in mapping');
  t.match(
    gap('AC-2').findings.find((f: any) => f.finding_id === 'f-equal'),
    { relationship: 'primary', confidence: inherited },
  );
  t.ok(gap('AC-1').remediation.steps.length > 0, 'remediation from the signal');
  t.equal(data.summary.total_controls, data.frameworks.length && data.by_framework.HIPAA.posture.controls_total + 3, 'the summary pools both');

  const common = data.cross_framework.common_gaps.find((g: any) => g.signal_id === sample.direct.signal_id);
  t.ok(common, 'the direct signal opens gaps in both frameworks: a common gap');
  t.same(common.affects_frameworks, ['ACME-ISP', 'HIPAA']);
  t.ok(common.controls_affected.some((c: any) => c.framework === 'ACME-ISP' && c.control_id === 'AC-1'));
  t.same(data.cross_framework_insights.common_gaps, data.cross_framework.common_gaps, 'Variant A insights too');
  const synergies = data.cross_framework.framework_synergies;
  t.same(
    synergies.map((s: any) => `${s.primary_framework}>${s.synergy_with}`),
    ['HIPAA>ACME-ISP', 'ACME-ISP>HIPAA'],
  );
  t.equal(synergies[1].overlap_percentage, 100, 'every mapped ACME-ISP control shares a signal with HIPAA');

  const lowered = await acme.post('/v1/gap-analysis', { frameworks: ['ACME-ISP'], findings: analysisFindings(), options: { min_confidence: 0.5 } });
  const ac3 = lowered.body.data.by_framework['ACME-ISP'].gaps.find((g: any) => g.control.id === 'AC-3');
  t.match(ac3, { confidence: 0.6 }, 'with min_confidence lowered, intersects_with evidence counts, at most 0.6');
  t.ok(ac3.findings.every((f: any) => f.relationship === 'partial' && f.confidence <= 0.6));

  const passing = await acme.post('/v1/gap-analysis', {
    frameworks: ['ACME-ISP'],
    findings: [finding('f-ok', sample.direct.signal_id, 'resolved')],
    options: { include_resolved: true },
  });
  t.match(
    passing.body.data.by_framework['ACME-ISP'].compliant,
    [{ control: { id: 'AC-1' }, status: 'compliant', validated_by: [{ finding_id: 'f-ok' }] }],
    'passing evidence: compliant',
  );
});

t.test('gap analysis: any spelling of the code, the worker path, and the tier limit', async (t) => {
  const mixedCase = await acme.post('/v1/gap-analysis', { frameworks: ['Acme-Isp'], findings: analysisFindings() });
  t.equal(mixedCase.status, 200, `a spelling neither upper nor lower case (${mixedCase.text.slice(0, 200)})`);
  t.same(mixedCase.body.data.frameworks_requested, ['ACME-ISP']);

  // Over 16 KiB of body: the analysis runs on a worker thread, the framework's facts sent along.
  const many = Array.from({ length: 400 }, (_, i) =>
    finding(`bulk-${String(i).padStart(4, '0')}`, [sample.direct.signal_id, sample.equal.signal_id][i % 2], i % 3 ? 'open' : 'resolved'),
  );
  const pooled = await acme.post('/v1/gap-analysis', { frameworks: ['ACME-ISP', 'SOC2'], findings: many });
  t.equal(pooled.status, 200, pooled.text.slice(0, 200));
  t.ok(JSON.stringify({ frameworks: [], findings: many }).length > 16 * 1024, 'the body is over the inline limit');
  t.equal(pooled.body.data.by_framework['ACME-ISP'].revision, 2);
  const pooledMixed = await acme.post('/v1/gap-analysis', { frameworks: ['aCmE-iSp'], findings: many });
  t.equal(pooledMixed.status, 200, 'the retry with the facts works on the worker path too');
  // Over 128 KiB, only the body's ends are looked at for codes: the frameworks member after the findings is there.
  const large = Array.from({ length: 1500 }, (_, i) =>
    finding(`large-${String(i).padStart(5, '0')}`, [sample.direct.signal_id, sample.equal.signal_id][i % 2], 'open'),
  );
  const framesLast = JSON.stringify({ findings: large, frameworks: ['HIPAA', 'acme-isp'] });
  t.ok(framesLast.length > 128 * 1024, `${framesLast.length} bytes`);
  const last = await call(service, 'POST', '/v1/gap-analysis', { key: enterprise, rawBody: framesLast, headers: { 'content-type': 'application/json' } });
  t.equal(last.status, 200, last.text.slice(0, 200));
  t.match(last.body.data.by_framework['ACME-ISP'], { revision: 2, posture: { controls_non_compliant: 2 } });

  const all = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA'];
  const tooMany = await acme.post('/v1/gap-analysis', { frameworks: [...all, 'ACME-ISP'], findings: analysisFindings() });
  t.same(expectError(t, tooMany, 400, 'GAP_TOO_MANY_FRAMEWORKS'), { count: 12, limit: 11, tier: 'enterprise' }, 'a custom framework counts against the limit');
  const unknown = await acme.post('/v1/gap-analysis', { frameworks: ['NOPE'], findings: analysisFindings() });
  t.ok(expectError(t, unknown, 400, 'GAP_FRAMEWORK_NOT_FOUND').valid_codes.includes('ACME-ISP'), "the valid codes name the account's own");
});

t.test('the analyses list, compare and scanner import', async (t) => {
  const listed = await acme.get('/v1/gap-analysis/summary?framework=acme-isp&per_page=50');
  t.equal(listed.status, 200, listed.text.slice(0, 200));
  t.ok(listed.body.data.analyses.length >= 4 && listed.body.data.analyses.every((a: any) => a.frameworks.includes('ACME-ISP')), 'filtered by the custom code');
  t.ok(listed.body.data.analyses.some((a: any) => a.id === storedId));
  const otherList = await other.get('/v1/gap-analysis/summary?framework=acme-isp');
  expectError(t, otherList, 400, 'invalid_parameter', 'another account cannot filter by it');

  const later = await acme.post('/v1/gap-analysis', {
    frameworks: ['HIPAA', 'ACME-ISP'],
    findings: [finding('f-direct', sample.direct.signal_id, 'resolved'), finding('f-equal', sample.equal.signal_id, 'open')],
    options: { include_resolved: true },
  });
  const compared = await acme.post('/v1/gap-analysis/compare', { baseline_id: storedId, current_id: later.body.data.id });
  t.equal(compared.status, 200, compared.text.slice(0, 200));
  const byFramework = compared.body.data.by_framework.find((f: any) => f.framework === 'ACME-ISP');
  t.ok(byFramework && byFramework.controls_improved >= 1, 'AC-1 improved');
  t.ok(compared.body.data.comparison.gaps_resolved.some((g: any) => g.framework === 'ACME-ISP' && g.control_id === 'AC-1'));

  // A Prowler CSV of our own; its findings' signals become a custom framework's evidence.
  const scan = [
    'CHECK_ID;STATUS;SEVERITY;RESOURCE_UID;RESOURCE_TYPE;PROVIDER;TIMESTAMP',
    's3_bucket_default_encryption;FAIL;medium;arn:aws:s3:::example-logs;AwsS3Bucket;aws;2026-11-20 08:15:00',
    '',
  ].join('\n');
  const csv = { 'content-type': 'text/csv' };
  const converted = await call(service, 'POST', '/v1/findings/import?format=prowler-csv', { key: enterprise, rawBody: scan, headers: csv });
  const signalId = converted.body.data.findings[0].signal_id;
  const scans = await acme.post('/v1/frameworks', {
    code: 'SCANS',
    name: 'Scan policy',
    version: '1',
    controls: [{ id: 'S-1', title: 'Buckets are encrypted', signals: [{ signal_id: signalId }] }],
  });
  t.equal(scans.status, 200);
  const imported = await call(service, 'POST', '/v1/gap-analysis/import?format=prowler-csv&frameworks=scans,HIPAA', {
    key: enterprise,
    rawBody: scan,
    headers: csv,
  });
  t.equal(imported.status, 200, imported.text.slice(0, 300));
  t.same(imported.body.data.frameworks_requested, ['SCANS', 'HIPAA']);
  t.match(
    imported.body.data.by_framework.SCANS.gaps,
    [{ control: { id: 'S-1' }, status: 'non_compliant', confidence: 0.8 }],
    'default relationship primary, confidence 0.8',
  );
});

t.test('every export format carries the custom framework', async (t) => {
  const exported = async (format: string, options: Record<string, unknown> = {}) => {
    const response = await fetch(`${service.url}/v1/gap-analysis/${storedId}/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${enterprise}`, 'content-type': 'application/json' },
      body: JSON.stringify({ format, options }),
    });
    t.equal(response.status, 200, `${format}: 200`);
    return Buffer.from(await response.arrayBuffer());
  };
  const json = JSON.parse((await exported('json', { include_evidence: true })).toString());
  t.match(json.data?.by_framework?.['ACME-ISP'] ?? json.by_framework?.['ACME-ISP'] ?? json, {}, 'json parses');
  t.ok(JSON.stringify(json).includes('"ACME-ISP"'), 'json: the custom framework is there');
  t.ok(JSON.stringify(json).includes('IdP MFA policy export'), "json: a custom control's evidence items with include_evidence");

  const csv = await parseCsv((await exported('csv')).toString());
  const header = csv[0];
  const frameworkColumn = header.indexOf('framework');
  const customRows = csv.slice(1).filter((row) => row[frameworkColumn] === 'ACME-ISP');
  t.same(customRows.map((row) => row[header.indexOf('control_id')]).sort(), ['AC-1', 'AC-2'], 'csv: a row per assessed custom control');

  const workbook = await readWorkbook(await exported('xlsx'));
  let cells = '';
  workbook.eachSheet((sheet) => sheet.eachRow((row) => (cells += `${JSON.stringify(row.values)}\n`)));
  t.ok(cells.includes('ACME-ISP') && cells.includes(sample.body.controls[0].title), 'xlsx: the framework and its controls');
  t.ok(cells.includes(sample.body.controls[2].title), "xlsx: AC-3, which no finding reached, in the not-assessed list from the framework's stored version");

  const pdf = await pdfToText(await exported('pdf'));
  t.ok(pdf.includes('ACME-ISP'), 'pdf: the framework code');
  t.ok(pdf.includes('Administrators use multi-factor'), 'pdf: a custom control');

  const filtered = await call(service, 'GET', `/v1/gap-analysis/${storedId}/export?format=csv&frameworks=acme-isp`, { key: enterprise });
  t.equal(filtered.status, 200, filtered.text.slice(0, 200));
  const filteredRows = await parseCsv(filtered.text);
  t.ok(
    filteredRows.slice(1).every((row) => row[filteredRows[0].indexOf('framework')] === 'ACME-ISP'),
    'the framework filter takes the custom code',
  );
  const notInIt = await call(service, 'GET', `/v1/gap-analysis/${storedId}/export?format=csv&frameworks=SCANS`, { key: enterprise });
  t.match(expectError(t, notInIt, 400, 'invalid_parameter', 'a custom framework the analysis did not use'), { valid_values: ['HIPAA', 'ACME-ISP'] });
});

t.test('a stored analysis stays as it was after its framework changes and after it is deleted', async (t) => {
  const before = (await acme.get(`/v1/gap-analysis/${storedId}`)).body;
  const changed = await acme.put('/v1/frameworks/ACME-ISP', {
    name: 'ACME policy, rewritten',
    version: '2027.1',
    controls: [{ id: 'AC-1', title: 'Renamed control', signals: [{ signal_id: sample.direct.signal_id, confidence: 0.75 }] }],
  });
  t.equal(changed.status, 200);
  t.equal(changed.body.data.revision, 3);
  const afterChange = (await acme.get(`/v1/gap-analysis/${storedId}`)).body;
  t.same(afterChange, before, 'read back byte for byte the same after a new version');
  t.match(afterChange.data.by_framework['ACME-ISP'], { version: '2026.2', revision: 2 });
  const fresh = await acme.post('/v1/gap-analysis', { frameworks: ['ACME-ISP'], findings: analysisFindings() });
  t.match(fresh.body.data.by_framework['ACME-ISP'], { name: 'ACME policy, rewritten', version: '2027.1', revision: 3 }, 'a new analysis uses the new version');
  t.match(fresh.body.data.by_framework['ACME-ISP'].gaps, [{ control: { id: 'AC-1', title: 'Renamed control' }, confidence: 0.75 }]);

  t.equal((await acme.delete('/v1/frameworks/ACME-ISP')).status, 200);
  const afterDelete = await acme.get(`/v1/gap-analysis/${storedId}`);
  t.equal(afterDelete.status, 200);
  t.same(afterDelete.body, before, 'and after the framework is deleted');
  const exported = await call(service, 'GET', `/v1/gap-analysis/${storedId}/export?format=csv&frameworks=ACME-ISP`, { key: enterprise });
  t.equal(exported.status, 200, 'its export, filtered by the deleted framework, still works');
  const gone = await acme.post('/v1/gap-analysis', { frameworks: ['ACME-ISP'], findings: analysisFindings() });
  expectError(t, gone, 400, 'GAP_FRAMEWORK_NOT_FOUND', 'a deleted framework cannot be analysed against');
  expectError(t, await acme.get('/v1/frameworks/ACME-ISP/controls'), 404, 'not_found', 'its controls are gone');
});
