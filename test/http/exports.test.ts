/**
 * The export routes over a real socket: tiers per format and variant, 404 / 410, parameter errors,
 * file headers. A 10,000-finding analysis streamed to a slow reader is in exports-large.test.ts
 * (full lane).
 */
import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';
import { createAnalysis, exportFile, mixedFindings } from '../export/fixture.js';
import { parseCsv } from '../export/read-back.js';

const ALL = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA'];
const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-daily-limit', 'x-ratelimit-daily-remaining'];
const MEDIA = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  pdf: 'application/pdf',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;
const DAY_MS = 86_400_000;

t.test('tiers, errors and headers', async (t) => {
  let clock = new Date('2026-11-21T12:00:00Z');
  const service = await startTestService({ now: () => clock });
  t.teardown(() => service.close());
  const community = await service.key('community');
  const pro = await service.key('pro');
  const teams = await service.key('teams', 'teams-owner');
  const otherTeams = await service.key('teams', 'someone-else');

  const [a, b] = primarySignals('HIPAA', 2);
  const proAnalysis = await createAnalysis(service, pro, {
    frameworks: ['HIPAA'],
    findings: [finding('p-1', a.signal_id, 'open'), finding('p-2', b.signal_id, 'false_positive')],
  });
  const teamsAnalysis = await createAnalysis(service, teams, { frameworks: ['HIPAA', 'SOC2'], findings: mixedFindings(['HIPAA', 'SOC2']) });
  const exportPath = (id: string) => `/v1/gap-analysis/${id}/export`;

  await t.test('POST: json and csv need Pro, pdf and xlsx Teams', async (t) => {
    const denied = await call(service, 'POST', exportPath(proAnalysis.id), { key: community, body: { format: 'json' } });
    t.equal(denied.status, 403);
    t.same(
      denied.body.error,
      { code: 'GAP_TIER_REQUIRED', message: denied.body.error.message, details: { required_tier: 'pro', current_tier: 'community' } },
      'Community has no exports',
    );
    for (const format of ['json', 'csv'] as const) {
      const ok = await exportFile(service, pro, proAnalysis.id, { format });
      t.equal(ok.status, 200, `Pro exports ${format}`);
      t.equal(ok.headers.get('content-type'), MEDIA[format]);
    }
    for (const format of ['pdf', 'xlsx'] as const) {
      const refused = await call(service, 'POST', exportPath(proAnalysis.id), { key: pro, body: { format } });
      t.equal(refused.status, 403, `Pro cannot export ${format}`);
      t.equal(refused.body.error.code, 'GAP_TIER_REQUIRED');
      t.same(refused.body.error.details, { required_tier: 'teams', current_tier: 'pro', format }, 'details name the format');
      t.match(refused.body.error.message, new RegExp(`${format} export requires the teams tier`));
      for (const header of RATE_HEADERS) t.ok(refused.headers.get(header), `403 carries ${header}`);
    }
  });

  await t.test('GET needs Teams; every format answers a file with its headers', async (t) => {
    const refused = await call(service, 'GET', exportPath(proAnalysis.id), { key: pro });
    t.equal(refused.status, 403);
    t.same(refused.body.error.details, { required_tier: 'teams', current_tier: 'pro' });

    const id = teamsAnalysis.id;
    for (const format of ['json', 'csv', 'pdf', 'xlsx'] as const) {
      const response = await fetch(`${service.url}${exportPath(id)}?format=${format}`, { headers: { authorization: `Bearer ${teams}` } });
      const bytes = Buffer.from(await response.arrayBuffer());
      t.equal(response.status, 200, `${format} exported`);
      t.equal(response.headers.get('content-type'), MEDIA[format], `${format} content type`);
      t.equal(response.headers.get('content-disposition'), `attachment; filename="${id}.${format}"`, `${format} is an attachment named after the analysis`);
      for (const header of RATE_HEADERS) t.ok(response.headers.get(header), `${format} carries ${header}`);
      t.ok(bytes.length > 0);
      if (format === 'json') t.notOk('error' in JSON.parse(bytes.toString()), 'no error envelope');
      if (format === 'pdf') t.equal(bytes.subarray(0, 5).toString(), '%PDF-', 'the file itself, no JSON envelope');
      if (format === 'xlsx') t.equal(bytes.subarray(0, 2).toString(), 'PK', 'a zip container');
    }
    const defaulted = await call(service, 'GET', exportPath(id), { key: teams });
    t.equal(defaulted.headers.get('content-type'), MEDIA.json, 'format defaults to json');
    t.equal(defaulted.body.export.analysis_id, id);
    t.same(defaulted.body.export.filters, { frameworks: null, include_remediation: true, include_evidence: false });

    const filtered = await call(service, 'GET', `${exportPath(id)}?format=csv&include_evidence=true&include_remediation=false&frameworks=soc2`, { key: teams });
    const [header, ...rows] = await parseCsv(filtered.text);
    t.equal(header.at(-1), 'evidence_requirements', 'include_evidence adds the column');
    t.notOk(header.includes('remediation_guidance'), 'include_remediation=false drops the columns');
    t.ok(rows.length > 0 && rows.every((row) => row[0] === 'SOC2'), 'the framework filter applies');
  });

  await t.test('parameter errors', async (t) => {
    const id = teamsAnalysis.id;
    const post = (body: unknown) => call(service, 'POST', exportPath(id), { key: teams, body });

    const badFormat = await post({ format: 'docx' });
    t.equal(badFormat.status, 400);
    t.match(badFormat.body.error, { code: 'invalid_parameter', details: { parameter: 'format', value: 'docx', valid_values: ['json', 'csv', 'pdf', 'xlsx'] } });
    const badQuery = await call(service, 'GET', `${exportPath(id)}?format=DOCX`, { key: teams });
    t.equal(badQuery.status, 400);
    t.same(badQuery.body.error.details.valid_values, ['json', 'csv', 'pdf', 'xlsx'], 'GET too');

    const unknownCode = await post({ format: 'csv', options: { frameworks: ['HIPAA', 'NOPE'] } });
    t.equal(unknownCode.status, 400);
    t.match(unknownCode.body.error.details, { parameter: 'options.frameworks', value: 'NOPE' });
    t.same(unknownCode.body.error.details.valid_values, ALL, 'valid_values lists the gap-analysis codes');

    const notInAnalysis = await post({ format: 'csv', options: { frameworks: ['CCPA'] } });
    t.equal(notInAnalysis.status, 400);
    t.match(notInAnalysis.body.error.details, { parameter: 'options.frameworks', value: 'CCPA', valid_values: ['HIPAA', 'SOC2'] });
    t.match(notInAnalysis.body.error.message, /not part of analysis/);

    const typo = await post({ format: 'csv', options: { include_evidences: true } });
    t.equal(typo.status, 400, 'unknown option field');
    t.equal(typo.body.error.details.parameter, 'options.include_evidences');

    const notBoolean = await call(service, 'GET', `${exportPath(id)}?include_evidence=maybe`, { key: teams });
    t.equal(notBoolean.status, 400);
    t.equal(notBoolean.body.error.details.parameter, 'include_evidence');
  });

  await t.test('unknown, foreign and expired analyses', async (t) => {
    const unknown = await call(service, 'POST', exportPath('GAP-2026-11-21-ABCDEFGHJK'), { key: teams, body: { format: 'csv' } });
    t.equal(unknown.status, 404);
    t.same(unknown.body.error.details, { id: 'GAP-2026-11-21-ABCDEFGHJK' });
    t.equal(unknown.body.error.code, 'GAP_NOT_FOUND');
    const foreign = await call(service, 'GET', `${exportPath(teamsAnalysis.id)}?format=pdf`, { key: otherTeams });
    t.equal(foreign.status, 404, "another account's analysis is not found");
    t.equal(foreign.body.error.code, 'GAP_NOT_FOUND');

    // Pro keeps analyses 30 days, Teams 90.
    clock = new Date(clock.getTime() + 31 * DAY_MS);
    const expired = await call(service, 'POST', exportPath(proAnalysis.id), { key: pro, body: { format: 'json' } });
    t.equal(expired.status, 410);
    t.equal(expired.body.error.code, 'GAP_EXPIRED');
    t.equal(expired.body.error.details.id, proAnalysis.id);
    const stillThere = await exportFile(service, teams, teamsAnalysis.id, { format: 'json' });
    t.equal(stillThere.status, 200, 'a Teams analysis is kept longer');
  });
});
