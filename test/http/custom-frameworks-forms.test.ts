/**
 * The input forms of custom frameworks over a real socket: an OSCAL catalog of over 300 controls
 * in the shape of NIST's, CSV and XLSX spreadsheets of 100 rows with a deliberate bad row
 * (refused with its row, column and reason, nothing kept), the downloadable templates, the
 * coverage report and the limits (docs/custom-frameworks.md, docs/limits.md).
 */
import t, { type Test } from 'tap';
import { startTestService, call, type CallResult } from '../helpers/service.js';
import { finding, testRegistry } from '../helpers/findings.js';
import { readWorkbook } from '../export/read-back.js';
import { INLINE_FRAMEWORK_MAX_BYTES } from '../../src/custom-frameworks/read-task.js';
import { mappedSignalIds, oscalCatalog, sampleFramework, spreadsheetRows, toCsv, toXlsx } from '../custom-frameworks/fixtures.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const service = await startTestService();
t.teardown(() => service.close());
await service.services.pool.ready;
const key = await service.key('enterprise', 'forms');

const send = (method: string, path: string, body: string | Buffer, contentType: string) =>
  call(service, method, path, { key, rawBody: body, headers: { 'content-type': contentType } });
const get = (path: string) => call(service, 'GET', path, { key });

function expectInvalid(t: Test, res: CallResult, label: string): any {
  t.equal(res.status, 400, `${label}: 400${res.status === 400 ? '' : ` (${res.text.slice(0, 300)})`}`);
  t.equal(res.body?.error?.code, 'framework_invalid', `${label}: framework_invalid`);
  return res.body?.error?.details ?? {};
}

const builtIn = (() => {
  const control = testRegistry()
    .controls('SOC2')
    .find((c) => c.mapped_signals.length > 0)!;
  return { framework: 'SOC2', control_id: control.id };
})();
const signals = mappedSignalIds(7);

t.test('an OSCAL catalog of over 300 controls, in the shape of NIST SP 800-53', async (t) => {
  const { catalog, expected } = oscalCatalog(20, { signals, correspondsTo: `${builtIn.framework}:${builtIn.control_id}` });
  t.ok(expected.length >= 300, `${expected.length} controls`);
  const body = JSON.stringify(catalog);
  t.ok(body.length > INLINE_FRAMEWORK_MAX_BYTES, `${body.length} bytes: read on a worker thread`);

  const noCode = await send('POST', '/v1/frameworks', body, 'application/json');
  t.match(expectInvalid(t, noCode, 'no code in the file or the query'), { format: 'oscal', reason: /code is required/ });
  const conflicting = await send('POST', '/v1/frameworks?code=ACME-800-53&version=9', body, 'application/json');
  t.match(expectInvalid(t, conflicting, "a version unlike the file's"), { pointer: '/catalog/metadata/version' });

  const created = await send('POST', '/v1/frameworks?code=acme-800-53', body, 'application/json');
  t.equal(created.status, 200, created.text.slice(0, 300));
  const framework = created.body.data;
  t.match(framework, {
    code: 'ACME-800-53',
    name: 'ACME Catalog of Security Controls',
    version: '5.1.1',
    source_format: 'oscal',
    control_count: expected.length,
    revision: 1,
  });
  t.same(
    framework.controls.map((c: any) => c.id),
    expected.map((c) => c.id),
    'every control and enhancement, in catalog order, withdrawn ones left out',
  );
  t.same(framework.control_categories, [
    'Access Control',
    'Audit and Accountability',
    'Configuration Management',
    'Identification and Authentication',
    'System and Communications Protection',
    'System and Information Integrity',
  ]);
  const ac1 = framework.controls[0];
  t.equal(ac1.id, 'AC-1', 'the label prop is the id');
  t.equal(ac1.category, 'Access Control', 'the group title is the category');
  t.equal(
    ac1.description,
    'a. Develop a policy for [Assignment: organization-defined personnel or roles] at the [Selection (one or more): organization-level; system-level];\nb. Review the policy annually.',
    'the statement with its items and parameters',
  );
  t.equal(ac1.guidance, 'Guidance for AC-1.');
  t.same(ac1.evidence, ['a policy is developed;', 'the policy is reviewed.'], 'the assessment objective items');
  t.same(ac1.signals, [{ signal_id: signals[0], relationship: 'primary', confidence: 0.85, rationale: '' }], 'a csr-signal prop');
  t.same(ac1.corresponds_to, [{ ...builtIn, relationship: 'equal' }], 'a csr-corresponds-to prop');
  t.match(
    framework.controls.find((c: any) => c.id === 'AC-1(2)'),
    { title: 'Access Control control 1 | Enhancement 2', description: 'Strengthen AC-1 with measure 2.' },
  );
  t.notOk(
    framework.controls.some((c: any) => c.id === 'AC-10' || c.id === 'AC-10(1)'),
    'withdrawn',
  );

  // 500 findings against 10 registry frameworks and this one (the issue's bench scenario, here for correctness).
  const ten = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP'];
  const many = mappedSignalIds(500).map((signal, i) => finding(`f-${i}`, signal, i % 4 ? 'open' : 'resolved'));
  const analysis = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: [...ten, 'ACME-800-53'], findings: many } });
  t.equal(analysis.status, 200, analysis.text.slice(0, 200));
  const custom = analysis.body.data.by_framework['ACME-800-53'];
  t.match(custom, { custom: true, revision: 1, posture: { controls_total: expected.length } });
  t.ok(custom.gaps.length > 0, `${custom.gaps.length} gaps in the catalog's controls`);
  t.comment(`Server-Timing: ${analysis.headers.get('server-timing')}`);

  const coverage = await get('/v1/frameworks/ACME-800-53/coverage');
  t.equal(coverage.status, 200);
  const { summary, controls } = coverage.body.data;
  const withSignal = expected.filter((c) => !c.id.includes('(')).length;
  t.match(
    summary,
    { controls_total: expected.length, assessable: withSignal, unassessable: expected.length - withSignal, below_default_confidence: 0 },
    'base controls carry a signal, enhancements none',
  );
  t.equal(summary.coverage, Math.round((1000 * withSignal) / expected.length) / 1000);
  t.match(controls[0], { id: 'AC-1', status: 'assessable', direct_signals: 1 });
  t.ok(controls[0].inherited_signals > 0, "AC-1 also inherits the SOC 2 control's signals");
  t.match(controls[1], { id: 'AC-1(1)', status: 'unassessable', direct_signals: 0, inherited_signals: 0, scanner_rules: 0 });

  const badControl = structuredClone(catalog);
  delete (badControl.catalog.groups[1].controls[3] as { title?: string }).title;
  const refused = await send('POST', '/v1/frameworks?code=BAD-OSCAL', JSON.stringify(badControl), 'application/json');
  t.match(expectInvalid(t, refused, 'a control without a title'), { format: 'oscal', pointer: '/catalog/groups/1/controls/3/title', control_id: 'AU-4' });
  t.equal((await get('/v1/frameworks/BAD-OSCAL')).status, 404, 'nothing kept');
});

