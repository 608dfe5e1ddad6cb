import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { fixture } from '../ingest/helpers.js';
import { INLINE_ANALYSIS_MAX_BYTES } from '../../src/api/gap-analysis.js';
import { pdfToText, readWorkbook } from '../export/read-back.js';

/** A Prowler CSV of `rows` failing results on distinct buckets: large enough to go to the worker pool. */
function bigProwlerCsv(rows: number): string {
  const lines = ['CHECK_ID;STATUS;SEVERITY;RESOURCE_UID;RESOURCE_TYPE;PROVIDER;TIMESTAMP'];
  for (let i = 0; i < rows; i++)
    lines.push(
      `s3_bucket_default_encryption;FAIL;medium;arn:aws:s3:::bucket-${String(i).padStart(5, '0')}-with-a-longer-name-for-size;AwsS3Bucket;aws;2026-11-20 08:15:00`,
    );
  return `${lines.join('\n')}\n`;
}

// One service for the file: starting one (worker threads build their gap index) is the slow part.
const service = await startTestService();
t.teardown(() => service.close());

t.test('POST /v1/findings/import: the file as curl --data-binary sends it, findings in the spec shape plus source', async (t) => {
  const key = await service.key('pro');
  const res = await call(service, 'POST', '/v1/findings/import?format=auto', {
    key,
    rawBody: fixture('prowler-ocsf.json'),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(res.status, 200, res.text.slice(0, 300));
  const { data, meta } = res.body;
  t.same([data.format, data.tool, data.tool_version], ['prowler-ocsf', 'prowler', '5.2.0']);
  t.same(meta.formats_considered, ['sarif', 'prowler-asff', 'asff', 'prowler-ocsf']);
  t.equal(meta.format_requested, 'auto');
  t.same(
    data.findings.map((f: { status: string }) => f.status),
    ['open', 'resolved', 'accepted'],
  );
  t.match(data.summary, { results: 4, findings: 3, other: 1, other_statuses: { MANUAL: 1 } });
  t.same(data.unmapped, []);

  // The findings feed POST /v1/gap-analysis as they are (passes count with include_resolved).
  const analysis = await call(service, 'POST', '/v1/gap-analysis', {
    key,
    body: { frameworks: ['SOC2'], findings: data.findings, options: { include_resolved: true } },
  });
  t.equal(analysis.status, 200, analysis.text.slice(0, 300));
  t.equal(analysis.body.data.summary.findings.submitted, 3);

  const csv = await call(service, 'POST', '/v1/findings/import?format=prowler-csv', {
    key,
    rawBody: fixture('prowler.csv'),
    headers: { 'content-type': 'text/csv' },
  });
  t.equal(csv.status, 200);
  t.same(csv.body.meta.formats_considered, ['prowler-csv']);
});

t.test('a large file is parsed in the worker pool and answers the same', async (t) => {
  const key = await service.key('enterprise');
  const body = bigProwlerCsv(400);
  t.ok(body.length > INLINE_ANALYSIS_MAX_BYTES, 'above the inline size');
  const res = await call(service, 'POST', '/v1/findings/import', { key, rawBody: body, headers: { 'content-type': 'text/csv' } });
  t.equal(res.status, 200, res.text.slice(0, 300));
  t.equal(res.body.data.findings.length, 400);
  t.equal(new Set(res.body.data.findings.map((f: { id: string }) => f.id)).size, 400, 'ids are unique per resource');
  const analysis = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA,SOC2&format=prowler-csv', {
    key,
    rawBody: body,
    headers: { 'content-type': 'text/csv' },
  });
  t.equal(analysis.status, 200, analysis.text.slice(0, 300));
  t.equal(analysis.body.data.summary.findings.submitted, 400);
  t.equal(analysis.body.meta.import.summary.findings, 400);
});

