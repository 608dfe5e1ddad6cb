/**
 * The row model and the streamed writers as pure functions, over a result produced by the same
 * analyze() the create route runs (no server needed).
 */
import t from 'tap';
import { analyze } from '../../src/gap/analyze.js';
import { STREAM_CHUNK_BYTES } from '../../src/export/chunks.js';
import { csvExport } from '../../src/export/csv.js';
import { jsonExport } from '../../src/export/json.js';
import { controlRows, exportHeader, exportView, gapsByUrgency, neutralizeFormula, parseStoredAnalysis, registryEvidence } from '../../src/export/model.js';
import { pdfText } from '../../src/export/pdf/layout.js';
import { testRegistry } from '../helpers/findings.js';
import { HOSTILE_IDS, mixedFindings } from './fixture.js';
import { collect, parseCsv } from './read-back.js';

const FRAMEWORKS = ['HIPAA', 'SOC2', 'PCIDSS'];

function storedAnalysis(options: Record<string, unknown> = {}): Buffer {
  const body = Buffer.from(JSON.stringify({ frameworks: FRAMEWORKS, findings: mixedFindings(FRAMEWORKS), options }));
  const output = analyze(testRegistry(), { body, tier: 'teams', id: 'GAP-2026-11-21-TESTTESTTE', createdAt: '2026-11-21T12:00:00.000Z' });
  if (!output.ok) throw new Error(output.error.message);
  return Buffer.from(output.payload);
}

const defaults = { include_remediation: true, include_evidence: false };