t.test('a CSV spreadsheet of 100 rows with a bad row', async (t) => {
  const rows = spreadsheetRows(100, signals, builtIn);
  const bad = rows.map((row) => [...row]);
  // Row 58 of the spreadsheet (the header is row 1): a signal the registry does not have.
  bad[57][7] = 'CSR-NOPE-NOPE-999 primary';
  const refused = await send('POST', '/v1/frameworks?code=ISP&name=Internal%20policy&version=1', toCsv(bad), 'text/csv');
  const details = expectInvalid(t, refused, 'the bad row');
  t.match(details, {
    format: 'csv',
    row: 58,
    column: 'signals',
    column_letter: 'H',
    control_id: 'ISP-057',
    reason: /CSR-NOPE-NOPE-999 is not in the registry/,
  });
  t.match(refused.body.error.message, /row 58, column signals \(H\)/);
  t.equal((await get('/v1/frameworks/ISP')).status, 404, 'nothing half-created is kept');
  t.notOk((await get('/v1/frameworks')).body.data.some((f: any) => f.code === 'ISP'));

  const more: Array<[string, (rows: string[][]) => void, Record<string, unknown>]> = [
    ['an empty title', (r) => (r[10][1] = ''), { row: 11, column: 'title', column_letter: 'B' }],
    ['a relationship missing', (r) => (r[21][8] = `${builtIn.framework}:${builtIn.control_id}`), { row: 22, column: 'corresponds_to', column_letter: 'I' }],
    ['a confidence out of range', (r) => (r[30][7] = `${signals[0]} primary 1.7`), { row: 31, column: 'signals' }],
    ['a duplicate control id', (r) => (r[40][0] = 'ISP-001'), { row: 41, column: 'control_id', column_letter: 'A' }],
    ['an unknown built-in control', (r) => (r[50][8] = 'SOC2:ZZ9.9 equal'), { row: 51, column: 'corresponds_to' }],
    ['an unknown column', (r) => (r[0][2] = 'descripton'), { row: 1, column: 'descripton', column_letter: 'C' }],
    ['a title over 500 characters', (r) => (r[60][1] = 'x'.repeat(501)), { row: 61, column: 'title' }],
  ];
  for (const [label, spoil, where] of more) {
    const spoiled = rows.map((row) => [...row]);
    spoil(spoiled);
    t.match(
      expectInvalid(t, await send('POST', '/v1/frameworks?code=ISP&name=P&version=1', toCsv(spoiled), 'text/csv'), label),
      { format: 'csv', ...where },
      label,
    );
  }

  const created = await send('POST', '/v1/frameworks?code=ISP&name=Internal%20policy&version=1', toCsv(rows), 'text/csv; charset=utf-8');
  t.equal(created.status, 200, created.text.slice(0, 300));
  const framework = created.body.data;
  t.match(framework, { code: 'ISP', name: 'Internal policy', version: '1', source_format: 'csv', control_count: 100 });
  t.same(
    framework.controls[0],
    {
      id: 'ISP-001',
      title: 'Control 1, "quoted"',
      description: 'Line one\nline two of 1',
      category: 'Access',
      level: null,
      guidance: 'Do it well',
      evidence: ['Policy', 'Screenshot'],
      signals: [{ signal_id: signals[0], relationship: 'primary', confidence: 0.8, rationale: '' }],
      corresponds_to: [{ ...builtIn, relationship: 'subset_of' }],
    },
    'quoted cells, line breaks, list cells and defaults',
  );
  t.match(framework.controls[1], { level: 'Moderate', signals: [{ signal_id: signals[1], relationship: 'supporting', confidence: 0.75 }], corresponds_to: [] });

  // A new version from a spreadsheet: the code from the path, the version from the query.
  const next = await send('PUT', '/v1/frameworks/ISP?version=2', toCsv(rows.slice(0, 51)), 'text/csv');
  t.equal(next.status, 200, next.text.slice(0, 200));
  t.match(next.body.data, { revision: 2, version: '2', control_count: 50, name: 'Internal policy' });
  const missingVersion = await send('PUT', '/v1/frameworks/ISP', toCsv(rows), 'text/csv');
  t.match(expectInvalid(t, missingVersion, 'a PUT of a file without a version'), { reason: /version is required/ });
});