t.test('POST /v1/gap-analysis/import: stored like any analysis, meta.import, a control reached only by passes is compliant', async (t) => {
  const key = await service.key('teams');
  const passesOnly = 'CHECK_ID;STATUS;RESOURCE_UID\niam_root_mfa_enabled;PASS;arn:aws:iam::111122223333:root\n';
  const res = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA', { key, rawBody: passesOnly, headers: { 'content-type': 'text/plain' } });
  t.equal(res.status, 200, res.text.slice(0, 300));
  const { data, meta } = res.body;
  const hipaa = data.by_framework.HIPAA;
  t.ok(hipaa.compliant.length >= 1, 'controls reached by the pass are compliant');
  t.same(hipaa.gaps, [], 'and none is a gap');
  t.equal(data.summary.findings.excluded_resolved, 0, 'passes count by default on import');
  t.match(meta.import, { format: 'prowler-csv', tool: 'prowler', summary: { results: 1, passed: 1, findings: 1 }, unmapped: [] });
  t.ok(res.headers.get('x-analysis-expires-at'));

  const stored = await call(service, 'GET', `/v1/gap-analysis/${data.id}`, { key });
  t.equal(stored.status, 200);
  t.equal(stored.text, res.text, 'GET returns the body import answered');

  const excluded = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA&include_resolved=false', {
    key,
    rawBody: passesOnly,
    headers: { 'content-type': 'text/plain' },
  });
  t.equal(excluded.status, 200);
  t.equal(excluded.body.data.summary.findings.excluded_resolved, 1, 'include_resolved=false drops passes, as on create');

  const mixed = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA&frameworks=SOC2&format=auto', {
    key,
    rawBody: fixture('prowler.csv'),
    headers: { 'content-type': 'text/csv' },
  });
  t.equal(mixed.status, 200);
  t.same(mixed.body.data.frameworks_requested, ['HIPAA', 'SOC2'], 'repeated and comma-separated frameworks');
  t.ok(mixed.body.data.by_framework.HIPAA.gaps.length >= 1, 'the failure opens a gap');
});

t.test('refusals: unreadable file, media type, tier, frameworks, tier limits after conversion', async (t) => {
  const pro = await service.key('pro');

  const broken = await call(service, 'POST', '/v1/findings/import?format=trivy', {
    key: pro,
    rawBody: '{"SchemaVersion":2,"Results":[{"Target":"a","Misconfigurations":{"ID":"KSV001"}}]}',
  });
  t.equal(broken.status, 400);
  t.match(broken.body.error, { code: 'scan_unreadable', details: { format: 'trivy', format_requested: 'trivy', pointer: '/Results/0/Misconfigurations' } });

  const csvLine = await call(service, 'POST', '/v1/findings/import', {
    key: pro,
    rawBody: 'CHECK_ID;STATUS\na;FAIL\nb;FAIL;extra\n',
    headers: { 'content-type': 'text/csv' },
  });
  t.match(csvLine.body.error, { code: 'scan_unreadable', details: { format: 'prowler-csv', line: 3 } });

  const nothing = await call(service, 'POST', '/v1/findings/import', { key: pro, rawBody: '{"hello":"world"}' });
  t.equal(nothing.body.error.code, 'scan_unreadable');
  t.equal(nothing.body.error.details.format, null);
  t.ok(nothing.body.error.details.formats_considered.includes('kube-bench'), 'auto says what it considered');

  const unknownFormat = await call(service, 'POST', '/v1/findings/import?format=openvas', { key: pro, rawBody: '{}' });
  t.match(unknownFormat.body.error, { code: 'invalid_parameter', details: { parameter: 'format' } });

  const image = await call(service, 'POST', '/v1/findings/import', { key: pro, rawBody: '<xml/>', headers: { 'content-type': 'image/png' } });
  t.equal(image.status, 415);
  t.ok(image.body.error.details.accepted.includes('text/csv'));
  t.ok(image.body.error.details.accepted.includes('application/xml'), 'the readers table names XML for Nessus');

  const mismatch = await call(service, 'POST', '/v1/findings/import?format=trivy', {
    key: pro,
    rawBody: fixture('kics.json'),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(mismatch.status, 400, 'a KICS file named trivy is refused, not read as 0 results');
  t.match(mismatch.body.error, { code: 'scan_unreadable', details: { format: 'trivy', format_requested: 'trivy', found: 'kics', pointer: '' } });
  t.match(mismatch.body.error.message, /KICS JSON file \(format=kics\)/);

  const community = await service.key('community');
  const denied = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA', { key: community, rawBody: fixture('prowler.csv') });
  t.equal(denied.body.error.code, 'GAP_TIER_REQUIRED');

  const noFrameworks = await call(service, 'POST', '/v1/gap-analysis/import', { key: pro, rawBody: fixture('prowler.csv') });
  t.match(noFrameworks.body.error, { code: 'invalid_parameter', details: { parameter: 'frameworks' } });

  const tooMany = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA', {
    key: pro,
    rawBody: bigProwlerCsv(150),
    headers: { 'content-type': 'text/csv' },
  });
  t.match(
    tooMany.body.error,
    { code: 'GAP_TOO_MANY_FINDINGS', details: { count: 150, limit: 100, tier: 'pro' } },
    'the tier limit counts findings after conversion',
  );

  const unknownFramework = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=NOPE', { key: pro, rawBody: fixture('prowler.csv') });
  t.equal(unknownFramework.body.error.code, 'GAP_FRAMEWORK_NOT_FOUND');
});

