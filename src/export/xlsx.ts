/**
 * The xlsx export (exceljs): Summary (posture and counts per framework, status colours), Scope
 * (frameworks and versions, the findings' time span and sources), Gaps (with the resources their
 * findings name), Compliant, Not assessed, Cross-framework, Synergies and, when asked, Evidence. Every table has its header row
 * frozen and an autofilter; numbers are numbers, dates are dates. Rendered in a pool worker.
 */
import ExcelJS from 'exceljs';
import { capitalize, controlRows, exportScope, gapRow, neutralizeFormula, statusLabel, type ExportHeader, type ExportView } from './model.js';

/** Excel's hard limit on the characters of one cell. */
const CELL_LIMIT = 32_767;

const HEADER_FILL = '1F3864';

/** Excel's own Good / Neutral / Bad palette, so colours read the same as in any workbook. */
const STATUS_STYLE: Record<string, { fill: string; font: string }> = {
  compliant: { fill: 'C6EFCE', font: '006100' },
  partially_compliant: { fill: 'FFEB9C', font: '9C5700' },
  at_risk: { fill: 'FFEB9C', font: '9C5700' },
  non_compliant: { fill: 'FFC7CE', font: '9C0006' },
  not_assessed: { fill: 'EDEDED', font: '595959' },
};

const SEVERITY_STYLE: Record<string, { fill: string; font: string }> = {
  critical: { fill: 'C00000', font: 'FFFFFF' },
  high: { fill: 'FFC7CE', font: '9C0006' },
  medium: { fill: 'FFEB9C', font: '9C5700' },
  low: { fill: 'DDEBF7', font: '1F4E78' },
  info: { fill: 'EDEDED', font: '595959' },
};

interface Column {
  header: string;
  width: number;
  numFmt?: string;
  wrap?: boolean;
}

export async function renderXlsx(view: ExportView, header: ExportHeader): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Compliance Signal Registry';
  workbook.created = new Date(header.generated_at);
  workbook.title = `Gap analysis ${view.data.analysis_id}`;

  summarySheet(workbook, view, header);
  scopeSheet(workbook, view);
  gapsSheet(workbook, view);
  compliantSheet(workbook, view);
  notAssessedSheet(workbook, view);
  crossFrameworkSheet(workbook, view);
  synergiesSheet(workbook, view);
  if (view.options.include_evidence) evidenceSheet(workbook, view);

  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** A sheet whose first row is a styled, frozen header. */
function tableSheet(workbook: ExcelJS.Workbook, name: string, columns: Column[]): ExcelJS.Worksheet {
  const sheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1, xSplit: 0, activeCell: 'A2' }] });
  sheet.columns = columns.map((c) => ({
    header: c.header,
    width: c.width,
    style: { ...(c.numFmt && { numFmt: c.numFmt }), alignment: { vertical: 'top', wrapText: c.wrap ?? false } },
  }));
  const head = sheet.getRow(1);
  head.font = { bold: true, color: { argb: 'FFFFFFFF' } };
  head.alignment = { vertical: 'middle', wrapText: true };
  head.height = 30;
  head.eachCell((cell) => {
    cell.fill = solid(HEADER_FILL);
  });
  return sheet;
}

function finishTable(sheet: ExcelJS.Worksheet, columns: number, lastRow = sheet.rowCount): void {
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: Math.max(1, lastRow), column: columns } };
}