t.test('an XLSX spreadsheet of 100 rows with a bad row', async (t) => {
  const rows = spreadsheetRows(100, signals, builtIn);
  const bad = rows.map((row) => [...row]);
  bad[73][8] = 'SOC2:ZZ9.9 equal';
  const refused = await send('POST', '/v1/frameworks?code=ISP-X&name=Policy&version=1', await toXlsx(bad), XLSX);
  t.match(expectInvalid(t, refused, 'the bad row'), {
    format: 'xlsx',
    row: 74,
    column: 'corresponds_to',
    column_letter: 'I',
    reason: /SOC2 has no control ZZ9.9/,
  });
  t.equal((await get('/v1/frameworks/ISP-X')).status, 404, 'nothing kept');

  const created = await send('POST', '/v1/frameworks?code=ISP-X&name=Policy&version=1', await toXlsx(rows), XLSX);
  t.equal(created.status, 200, created.text.slice(0, 300));
  t.match(created.body.data, { code: 'ISP-X', source_format: 'xlsx', control_count: 100 });
  t.match(created.body.data.controls[0], { id: 'ISP-001', title: 'Control 1, "quoted"', description: 'Line one\nline two of 1' });
  const octets = await send('POST', '/v1/frameworks?code=ISP-Y&name=Policy&version=1', await toXlsx(rows, 'Sheet1'), 'application/octet-stream');
  t.equal(octets.status, 200, 'an octet stream that is a zip reads as XLSX (first sheet when none is called Controls)');
  const notXlsx = await send('POST', '/v1/frameworks?code=ISP-Z&name=Policy&version=1', Buffer.from('PK\u0003\u0004 not a zip'), XLSX);
  t.match(expectInvalid(t, notXlsx, 'a broken workbook'), { format: 'xlsx', reason: /cannot be read as XLSX/ });
});