t.test('XML over HTTP: a Nessus file as application/xml; a DTD is refused', async (t) => {
  const key = await service.key('pro');
  const res = await call(service, 'POST', '/v1/findings/import', { key, rawBody: fixture('scan.nessus'), headers: { 'content-type': 'application/xml' } });
  t.equal(res.status, 200, res.text.slice(0, 300));
  t.same([res.body.data.format, res.body.data.tool], ['nessus', 'nessus']);
  t.same(res.body.meta.formats_considered, ['nessus']);
  t.match(res.body.data.summary, { results: 3, failed: 2, other: 1 });
  const dtd = await call(service, 'POST', '/v1/findings/import?format=nessus', {
    key,
    rawBody: '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<NessusClientData_v2>&e;</NessusClientData_v2>',
    headers: { 'content-type': 'text/xml' },
  });
  t.equal(dtd.status, 400);
  t.match(dtd.body.error, { code: 'scan_unreadable', details: { format: 'nessus', line: 2 } });
});

t.test('results no signal recognises are counted and named: summary, meta.import, PDF and XLSX', async (t) => {
  const key = await service.key('teams');
  // KICS: the secret query resolves through its CWE, the versioning query (a UUID, no CWE) does not.
  const res = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=SOC2', {
    key,
    rawBody: fixture('kics.json'),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(res.status, 200, res.text.slice(0, 300));
  const message = '1 of 2 results were not recognised: 568a4d22-3517-44a6-a7ad-6a7eed88722c';
  const { findings } = res.body.data.summary;
  const converted = await call(service, 'POST', '/v1/findings/import', { key, rawBody: fixture('kics.json'), headers: { 'content-type': 'application/json' } });
  const created = await call(service, 'POST', '/v1/gap-analysis', {
    key,
    body: { frameworks: ['SOC2'], findings: converted.body.data.findings, options: { include_resolved: true } },
  });
  t.equal(
    findings.unmapped,
    created.body.data.summary.findings.unmapped + 1,
    'the unrecognised result counts as unmapped, beside findings whose signal reaches no control',
  );
  t.same(findings.not_recognised, { results: 1, of: 2, rule_ids: ['568a4d22-3517-44a6-a7ad-6a7eed88722c'], more: 0, message });
  t.equal(res.body.meta.import.not_recognised.message, message);

  // Every result unrecognised: the summary does not say 0.
  const none = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=SOC2', {
    key,
    rawBody: fixture('snyk-iac.json'),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(none.status, 200, none.text.slice(0, 300));
  t.equal(none.body.data.summary.findings.submitted, 0);
  t.equal(none.body.data.summary.findings.unmapped, 2);
  t.equal(none.body.data.summary.findings.not_recognised.message, '2 of 2 results were not recognised: SNYK-CC-TF-124, SNYK-CC-TF-45');

  // Every result recognised: no such member.
  const all = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=SOC2', {
    key,
    rawBody: fixture('prowler.csv'),
    headers: { 'content-type': 'text/csv' },
  });
  t.equal(all.body.data.summary.findings.not_recognised, undefined);

  const exported = async (format: 'pdf' | 'xlsx') => {
    const response = await fetch(`${service.url}/v1/gap-analysis/${res.body.data.id}/export?format=${format}`, { headers: { authorization: `Bearer ${key}` } });
    t.equal(response.status, 200, `${format} exported`);
    return Buffer.from(await response.arrayBuffer());
  };
  const text = (await pdfToText(await exported('pdf'))).replace(/\s+/g, ' ');
  t.ok(text.includes(message), 'the PDF says it');
  const workbook = await readWorkbook(await exported('xlsx'));
  const cells: string[] = [];
  workbook.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((cell) => cells.push(String(cell.value)))));
  t.ok(cells.includes(message), 'the XLSX says it');
});