function summarySheet(workbook: ExcelJS.Workbook, view: ExportView, header: ExportHeader): void {
  const columns: Column[] = [
    { header: 'Framework', width: 12 },
    { header: 'Name', width: 34 },
    { header: 'Posture', width: 16 },
    { header: 'Score', width: 9, numFmt: '0.0' },
    { header: 'Coverage', width: 10, numFmt: '0.0%' },
    { header: 'Controls', width: 10, numFmt: '0' },
    { header: 'Assessed', width: 10, numFmt: '0' },
    { header: 'Compliant', width: 11, numFmt: '0' },
    { header: 'Partially compliant', width: 12, numFmt: '0' },
    { header: 'Non-compliant', width: 14, numFmt: '0' },
    { header: 'Not assessed', width: 12, numFmt: '0' },
    { header: 'Critical gaps', width: 10, numFmt: '0' },
    { header: 'High gaps', width: 10, numFmt: '0' },
  ];
  const sheet = tableSheet(workbook, 'Summary', columns);
  // The count headers carry their status colour: a legend for the whole workbook.
  (['compliant', 'partially_compliant', 'non_compliant', 'not_assessed'] as const).forEach((status, i) => {
    const cell = sheet.getRow(1).getCell(8 + i);
    cell.fill = solid(STATUS_STYLE[status].fill);
    cell.font = { bold: true, color: { argb: `FF${STATUS_STYLE[status].font}` } };
  });

  for (const code of view.frameworks) {
    const framework = view.data.by_framework[code];
    const p = framework.posture;
    const row = addRow(sheet, [
      code,
      framework.name,
      statusLabel(p.status),
      p.score,
      p.coverage,
      p.controls_total,
      p.controls_total - p.controls_not_assessed,
      p.controls_compliant,
      p.controls_partial,
      p.controls_non_compliant,
      p.controls_not_assessed,
      p.critical_gaps,
      p.high_gaps,
    ]);
    paint(row.getCell(3), STATUS_STYLE[p.status]);
  }
  finishTable(sheet, columns.length);

  const s = view.summary;
  addRow(sheet, []);
  const total = addRow(sheet, [
    'All selected',
    `${view.frameworks.length} framework${view.frameworks.length === 1 ? '' : 's'}`,
    statusLabel(s.posture),
    s.score,
    s.coverage,
    s.controls_total,
    s.controls_assessed,
    s.counts.compliant,
    s.counts.partially_compliant,
    s.counts.non_compliant,
    s.counts.not_assessed,
    s.critical_gaps,
    s.high_gaps,
  ]);
  total.font = { bold: true };
  total.eachCell((cell) => {
    cell.border = { top: { style: 'thin' }, bottom: { style: 'double' } };
  });
  paint(total.getCell(3), STATUS_STYLE[s.posture]);

  addRow(sheet, []);
  const findings = view.data.summary.findings;
  const details: Array<[string, string | number | Date]> = [
    ['Analysis ID', view.data.analysis_id],
    ['Analysis date', new Date(view.data.created_at)],
    ['Exported at', new Date(header.generated_at)],
    ['Account', header.account],
    ['Frameworks', view.frameworks.join(', ')],
    ['Findings submitted', findings.submitted],
    ['Findings analysed', findings.analyzed],
    ['Resolved findings excluded', findings.excluded_resolved],
    ['Findings with no mapping', findings.unmapped],
    // A scanner file's results that no signal recognises: "N of M results were not recognised: …".
    ...(findings.not_recognised ? ([['Results not recognised', findings.not_recognised.message]] as Array<[string, string]>) : []),
    ['Registry version', view.meta.registry_version],
    ['Scoring version', view.meta.scoring_version],
    ['Export format version', header.format_version],
    ['Remediation included', header.filters.include_remediation ? 'yes' : 'no'],
    ['Evidence included', header.filters.include_evidence ? 'yes' : 'no'],
  ];
  for (const [label, value] of details) {
    const row = addRow(sheet, [label, value]);
    row.getCell(1).font = { bold: true };
    const cell = row.getCell(2);
    cell.alignment = { horizontal: 'left' };
    if (value instanceof Date) cell.numFmt = 'yyyy-mm-dd hh:mm:ss';
    else if (typeof value === 'number') cell.numFmt = '0';
  }
}

function gapsSheet(workbook: ExcelJS.Workbook, view: ExportView): void {
  const columns: Column[] = [
    { header: 'Framework', width: 11 },
    { header: 'Control ID', width: 16 },
    { header: 'Control title', width: 36, wrap: true },
    { header: 'Category', width: 22, wrap: true },
    { header: 'Status', width: 18 },
    { header: 'Severity', width: 10 },
    { header: 'Confidence', width: 11, numFmt: '0.00' },
    { header: 'Findings', width: 9, numFmt: '0' },
    { header: 'Signal IDs', width: 40, wrap: true },
    { header: 'Finding IDs', width: 30, wrap: true },
    { header: 'Resources', width: 44, wrap: true },
  ];
  const { include_remediation: remediation, include_evidence: evidence } = view.options;
  if (remediation) {
    columns.push(
      { header: 'Priority', width: 10 },
      { header: 'Priority rank', width: 9, numFmt: '0' },
      { header: 'Effort', width: 9 },
      { header: 'Guidance', width: 60, wrap: true },
      { header: 'Steps', width: 70, wrap: true },
    );
  }
  if (evidence) columns.push({ header: 'Evidence requirements', width: 50, wrap: true });
  const sheet = tableSheet(workbook, 'Gaps', columns);
  for (const code of view.frameworks) {
    const framework = view.data.by_framework[code];
    for (const gap of framework.gaps) {
      const row = gapRow(view, code, framework.name, gap);
      const values: Array<string | number | null> = [
        row.framework,
        row.control_id,
        row.control_title,
        row.category,
        statusLabel(row.status),
        capitalize(row.severity),
        row.confidence,
        row.finding_ids.length,
        cell(row.signal_ids.join('\n')),
        cell(row.finding_ids.join('\n')),
        cell(row.resources.join('\n')),
      ];
      if (remediation) {
        const r = row.remediation;
        values.push(
          capitalize(r?.priority),
          r?.priority_rank ?? null,
          capitalize(r?.effort),
          cell(r?.guidance ?? ''),
          cell((r?.steps ?? []).map((s, i) => `${i + 1}. ${s}`).join('\n')),
        );
      }
      if (evidence) values.push(cell((row.evidence ?? []).map((e) => `• ${e}`).join('\n')));
      const added = addRow(sheet, values);
      paint(added.getCell(5), STATUS_STYLE[row.status]);
      if (row.severity) paint(added.getCell(6), SEVERITY_STYLE[row.severity]);
    }
  }
  finishTable(sheet, columns.length);
}