t.test('the templates download and upload as they are', async (t) => {
  const csv = await get('/v1/frameworks/template');
  t.equal(csv.status, 200);
  t.match(csv.headers.get('content-type'), /^text\/csv/);
  t.match(csv.headers.get('content-disposition'), /custom-framework-template\.csv/);
  t.equal(csv.text.split('\r\n')[0], 'control_id,title,description,category,level,guidance,evidence,signals,corresponds_to');
  const fromCsv = await send('POST', '/v1/frameworks?code=TPL-CSV&name=Template&version=1', csv.text, 'text/csv');
  t.equal(fromCsv.status, 200, fromCsv.text.slice(0, 300));
  t.equal(fromCsv.body.data.controls[0].signals.length, 1, 'the example names a real signal');

  const xlsx = await call(service, 'GET', '/v1/frameworks/template?format=xlsx', { key });
  t.equal(xlsx.headers.get('content-type'), XLSX);
  const bytes = Buffer.from(
    await (await fetch(`${service.url}/v1/frameworks/template?format=xlsx`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer(),
  );
  const workbook = await readWorkbook(bytes);
  t.same(
    workbook.worksheets.map((s) => s.name),
    ['Controls', 'Read me'],
  );
  t.equal(workbook.getWorksheet('Read me')!.rowCount >= 10, true, 'a row per column');
  const fromXlsx = await send('POST', '/v1/frameworks?code=TPL-XLSX&name=Template&version=1', bytes, XLSX);
  t.equal(fromXlsx.status, 200, fromXlsx.text.slice(0, 300));
});

t.test('coverage of the sample framework', async (t) => {
  const sample = sampleFramework('COVERED');
  t.equal((await call(service, 'POST', '/v1/frameworks', { key, body: sample.body })).status, 200);
  const coverage = await get('/v1/frameworks/covered/coverage');
  t.equal(coverage.status, 200);
  const byId = Object.fromEntries(coverage.body.data.controls.map((c: any) => [c.id, c]));
  t.match(byId['AC-1'], { status: 'assessable', direct_signals: 1, inherited_signals: 0, signals_at_default_confidence: 1 });
  t.match(byId['AC-2'], { status: 'assessable', direct_signals: 0 });
  t.ok(byId['AC-2'].inherited_signals >= 1);
  t.match(byId['AC-3'], { status: 'below_default_confidence', signals_at_default_confidence: 0, scanner_rules: 0 }, 'intersects_with only: capped under 0.7');
  t.match(byId['AC-4'], { status: 'unassessable', direct_signals: 0, inherited_signals: 0 });
  t.match(coverage.body.data.summary, { controls_total: 4, assessable: 2, below_default_confidence: 1, unassessable: 1, coverage: 0.5 });
  // Scanner rules: the tool mappings of the direct signal's finding templates.
  const registry = testRegistry();
  const rules = new Set(
    registry
      .templatesOfSignal(sample.direct.signal_id)
      .flatMap((template) =>
        registry.toolMappingIds({ finding_template_id: template.id }).map((id) => `${registry.toolMapping(id)!.tool_id}:${registry.toolMapping(id)!.rule_id}`),
      ),
  );
  t.equal(byId['AC-1'].scanner_rules, rules.size, `AC-1: ${rules.size} scanner rules report its signal`);
  t.equal((await get('/v1/frameworks/HIPAA/coverage')).status, 200, "a registry framework's coverage is the tools' plan (docs/posture.md)");
});

t.test('limits: controls per framework and frameworks per account', async (t) => {
  const controls = Array.from({ length: 2001 }, (_, i) => ({ id: `C-${i}`, title: `Control ${i}` }));
  const tooLarge = await call(service, 'POST', '/v1/frameworks', { key, body: { code: 'HUGE', name: 'Huge', version: '1', controls } });
  t.match(expectInvalid(t, tooLarge, '2,001 controls'), { pointer: '/controls', limit: 2000 });
  const rows = [['control_id', 'title'], ...controls.map((c) => [c.id, c.title])];
  const tooLargeCsv = await send('POST', '/v1/frameworks?code=HUGE&name=Huge&version=1', toCsv(rows), 'text/csv');
  t.match(expectInvalid(t, tooLargeCsv, '2,001 rows'), { row: 2002, limit: 2000 });

  const held = (await get('/v1/frameworks')).body.data.filter((f: any) => f.custom).length;
  for (let i = held; i < 50; i++) {
    const res = await call(service, 'POST', '/v1/frameworks', {
      key,
      body: { code: `FILL-${i}`, name: 'Filler', version: '1', controls: [{ id: 'X', title: 'x' }] },
    });
    if (res.status !== 200) t.fail(`filler ${i}: ${res.text.slice(0, 200)}`);
  }
  const over = await call(service, 'POST', '/v1/frameworks', {
    key,
    body: { code: 'ONE-MORE', name: 'One more', version: '1', controls: [{ id: 'X', title: 'x' }] },
  });
  t.equal(over.status, 409);
  t.same(over.body.error.details, { count: 50, limit: 50 });
  t.equal(over.body.error.code, 'framework_limit_reached');
  t.equal((await call(service, 'DELETE', '/v1/frameworks/FILL-49', { key })).status, 200);
  t.equal(
    (await call(service, 'POST', '/v1/frameworks', { key, body: { code: 'ONE-MORE', name: 'One more', version: '1', controls: [{ id: 'X', title: 'x' }] } }))
      .status,
    200,
    'room again after a delete',
  );
});
