/**
 * One case suite over every export format: each file is parsed back (JSON.parse, fast-csv,
 * exceljs, pdf.js) into the same shape and checked against the stored analysis: frameworks,
 * every gap with its status, compliant controls, and the remediation / evidence options. Then
 * what is particular to each format: columns, escaping, sheets, pages.
 */
import t from 'tap';
import ExcelJS from 'exceljs';
import PDFDocument from 'pdfkit';
import { startTestService } from '../helpers/service.js';
import { testRegistry } from '../helpers/findings.js';
import { EXPORT_FORMATS, type ExportFormat } from '../../src/schemas/export.js';
import { STATUS_LABELS } from '../../src/export/model.js';
import { createAnalysis, exportFile, HOSTILE_IDS, mixedFindings } from './fixture.js';
import { firstPagePng, hasCommand, inkShare, parseCsv, pdfPageCount, pdfToText, readWorkbook, sheetRecords } from './read-back.js';

const FRAMEWORKS = ['HIPAA', 'SOC2', 'PCIDSS'];
const ACCOUNT = 'acme-compliance';

/** What every format must let a reader recover. `compliant` is undefined where the format lists gaps only (pdf). */
interface ReadBack {
  frameworks: string[];
  gaps: string[];
  compliant?: string[];
  remediation: boolean;
  evidence: boolean;
}

const key = (framework: string, control: string, status: string) => `${framework}|${control}|${status}`;
const labelToStatus = Object.fromEntries(Object.entries(STATUS_LABELS).map(([status, label]) => [label, status]));

const readers: Record<ExportFormat, (bytes: Buffer, frameworks: string[]) => Promise<ReadBack>> = {
  async json(bytes) {
    const { data } = JSON.parse(bytes.toString('utf8'));
    const frameworks = Object.keys(data.by_framework);
    const gaps = frameworks.flatMap((code) => data.by_framework[code].gaps);
    const compliant = frameworks.flatMap((code) => data.by_framework[code].compliant);
    return {
      frameworks,
      gaps: frameworks.flatMap((code) => data.by_framework[code].gaps.map((g: any) => key(code, g.control.id, g.status))),
      compliant: frameworks.flatMap((code) => data.by_framework[code].compliant.map((c: any) => key(code, c.control.id, c.status))),
      remediation: gaps.some((g: any) => g.remediation),
      evidence: [...gaps, ...compliant].some((g: any) => g.evidence_requirements),
    };
  },
  async csv(bytes) {
    const [header, ...rows] = await parseCsv(bytes.toString('utf8'));
    const col = (name: string) => header.indexOf(name);
    const records = rows.map((row) => ({ framework: row[col('framework')], control: row[col('control_id')], status: row[col('status')] }));
    return {
      frameworks: [...new Set(records.map((r) => r.framework))],
      gaps: records.filter((r) => r.status !== 'compliant').map((r) => key(r.framework, r.control, r.status)),
      compliant: records.filter((r) => r.status === 'compliant').map((r) => key(r.framework, r.control, r.status)),
      remediation: col('remediation_guidance') >= 0 && rows.some((row) => row[col('remediation_guidance')] !== ''),
      evidence: col('evidence_requirements') >= 0,
    };
  },
  async xlsx(bytes) {
    const workbook = await readWorkbook(bytes);
    const summary = workbook.getWorksheet('Summary')!;
    // The framework table is the autofilter's range; totals and details follow below it.
    const lastRow = Number(/:[A-Z]+(\d+)$/.exec(String(summary.autoFilter))?.[1]);
    const gaps = sheetRecords(workbook.getWorksheet('Gaps')!);
    const compliant = sheetRecords(workbook.getWorksheet('Compliant')!);
    return {
      frameworks: Array.from({ length: lastRow - 1 }, (_, i) => String(summary.getRow(i + 2).getCell(1).value)),
      gaps: gaps.map((row) => key(String(row.Framework), String(row['Control ID']), labelToStatus[String(row.Status)])),
      compliant: compliant.map((row) => key(String(row.Framework), String(row['Control ID']), 'compliant')),
      remediation: gaps.some((row) => row.Guidance),
      evidence: workbook.getWorksheet('Evidence') !== undefined,
    };
  },
  async pdf(bytes, frameworks) {
    const text = await pdfToText(bytes);
    const register = text.slice(text.lastIndexOf('Gap register'), text.lastIndexOf('Method and definitions'));
    const rowPattern = new RegExp(`^\\s*\\d+\\s+(${frameworks.join('|')})\\s.*\\s(${Object.values(STATUS_LABELS).join('|')})\\s`);
    const rows = register.split('\n').flatMap((line) => {
      const match = rowPattern.exec(line);
      return match ? [{ framework: match[1], line, status: labelToStatus[match[2]] }] : [];
    });
    return {
      // The register is in urgency order; frameworks are reported in the analysis's order like the other readers.
      frameworks: frameworks.filter((code) => rows.some((r) => r.framework === code)),
      // The register cuts long titles, never the framework, control id or status columns.
      gaps: rows.map((r) => key(r.framework, controlIn(r.line, r.framework), r.status)),
      remediation: text.includes('Priority gaps and remediation'),
      evidence: text.includes('EVIDENCE REQUIRED'),
    };
  },
};