/** What the analysis covered: one row per selected framework, then the findings' span, sources and versions. */
function scopeSheet(workbook: ExcelJS.Workbook, view: ExportView): void {
  const columns: Column[] = [
    { header: 'Framework', width: 12 },
    { header: 'Name', width: 40 },
    { header: 'Version', width: 14 },
    { header: 'Controls', width: 10, numFmt: '0' },
    { header: 'Assessed', width: 10, numFmt: '0' },
  ];
  const sheet = tableSheet(workbook, 'Scope', columns);
  const scope = exportScope(view);
  for (const f of scope.frameworks) addRow(sheet, [f.code, f.name, f.version, f.controls_total, f.controls_assessed]);
  finishTable(sheet, columns.length);
  addRow(sheet, []);
  const details: Array<[string, string | number | Date]> = [
    ['Findings observed from', scope.observed_from ? new Date(scope.observed_from) : 'not given by the findings'],
    ['Findings observed to', scope.observed_to ? new Date(scope.observed_to) : 'not given by the findings'],
    ['Sources', scope.sources.length ? cell(scope.sources.join(', ')) : 'not named by the findings'],
    ['Findings submitted', scope.findings.submitted],
    ['Findings analysed', scope.findings.analyzed],
    ['Minimum mapping confidence', scope.analysis_options.min_confidence ?? ''],
    ['Resolved findings', scope.analysis_options.include_resolved ? 'included as passing evidence' : 'left out'],
    ['Registry version', scope.registry_version],
    ['Scoring version', scope.scoring_version],
    ['Result format version', scope.result_format_version],
  ];
  for (const [label, value] of details) {
    const row = addRow(sheet, [label, value]);
    row.getCell(1).font = { bold: true };
    const cell = row.getCell(2);
    cell.alignment = { horizontal: 'left' };
    if (value instanceof Date) cell.numFmt = 'yyyy-mm-dd hh:mm:ss';
  }
}

/** Controls of the selected frameworks that no finding reached, from the registry. */
function notAssessedSheet(workbook: ExcelJS.Workbook, view: ExportView): void {
  const columns: Column[] = [
    { header: 'Framework', width: 11 },
    { header: 'Control ID', width: 16 },
    { header: 'Control title', width: 50, wrap: true },
    { header: 'Category', width: 26, wrap: true },
    { header: 'Signals mapped', width: 10, numFmt: '0' },
  ];
  const sheet = tableSheet(workbook, 'Not assessed', columns);
  for (const code of view.frameworks) {
    for (const control of view.notAssessed(code)) addRow(sheet, [code, control.id, control.title, control.category, control.mapped_signals]);
  }
  finishTable(sheet, columns.length);
}