t.test('formula neutralisation', async (t) => {
  for (const hostile of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', HOSTILE_IDS.hyperlink])
    t.equal(neutralizeFormula(hostile), `'${hostile}`, JSON.stringify(hostile));
  const moreHostile = [
    '\n=1+1',
    '\nplain',
    '\r\n=1',
    ' =1+1',
    '   +1',
    ' -1',
    '  @SUM(A1)',
    '\u00a0=1',
    '\u3000=1',
    '＝1+1',
    '＋1',
    '－1',
    '＠SUM(A1)',
    '  ＝1',
    '\t=1',
  ];
  for (const hostile of moreHostile) t.equal(neutralizeFormula(hostile), `'${hostile}`, JSON.stringify(hostile));
  for (const plain of ['abc', '', '1-2', 'a=b', "'quoted", 'CSR-GEN-001', ' a=b', '  ', 'a\n=b', '1 = 1', 'a＝b', ' 1-2'])
    t.equal(neutralizeFormula(plain), plain, JSON.stringify(plain));
});

t.test('text for the pdf fonts', async (t) => {
  t.equal(pdfText('score ≥ 90 → compliant'), 'score >= 90 -> compliant');
  t.equal(pdfText('Zürich “quoted” – €5 • item'), 'Zürich “quoted” – €5 • item', 'Latin-1 and cp1252 punctuation kept');
  t.equal(pdfText('Łódź Čapek'), 'Lódz Capek', 'letters outside Latin-1 fall back to the base letter');
  t.equal(pdfText('日本 Привет\u0007'), '日本 Привет', 'other scripts are kept for the embedded Unicode font, control characters go');
});

t.test('rows: one per assessed control, gaps first, options as columns', async (t) => {
  const stored = parseStoredAnalysis(storedAnalysis());
  const view = exportView(stored, defaults);
  const rows = [...controlRows(view)];
  const expected = FRAMEWORKS.reduce((sum, code) => sum + stored.data.by_framework[code].gaps.length + stored.data.by_framework[code].compliant.length, 0);
  t.equal(rows.length, expected);
  for (const code of FRAMEWORKS) {
    const statuses = rows.filter((r) => r.framework === code).map((r) => r.status);
    const firstCompliant = statuses.indexOf('compliant');
    t.ok(firstCompliant === -1 || statuses.slice(firstCompliant).every((s) => s === 'compliant'), `${code}: gaps come before compliant controls`);
  }
  t.ok(rows.some((r) => r.status === 'compliant') && rows.some((r) => r.status !== 'compliant'), 'the fixture has both gaps and compliant controls');
  const gap = rows.find((r) => r.status === 'non_compliant')!;
  t.match(gap.remediation, { priority: String, priority_rank: Number, effort: String, guidance: String, steps: Array });
  t.equal(rows.find((r) => r.status === 'compliant')!.remediation, null, 'a compliant control has no remediation');
  t.notOk('evidence' in gap, 'no evidence unless asked');
  t.ok(
    rows.some((r) => r.finding_ids.includes(HOSTILE_IDS.hyperlink)),
    'the row model keeps ids as written; writers escape',
  );

  const lean = [...controlRows(exportView(stored, { include_remediation: false, include_evidence: true }, registryEvidence(testRegistry())))];
  t.notOk(
    lean.some((r) => 'remediation' in r),
    'include_remediation=false drops remediation',
  );
  t.same(lean[0].evidence, testRegistry().control(lean[0].framework, lean[0].control_id)!.evidence, 'evidence from the registry lookup');
});

t.test('stored evidence wins over the registry lookup', async (t) => {
  const stored = parseStoredAnalysis(storedAnalysis({ include_evidence_requirements: true }));
  const rows = [...controlRows(exportView(stored, { include_remediation: true, include_evidence: true }, () => ['from the lookup']))];
  const gap = rows.find((r) => r.status !== 'compliant')!;
  const compliant = rows.find((r) => r.status === 'compliant')!;
  t.notSame(gap.evidence, ['from the lookup'], 'a gap uses its stored evidence_requirements');
  t.same(compliant.evidence, ['from the lookup'], 'a compliant control (never stored with evidence) uses the lookup');
});

t.test('a framework filter narrows and re-pools the summary', async (t) => {
  const stored = parseStoredAnalysis(storedAnalysis());
  const whole = exportView(stored, defaults);
  t.equal(whole.summary.score, stored.data.summary.posture_score, 'unfiltered: the stored summary');
  t.equal(whole.summary.posture, stored.data.summary.overall_posture);
  t.same(whole.summary.counts, stored.data.summary.controls_by_status);

  const soc2 = exportView(stored, { ...defaults, frameworks: ['SOC2'] });
  t.same(soc2.frameworks, ['SOC2']);
  t.equal(soc2.summary.score, stored.data.by_framework.SOC2.posture.score, 'one framework: its own score');
  t.equal(soc2.summary.posture, stored.data.by_framework.SOC2.posture.status);
  t.same(soc2.synergies, []);
  t.same(soc2.commonGaps, [], 'a common gap needs two selected frameworks');

  const pair = exportView(stored, { ...defaults, frameworks: ['PCIDSS', 'HIPAA'] });
  t.same(pair.frameworks, ['HIPAA', 'PCIDSS'], 'analysis order, whatever the filter order');
  t.ok(pair.synergies.every((s) => ['HIPAA', 'PCIDSS'].includes(s.primary_framework) && ['HIPAA', 'PCIDSS'].includes(s.synergy_with)));
  t.ok(pair.commonGaps.every((g) => g.affects_frameworks.filter((code) => code === 'HIPAA' || code === 'PCIDSS').length >= 2));
});

t.test('gaps by urgency: priority rank, then non-compliant first', async (t) => {
  const view = exportView(parseStoredAnalysis(storedAnalysis()), defaults);
  const ordered = gapsByUrgency(view);
  t.equal(
    ordered.length,
    view.frameworks.reduce((sum, code) => sum + view.data.by_framework[code].gaps.length, 0),
  );
  for (let i = 1; i < ordered.length; i++) {
    t.ok(ordered[i - 1].gap.remediation!.priority_rank <= ordered[i].gap.remediation!.priority_rank, `rank ${i}`);
  }
});

t.test('json: stored bytes pass through unparsed when the options change nothing', async (t) => {
  const payload = storedAnalysis();
  const header = exportHeader('json', 'GAP-2026-11-21-TESTTESTTE', 'acme', '2026-11-21T13:00:00.000Z', defaults);
  const chunks: Buffer[] = [];
  for await (const chunk of jsonExport(payload, header, defaults)) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  t.equal(bytes.toString(), `{"export":${JSON.stringify(header)},${payload.subarray(1).toString()}`, 'header + the stored bytes');
  t.ok(
    chunks.every((c) => c.length <= STREAM_CHUNK_BYTES * 2),
    'bounded chunks',
  );

  const filtered = JSON.parse((await collect(jsonExport(payload, header, { ...defaults, include_remediation: false, frameworks: ['HIPAA'] }))).toString());
  t.same(Object.keys(filtered.data.by_framework), ['HIPAA']);
  t.notOk(
    filtered.data.by_framework.HIPAA.gaps.some((g: { remediation?: unknown }) => g.remediation),
    'remediation dropped',
  );
  t.notOk(
    filtered.data.frameworks[0].gaps.some((g: { remediation?: unknown }) => g.remediation),
    'in both variants',
  );
});

t.test('csv: streamed in bounded chunks, parseable, escaped', async (t) => {
  const view = exportView(parseStoredAnalysis(storedAnalysis()), defaults);
  const chunks: Buffer[] = [];
  for await (const chunk of csvExport(view)) chunks.push(chunk);
  const longestRow = Math.max(
    ...Buffer.concat(chunks)
      .toString()
      .split('\r\n')
      .map((line) => Buffer.byteLength(line) + 2),
  );
  t.ok(
    chunks.every((c) => c.length < STREAM_CHUNK_BYTES + longestRow),
    'no chunk exceeds the target by more than a row',
  );
  const [header, ...rows] = await parseCsv(Buffer.concat(chunks).toString());
  t.equal(rows.length, [...controlRows(view)].length);
  t.ok(
    rows.some((row) => row[header.indexOf('finding_ids')] === `'${HOSTILE_IDS.sum}`),
    '+SUM neutralised',
  );

  // Stopping early (a client gone) ends the pipeline without an error.
  for await (const chunk of csvExport(view)) {
    t.ok(chunk.length > 0);
    break;
  }
});