/**
 * The control id of a register line: the longest id of the framework's registry controls that the
 * text after the framework column starts with (ids contain spaces, so columns cannot be split).
 */
function controlIn(line: string, framework: string): string {
  const after = `${line.slice(line.indexOf(framework) + framework.length).trimStart()} `;
  const ids = testRegistry()
    .controls(framework)
    .map((c) => c.id)
    .filter((id) => after.startsWith(`${id} `));
  return ids.sort((a, b) => b.length - a.length)[0] ?? '(none)';
}

t.test('every format reads back to the analysis', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const teams = await service.key('teams', ACCOUNT);
  const { id, result } = await createAnalysis(service, teams, { frameworks: FRAMEWORKS, findings: mixedFindings(FRAMEWORKS) });

  const expected = (frameworks: string[]) => ({
    gaps: frameworks.flatMap((code) => result.data.by_framework[code].gaps.map((g: any) => key(code, g.control.id, g.status))).sort(),
    compliant: frameworks.flatMap((code) => result.data.by_framework[code].compliant.map((c: any) => key(code, c.control.id, c.status))).sort(),
  });
  t.ok(
    expected(FRAMEWORKS).gaps.some((k) => k.endsWith('|non_compliant')),
    'the analysis has non-compliant gaps',
  );
  t.ok(
    expected(FRAMEWORKS).gaps.some((k) => k.endsWith('|partially_compliant')),
    'and partially compliant ones',
  );
  t.ok(expected(FRAMEWORKS).compliant.length > 0, 'and compliant controls');

  const cases = [
    { name: 'defaults', options: undefined, frameworks: FRAMEWORKS, remediation: true, evidence: false },
    {
      name: 'framework filter, evidence, no remediation',
      options: { frameworks: ['soc2', 'Hipaa'], include_remediation: false, include_evidence: true },
      frameworks: ['HIPAA', 'SOC2'],
      remediation: false,
      evidence: true,
    },
  ];
  for (const format of EXPORT_FORMATS) {
    for (const c of cases) {
      await t.test(`${format}: ${c.name}`, async (t) => {
        const response = await exportFile(service, teams, id, { format, ...(c.options && { options: c.options }) });
        t.equal(response.status, 200, response.status === 200 ? 'exported' : response.bytes.toString());
        const read = await readers[format](response.bytes, FRAMEWORKS);
        const want = expected(c.frameworks);
        t.same(read.frameworks, c.frameworks, 'the selected frameworks, in the analysis order');
        t.same([...read.gaps].sort(), want.gaps, 'every gap with its status, nothing else');
        if (read.compliant) t.same([...read.compliant].sort(), want.compliant, 'every compliant control');
        t.equal(read.remediation, c.remediation, `remediation ${c.remediation ? 'included' : 'left out'}`);
        t.equal(read.evidence, c.evidence, `evidence ${c.evidence ? 'included' : 'left out'}`);
      });
    }
  }

  await t.test('json: the stored result under an export header', async (t) => {
    const whole = JSON.parse((await exportFile(service, teams, id, { format: 'json' })).bytes.toString('utf8'));
    t.same(Object.keys(whole), ['export', 'data', 'meta']);
    t.match(whole.export, {
      format: 'json',
      format_version: '1.1.0',
      analysis_id: id,
      account: ACCOUNT,
      filters: { frameworks: null, include_remediation: true, include_evidence: false },
    });
    t.ok(Date.parse(whole.export.generated_at), 'generated_at is a timestamp');
    t.same({ data: whole.data, meta: whole.meta }, result, 'data and meta are exactly the stored result');

    const filtered = JSON.parse((await exportFile(service, teams, id, { format: 'json', options: { frameworks: ['HIPAA'] } })).bytes.toString('utf8'));
    const hipaa = result.data.by_framework.HIPAA.posture;
    t.same(filtered.export.filters.frameworks, ['HIPAA']);
    t.same(
      filtered.data.frameworks.map((f: any) => f.code),
      ['HIPAA'],
      'Variant A list filtered too',
    );
    t.equal(filtered.data.summary.posture_score, hipaa.score, 'summary pooled over the selection');
    t.equal(filtered.data.summary.overall_posture, hipaa.status);
    t.same(filtered.data.cross_framework.framework_synergies, [], 'no synergy within one framework');
    t.same(filtered.data.summary.findings, result.data.summary.findings, 'finding counts describe the input and stay');
  });

  await t.test('csv: columns, RFC 4180 and formula neutralisation', async (t) => {
    const plain = (await exportFile(service, teams, id, { format: 'csv' })).bytes.toString('utf8');
    const outsideQuotes = plain.replace(/"(?:[^"]|"")*"/g, '""');
    t.ok(plain.endsWith('\r\n') && !/[^\r]\n/.test(outsideQuotes), 'records end with CRLF (a line feed inside a quoted cell is data)');
    const [header, ...rows] = await parseCsv(plain);
    t.same(header, [
      'framework',
      'control_id',
      'control_title',
      'category',
      'status',
      'severity',
      'confidence',
      'signal_ids',
      'finding_ids',
      'resources',
      'remediation_priority',
      'remediation_priority_rank',
      'remediation_effort',
      'remediation_guidance',
      'remediation_steps',
    ]);
    t.equal(rows.length, expected(FRAMEWORKS).gaps.length + expected(FRAMEWORKS).compliant.length, 'one row per assessed control per framework');
    t.ok(
      rows.every((row) => row.length === header.length),
      'every row has every column',
    );
    const findingIds = rows.map((row) => row[header.indexOf('finding_ids')]);
    t.ok(findingIds.includes(`'${HOSTILE_IDS.hyperlink}`), 'a =HYPERLINK id is prefixed with a quote');
    t.ok(findingIds.includes(`'${HOSTILE_IDS.sum}`), 'a +SUM id is prefixed with a quote');
    t.ok(
      findingIds.some((cell) => cell.startsWith(`'${HOSTILE_IDS.spaced} | `)),
      'an id with spaces before = is prefixed with a quote (first in its cell)',
    );
    t.ok(
      findingIds.some((cell) => cell === `'${HOSTILE_IDS.lineFeed}` || cell.startsWith(`'${HOSTILE_IDS.lineFeed} | `)),
      'an id that starts with a line feed is prefixed with a quote (first in its cell)',
    );
    t.ok(findingIds.includes(`'${HOSTILE_IDS.fullwidth}`), 'an id that starts with a fullwidth ＝ is prefixed with a quote');
    t.notOk(rows.flat().some(startsFormula), 'no cell starts a formula');
    t.match(plain, /"'=HYPERLINK\(""http:\/\/evil\.example\/x"",""open""\)"/, 'quotes inside the cell are doubled');
    const gap = rows.find((row) => row[header.indexOf('status')] === 'non_compliant')!;
    t.match(gap[header.indexOf('remediation_priority')], /^(critical|high|medium|low)$/, 'priority as a word');
    t.match(gap[header.indexOf('remediation_priority_rank')], /^[1-5]$/);
    t.match(gap[header.indexOf('confidence')], /^0(\.\d+)?$|^1$/);

    const withEvidence = await parseCsv(
      (await exportFile(service, teams, id, { format: 'csv', options: { include_remediation: false, include_evidence: true } })).bytes.toString('utf8'),
    );
    t.same(withEvidence[0], [
      'framework',
      'control_id',
      'control_title',
      'category',
      'status',
      'severity',
      'confidence',
      'signal_ids',
      'finding_ids',
      'resources',
      'evidence_requirements',
    ]);
    const registry = testRegistry();
    const row = withEvidence[1];
    t.equal(row[10], (registry.control(row[0], row[1])?.evidence ?? []).join(' | '), 'evidence from the registry when the analysis stored none');
  });

  await t.test('xlsx: sheets, frozen headers, filters, typed cells, colours', async (t) => {
    const workbook = await readWorkbook((await exportFile(service, teams, id, { format: 'xlsx', options: { include_evidence: true } })).bytes);
    t.same(
      workbook.worksheets.map((s) => s.name),
      ['Summary', 'Scope', 'Gaps', 'Compliant', 'Not assessed', 'Cross-framework', 'Synergies', 'Evidence'],
    );
    for (const sheet of workbook.worksheets) {
      t.match(sheet.views[0], { state: 'frozen', ySplit: 1 }, `${sheet.name}: header row frozen`);
      t.ok(sheet.autoFilter, `${sheet.name}: autofilter`);
      t.ok((sheet.getColumn(1).width ?? 0) >= 8, `${sheet.name}: column widths set`);
    }
    const summary = workbook.getWorksheet('Summary')!;
    const hipaaRow = summary.getRow(2);
    t.equal(hipaaRow.getCell(1).value, 'HIPAA');
    t.equal(hipaaRow.getCell(4).value, result.data.by_framework.HIPAA.posture.score, 'score is a number');
    t.equal(hipaaRow.getCell(6).value, result.data.by_framework.HIPAA.posture.controls_total, 'counts are numbers');
    t.match((hipaaRow.getCell(3).fill as ExcelJS.FillPattern).fgColor?.argb, /^FF[0-9A-F]{6}$/, 'posture cell coloured');
    let analysisDate: ExcelJS.CellValue;
    summary.eachRow((row) => {
      if (row.getCell(1).value === 'Analysis date') analysisDate = row.getCell(2).value;
    });
    t.ok(analysisDate! instanceof Date, 'dates are dates');
    t.equal((analysisDate as unknown as Date).toISOString(), new Date(result.data.created_at).toISOString());

    const gaps = workbook.getWorksheet('Gaps')!;
    t.type(gaps.getRow(2).getCell(7).value, 'number', 'confidence is a number');
    const cells = new Map<unknown, ExcelJS.Cell>();
    const formulaLike: string[] = [];
    workbook.eachSheet((sheet) =>
      sheet.eachRow((row) =>
        row.eachCell((cell) => {
          cells.set(cell.value, cell);
          if (typeof cell.value === 'string' && startsFormula(cell.value)) formulaLike.push(`${sheet.name}!${cell.address}`);
        }),
      ),
    );
    for (const [name, id] of Object.entries({ hyperlink: HOSTILE_IDS.hyperlink, fullwidth: HOSTILE_IDS.fullwidth })) {
      const hostile = cells.get(`'${id}`);
      t.ok(hostile, `the ${name} finding id is listed with a leading quote, as in the csv`);
      t.equal(hostile?.type, ExcelJS.ValueType.String, 'as text, never a formula');
    }
    t.ok(
      [...cells.keys()].some((value) => typeof value === 'string' && value.includes(`'${HOSTILE_IDS.spaced}`)),
      'ids with spaces before = are neutralised in gap rows',
    );
    t.same(formulaLike, [], 'no text cell in any sheet starts a formula');
    t.ok(sheetRecords(workbook.getWorksheet('Evidence')!).length > 0, 'evidence rows');
    t.ok(sheetRecords(workbook.getWorksheet('Cross-framework')!).length > 0, 'common gaps listed');
  });

  await t.test('pdf: cover, summary, charts, footer on every page', async (t) => {
    const bytes = (await exportFile(service, teams, id, { format: 'pdf' })).bytes;
    t.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    const pages = await pdfPageCount(bytes);
    t.ok(pages >= 5, `${pages} pages`);
    const cover = await pdfToText(bytes, { first: 1, last: 1 });
    t.match(cover, 'Compliance Gap Analysis');
    t.match(cover, id, 'analysis id on the cover');
    t.match(cover, ACCOUNT, 'account on the cover');
    t.match(cover, result.data.created_at.slice(0, 10), 'analysis date on the cover');
    for (const code of FRAMEWORKS) t.match(cover, code);
    const text = await pdfToText(bytes);
    for (const section of [
      'Executive summary',
      'Posture score by framework',
      'Control status by framework',
      'Priority gaps and remediation',
      'Cross-framework insights',
      'Gap register',
      'Method and definitions',
    ]) {
      t.match(text, section, `section ${section}`);
    }
    t.match(text, `registry ${result.meta.registry_version}`, 'footer names the registry version');
    t.match(text, `scoring ${result.meta.scoring_version}`, 'and the scoring version');
    for (let page = 1; page <= pages; page++) t.match(text, `Page ${page} of ${pages}`);

    const rendering = hasCommand('pdftoppm') ? false : 'SKIPPED: rendering a page needs pdftoppm (Debian package poppler-utils)';
    await t.test('the cover renders with ink on it', { skip: rendering }, async (t) => {
      const ink = inkShare(firstPagePng(bytes));
      const blank = await new Promise<Buffer>((resolve) => {
        const doc = new PDFDocument({ size: 'A4' });
        const chunks: Buffer[] = [];
        doc.on('data', (chunk: Buffer) => chunks.push(chunk));
        doc.on('end', () => resolve(Buffer.concat(chunks)));
        doc.end();
      });
      t.equal(inkShare(firstPagePng(blank)), 0, 'a blank page has no ink (decoder check)');
      t.ok(ink > 0.1, `the cover is not blank (${(ink * 100).toFixed(1)}% ink)`);
    });
  });
});