function compliantSheet(workbook: ExcelJS.Workbook, view: ExportView): void {
  const columns: Column[] = [
    { header: 'Framework', width: 11 },
    { header: 'Control ID', width: 16 },
    { header: 'Control title', width: 36, wrap: true },
    { header: 'Category', width: 22, wrap: true },
    { header: 'Confidence', width: 11, numFmt: '0.00' },
    { header: 'Validating findings', width: 11, numFmt: '0' },
    { header: 'Signal IDs', width: 40, wrap: true },
    { header: 'Finding IDs', width: 30, wrap: true },
    { header: 'Finding statuses', width: 18, wrap: true },
  ];
  if (view.options.include_evidence) columns.push({ header: 'Evidence requirements', width: 50, wrap: true });
  const sheet = tableSheet(workbook, 'Compliant', columns);
  for (const code of view.frameworks) {
    for (const control of view.data.by_framework[code].compliant) {
      const values: Array<string | number> = [
        code,
        control.control.id,
        control.control.title,
        control.control.category,
        control.confidence,
        control.validated_by.length,
        cell([...new Set(control.validated_by.map((v) => v.signal_id))].join('\n')),
        cell(control.validated_by.map((v) => v.finding_id).join('\n')),
        [...new Set(control.validated_by.map((v) => v.finding_status.replace('_', ' ')))].join(', '),
      ];
      if (view.options.include_evidence)
        values.push(
          cell(
            view
              .evidenceOf(code, control.control.id)
              .map((e) => `• ${e}`)
              .join('\n'),
          ),
        );
      addRow(sheet, values);
    }
  }
  finishTable(sheet, columns.length);
}

function crossFrameworkSheet(workbook: ExcelJS.Workbook, view: ExportView): void {
  const columns: Column[] = [
    { header: 'Signal ID', width: 34 },
    { header: 'Description', width: 60, wrap: true },
    { header: 'Frameworks affected', width: 11, numFmt: '0' },
    { header: 'Frameworks', width: 30, wrap: true },
    { header: 'Controls affected', width: 10, numFmt: '0' },
    { header: 'Controls', width: 40, wrap: true },
    { header: 'Remediation overlap', width: 70, wrap: true },
  ];
  const sheet = tableSheet(workbook, 'Cross-framework', columns);
  for (const gap of view.commonGaps) {
    addRow(sheet, [
      gap.signal_id,
      gap.description,
      gap.affects_frameworks.length,
      gap.affects_frameworks.join(', '),
      gap.controls_affected.length,
      cell(gap.controls_affected.map((c) => `${c.framework} ${c.control_id}`).join('\n')),
      cell(gap.remediation_overlap),
    ]);
  }
  finishTable(sheet, columns.length);
}

function synergiesSheet(workbook: ExcelJS.Workbook, view: ExportView): void {
  const columns: Column[] = [
    { header: 'Framework', width: 12 },
    { header: 'Synergy with', width: 12 },
    { header: 'Overlap', width: 10, numFmt: '0.0%' },
    { header: 'Note', width: 90, wrap: true },
  ];
  const sheet = tableSheet(workbook, 'Synergies', columns);
  for (const s of view.synergies) addRow(sheet, [s.primary_framework, s.synergy_with, s.overlap_percentage / 100, s.note]);
  finishTable(sheet, columns.length);
}

function evidenceSheet(workbook: ExcelJS.Workbook, view: ExportView): void {
  const columns: Column[] = [
    { header: 'Framework', width: 11 },
    { header: 'Control ID', width: 16 },
    { header: 'Control title', width: 36, wrap: true },
    { header: 'Status', width: 18 },
    { header: 'Evidence requirement', width: 70, wrap: true },
  ];
  const sheet = tableSheet(workbook, 'Evidence', columns);
  for (const row of controlRows(view)) {
    for (const item of row.evidence ?? []) {
      const added = addRow(sheet, [row.framework, row.control_id, row.control_title, statusLabel(row.status), item]);
      paint(added.getCell(4), STATUS_STYLE[row.status]);
    }
  }
  finishTable(sheet, columns.length);
}

function solid(rgb: string): ExcelJS.Fill {
  return { type: 'pattern', pattern: 'solid', fgColor: { argb: `FF${rgb}` } };
}

function paint(target: ExcelJS.Cell, style: { fill: string; font: string } | undefined): void {
  if (!style) return;
  target.fill = solid(style.fill);
  target.font = { color: { argb: `FF${style.font}` }, bold: true };
}

/**
 * Every data row goes through here: text cells get the csv export's formula neutralisation. A
 * typed text cell is not evaluated when the file opens, but it is once someone edits it and
 * presses Enter, and a copy to csv or another sheet carries the raw text along.
 */
function addRow(sheet: ExcelJS.Worksheet, values: ReadonlyArray<string | number | Date | null | undefined>): ExcelJS.Row {
  return sheet.addRow(values.map((value) => (typeof value === 'string' ? neutralizeFormula(value) : value)));
}

/** Text within Excel's cell limit; a cut says so. Values are typed text, never formulas. */
function cell(text: string): string {
  if (text.length <= CELL_LIMIT) return text;
  const note = ' … (truncated: the csv export has the full list)';
  return text.slice(0, CELL_LIMIT - note.length) + note;
}