/** A cell a spreadsheet could run as a formula: stated here apart from the rule in src/export/model.ts. */
function startsFormula(cell: string): boolean {
  return /^(?:[\t\r\n]|[ \u00a0\u3000]*[=+\-@＝＋－＠])/.test(cell);
}

t.test('reports an auditor can trace: resources per gap, scope, controls not assessed, any script', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const teams = await service.key('teams', ACCOUNT);
  const frameworks = ['HIPAA', 'SOC2'];
  const resources = ['サーバー-東京-01', 'сервер-москва', 'διακομιστής-αθήνα', 'plain-host'];
  const findings = mixedFindings(frameworks).map((finding, i) => ({
    ...finding,
    observed_at: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(),
    artifact: { type: i % 2 ? 'aws.s3.bucket' : 'k8s.pod', id: resources[i % resources.length], provider: 'aws' },
    source: { tool: i % 2 ? 'prowler' : 'trivy' },
  }));
  const { id, result } = await createAnalysis(service, teams, { frameworks, findings });
  const data = result.data;
  t.same(
    [data.summary.findings.observed_from, data.summary.findings.observed_to],
    [findings[0].observed_at, findings[findings.length - 1].observed_at],
    "the result carries the findings' observed_at span",
  );
  t.same(data.summary.findings.sources, ['prowler', 'trivy'], 'and the tools they name');

  // The result names each resource once (data.resources); a gap refers to its findings' resources by index.
  const byFindingId = new Map(findings.map((f) => [f.id, f.artifact]));
  const resourcesOf = (gap: any) => {
    const named = gap.resources.map((index: number) => data.resources[index]);
    const expected = [...new Map(gap.findings.map((f: any) => byFindingId.get(f.finding_id)!).map((a: any) => [`${a.type}|${a.id}`, a])).values()];
    t.same(named, expected, `${gap.control.id}: each distinct resource of its findings, in finding order`);
    return named.map((a: any) => `${a.id} (${a.type})`);
  };
  const gaps = frameworks.flatMap((code) => data.by_framework[code].gaps.map((gap: any) => ({ code, gap, resources: resourcesOf(gap) })));
  t.ok(gaps.length > 0 && gaps.every((g) => g.resources.length > 0), 'every gap names the resources of its findings');

  await t.test('csv: a resources column per gap', async (t) => {
    const [header, ...rows] = await parseCsv((await exportFile(service, teams, id, { format: 'csv' })).bytes.toString('utf8'));
    for (const { code, gap, resources } of gaps) {
      const row = rows.find((r) => r[header.indexOf('framework')] === code && r[header.indexOf('control_id')] === gap.control.id)!;
      t.same(row[header.indexOf('resources')].split(' | '), resources, `${code} ${gap.control.id}`);
    }
  });

  await t.test('xlsx: resources, a Scope sheet and a Not assessed sheet', async (t) => {
    const workbook = await readWorkbook((await exportFile(service, teams, id, { format: 'xlsx' })).bytes);
    const rows = sheetRecords(workbook.getWorksheet('Gaps')!);
    for (const { code, gap, resources } of gaps) {
      const row = rows.find((r) => r.Framework === code && r['Control ID'] === gap.control.id)!;
      t.same(String(row.Resources).split('\n'), resources, `${code} ${gap.control.id}`);
    }
    const scope = workbook.getWorksheet('Scope')!;
    const cells = scope
      .getSheetValues()
      .flat()
      .filter((v) => v !== undefined && v !== null);
    for (const code of frameworks) t.ok(cells.includes(code) && cells.includes(data.by_framework[code].version), `${code} and its version`);
    const dates = cells.filter((v): v is Date => v instanceof Date).map((d) => d.toISOString());
    t.same(dates, [data.summary.findings.observed_from, data.summary.findings.observed_to], 'the observed_at span');
    t.ok(cells.includes('prowler, trivy'), 'the sources');
    const notAssessed = sheetRecords(workbook.getWorksheet('Not assessed')!);
    for (const code of frameworks) {
      const assessed = new Set([...data.by_framework[code].gaps, ...data.by_framework[code].compliant].map((c: any) => c.control.id));
      const listed = notAssessed.filter((r) => r.Framework === code).map((r) => String(r['Control ID']));
      t.equal(listed.length, data.by_framework[code].posture.controls_not_assessed, `${code}: every control not assessed`);
      t.notOk(
        listed.some((c) => assessed.has(c)),
        `${code}: and none that was`,
      );
    }
  });

  await t.test('pdf: non-Latin resource ids, the scope page, the not-assessed appendix', async (t) => {
    const text = await pdfToText((await exportFile(service, teams, id, { format: 'pdf' })).bytes);
    for (const name of ['サーバー-東京-01', 'сервер-москва']) t.match(text, name, `${name} prints as written`);
    t.match(text, 'διακομιστησ-αθηνα', 'Greek the font lacks accents for prints as its base letters');
    const register = text.slice(text.lastIndexOf('Gap register'), text.lastIndexOf('Method and definitions'));
    t.equal(register.split('\n').filter((line) => /^\s*Resources: /.test(line)).length, gaps.length, 'one resources line per gap in the register');
    const scope = text.slice(text.indexOf('\nScope'), text.indexOf('Executive summary'));
    for (const code of frameworks)
      t.match(scope, new RegExp(`${code}\\s+${data.by_framework[code].name.slice(0, 20).replace(/[()]/g, '.')}`), `${code} on the scope page`);
    t.match(
      scope,
      `${data.summary.findings.observed_from.slice(0, 10)} ${data.summary.findings.observed_from.slice(11, 16)} UTC to ${data.summary.findings.observed_to.slice(0, 10)}`,
      'the observed_at span',
    );
    t.match(scope, 'prowler, trivy', 'the sources');
    const appendix = text.slice(text.lastIndexOf('Controls not assessed'));
    const catalogue = testRegistry()
      .controls('HIPAA')
      .map((c) => c.id);
    const assessed = new Set([...data.by_framework.HIPAA.gaps, ...data.by_framework.HIPAA.compliant].map((c: any) => c.control.id));
    const missing = catalogue.filter((c) => !assessed.has(c));
    t.ok(missing.length > 0 && missing.every((c) => appendix.includes(c)), `the ${missing.length} HIPAA controls not assessed are listed`);
  });
});
