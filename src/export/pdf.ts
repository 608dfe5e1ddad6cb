/**
 * The pdf export (pdfkit, built-in Helvetica): a report a compliance lead can hand to an auditor.
 * Cover; executive summary with key figures, a bar chart of posture score per framework and a
 * stacked bar of control statuses per framework (vector graphics); the framework table; the most
 * urgent gaps with remediation; cross-framework insights (common gaps, synergy matrix); a register
 * of every gap; method and definitions. Every page after the cover has a running header, and
 * every page a footer with the registry, scoring and export versions and "Page x of y".
 * Rendered in a pool worker.
 */
import PDFDocument from 'pdfkit';
import { AT_RISK_SCORE, COMPLIANT_SCORE, SCORING_VERSION, scoringMethod } from '../gap/scoring.js';
import { capitalize, gapsByUrgency, statusLabel, type ExportHeader, type ExportView, type GapResult } from './model.js';

type Doc = PDFKit.PDFDocument;

/** How many gaps get a full block with remediation; the register lists them all. */
export const TOP_GAPS = 15;
/** How many common gaps the insights section details. */
export const TOP_COMMON_GAPS = 8;
/** Remediation steps shown per gap; the csv and xlsx exports carry the full list. */
const STEPS_SHOWN = 5;

const PAGE = { width: 595.28, height: 841.89 };
const MARGIN = { top: 64, bottom: 64, left: 50, right: 50 };
const LEFT = MARGIN.left;
const WIDTH = PAGE.width - MARGIN.left - MARGIN.right;
const BOTTOM = PAGE.height - MARGIN.bottom;

const COLOR = {
  ink: '#1A1A1A',
  muted: '#5F6B7A',
  rule: '#D5DAE1',
  panel: '#F4F6F9',
  navy: '#1F3864',
  accent: '#2F5597',
  track: '#E9EDF2',
};

const STATUS_COLOR: Record<string, string> = {
  compliant: '#2E7D32',
  partially_compliant: '#F2A900',
  at_risk: '#E67E22',
  non_compliant: '#C62828',
  not_assessed: '#B8C2CC',
};

/** Status colours for text on white: the amber is darkened to stay legible. */
const STATUS_TEXT_COLOR: Record<string, string> = { ...STATUS_COLOR, partially_compliant: '#A86E00', at_risk: '#C0611A', not_assessed: '#5F6B7A' };

const SEVERITY_COLOR: Record<string, string> = {
  critical: '#8E0000',
  high: '#C62828',
  medium: '#E67E22',
  low: '#2F5597',
  info: '#7F8C8D',
};

const FONT = { regular: 'Helvetica', bold: 'Helvetica-Bold', italic: 'Helvetica-Oblique' };

export async function renderPdf(view: ExportView, header: ExportHeader): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margins: MARGIN,
    bufferPages: true,
    autoFirstPage: true,
    info: {
      Title: `Gap analysis report ${view.data.analysis_id}`,
      Author: 'Compliance Signal Registry',
      Subject: `Compliance gap analysis: ${view.frameworks.join(', ')}`,
      Creator: 'Compliance Signal Registry export',
      CreationDate: new Date(header.generated_at),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  cover(doc, view, header);
  executiveSummary(doc, view);
  frameworkTable(doc, view);
  priorityGaps(doc, view);
  crossFramework(doc, view);
  gapRegister(doc, view);
  method(doc, view);
  decoratePages(doc, view, header);

  doc.end();
  return done;
}

// ---------------------------------------------------------------- pages

function cover(doc: Doc, view: ExportView, header: ExportHeader): void {
  const { data } = view;
  doc.rect(0, 0, PAGE.width, 250).fill(COLOR.navy);
  doc.rect(0, 250, PAGE.width, 6).fill(COLOR.accent);
  doc.fillColor('#AFC3E3').font(FONT.bold).fontSize(10).text('COMPLIANCE SIGNAL REGISTRY', LEFT, 70, { characterSpacing: 1.5 });
  doc.fillColor('#FFFFFF').font(FONT.bold).fontSize(30).text('Compliance Gap Analysis', LEFT, 100);
  doc.font(FONT.regular).fontSize(14).fillColor('#DCE6F5');
  doc.text(`Assessment report for ${plural(view.frameworks.length, 'framework')}: ${view.frameworks.join(', ')}`, LEFT, 148, { width: WIDTH });

  // Overall posture badge.
  const s = view.summary;
  const badgeY = 290;
  doc.roundedRect(LEFT, badgeY, WIDTH, 92, 6).fill(COLOR.panel);
  doc.rect(LEFT, badgeY, 6, 92).fill(STATUS_COLOR[s.posture] ?? COLOR.muted);
  label(doc, 'OVERALL POSTURE', LEFT + 24, badgeY + 16);
  doc.font(FONT.bold).fontSize(22).fillColor(STATUS_TEXT_COLOR[s.posture] ?? COLOR.ink).text(statusLabel(s.posture), LEFT + 24, badgeY + 32);
  doc.font(FONT.regular).fontSize(9).fillColor(COLOR.muted).text(`${s.controls_assessed} of ${s.controls_total} controls assessed (${percent(s.coverage)} coverage)`, LEFT + 24, badgeY + 62);
  label(doc, 'POSTURE SCORE', LEFT + 300, badgeY + 16);
  const scoreText = score(s.score);
  doc.font(FONT.bold).fontSize(30).fillColor(COLOR.ink).text(scoreText, LEFT + 300, badgeY + 32, { lineBreak: false });
  const scoreWidth = doc.widthOfString(scoreText);
  doc.font(FONT.regular).fontSize(12).fillColor(COLOR.muted).text('/ 100', LEFT + 300 + scoreWidth + 6, badgeY + 46, { lineBreak: false });

  // Report details.
  let y = badgeY + 125;
  const rows: Array<[string, string]> = [
    ['Analysis ID', data.analysis_id],
    ['Analysis date', dateTime(data.created_at)],
    ['Report generated', dateTime(header.generated_at)],
    ['Prepared for', header.account],
    ['Findings', `${data.summary.findings.submitted} submitted, ${data.summary.findings.analyzed} analysed`],
  ];
  for (const [name, value] of rows) {
    doc.font(FONT.bold).fontSize(10).fillColor(COLOR.muted).text(name, LEFT, y, { width: 130 });
    doc.font(FONT.regular).fontSize(10).fillColor(COLOR.ink).text(pdfText(value), LEFT + 140, y, { width: WIDTH - 140 });
    y += 20;
  }
  doc.font(FONT.bold).fontSize(10).fillColor(COLOR.muted).text('Frameworks', LEFT, y, { width: 130 });
  doc.font(FONT.regular).fontSize(10).fillColor(COLOR.ink);
  for (const code of view.frameworks) {
    doc.text(pdfText(`${code}  ${view.data.by_framework[code].name}`), LEFT + 140, y, { width: WIDTH - 140 });
    y = doc.y + 4;
  }

  const noteY = BOTTOM - 70;
  doc.moveTo(LEFT, noteY).lineTo(LEFT + WIDTH, noteY).lineWidth(0.5).strokeColor(COLOR.rule).stroke();
  doc.font(FONT.italic).fontSize(8.5).fillColor(COLOR.muted);
  doc.text(
    'Confidential. This report was produced from security findings submitted to the Compliance Signal Registry and mapped to framework ' +
      'controls by its signal registry. Control statuses reflect the findings available at the analysis date; controls without findings are ' +
      'not assessed. Method and definitions are on the last page.',
    LEFT,
    noteY + 10,
    { width: WIDTH, lineGap: 1.5 },
  );
}

function executiveSummary(doc: Doc, view: ExportView): void {
  doc.addPage();
  heading(doc, 'Executive summary');
  const s = view.summary;

  const tiles: Array<{ value: string; caption: string; color: string }> = [
    { value: score(s.score), caption: `posture score, ${statusLabel(s.posture).toLowerCase()}`, color: STATUS_TEXT_COLOR[s.posture] ?? COLOR.navy },
    { value: `${s.controls_assessed}`, caption: `of ${s.controls_total} controls assessed (${percent(s.coverage)})`, color: COLOR.navy },
    { value: `${s.critical_gaps}`, caption: 'critical gaps', color: SEVERITY_COLOR.critical },
    { value: `${s.high_gaps}`, caption: 'high-risk gaps', color: SEVERITY_COLOR.high },
  ];
  const gap = 10;
  const tileWidth = (WIDTH - gap * (tiles.length - 1)) / tiles.length;
  const tileY = doc.y + 4;
  tiles.forEach((tile, i) => {
    const x = LEFT + i * (tileWidth + gap);
    doc.roundedRect(x, tileY, tileWidth, 58, 4).fill(COLOR.panel);
    doc.rect(x, tileY, tileWidth, 3).fill(tile.color);
    doc.font(FONT.bold).fontSize(20).fillColor(tile.color).text(tile.value, x + 10, tileY + 12, { width: tileWidth - 20 });
    doc.font(FONT.regular).fontSize(8).fillColor(COLOR.muted).text(tile.caption, x + 10, tileY + 38, { width: tileWidth - 20 });
  });
  doc.x = LEFT;
  doc.y = tileY + 72;

  const gapsTotal = s.counts.non_compliant + s.counts.partially_compliant;
  paragraph(
    doc,
    `Across ${plural(view.frameworks.length, 'selected framework')}, ${s.controls_assessed} of ${s.controls_total} controls were assessed from the submitted findings ` +
      `(${percent(s.coverage)} coverage): ${s.counts.compliant} compliant, ${s.counts.partially_compliant} partially compliant and ${s.counts.non_compliant} non-compliant. ` +
      `The overall posture is ${statusLabel(s.posture).toLowerCase()} with a score of ${score(s.score)} out of 100. ` +
      `${plural(gapsTotal, 'gap')} ${gapsTotal === 1 ? 'needs' : 'need'} attention, of which ${s.critical_gaps} critical and ${s.high_gaps} high severity` +
      (view.commonGaps.length ? `; ${plural(view.commonGaps.length, 'weakness', 'weaknesses')} open gaps in more than one framework, where one fix counts several times.` : '.'),
  );
  doc.moveDown(0.8);

  subheading(doc, 'Posture score by framework');
  scoreChart(doc, view);
  doc.moveDown(0.6);
  subheading(doc, 'Control status by framework');
  statusChart(doc, view);
}

/** Layout shared by the bar charts: a label column, the plot and a value column; thinner bars when there are many frameworks. */
function barLayout(view: ExportView, valueWidth: number) {
  const labelWidth = 62;
  const barHeight = view.frameworks.length > 8 ? 11 : 14;
  return { labelWidth, valueWidth, plotX: LEFT + labelWidth, plotWidth: WIDTH - labelWidth - valueWidth, barHeight, rowHeight: barHeight + 6 };
}

/** Horizontal bars, 0 to 100, coloured by posture, with the at-risk and compliant thresholds of the scoring model. */
function scoreChart(doc: Doc, view: ExportView): void {
  const { labelWidth, valueWidth, plotX, plotWidth, barHeight, rowHeight } = barLayout(view, 36);
  const top = doc.y + 14;
  const height = view.frameworks.length * rowHeight;
  ensure(doc, height + 44);

  view.frameworks.forEach((code, i) => {
    const posture = view.data.by_framework[code].posture;
    const y = top + i * rowHeight;
    doc.font(FONT.bold).fontSize(8).fillColor(COLOR.ink).text(code, LEFT, y + (barHeight - 8) / 2 + 1, { width: labelWidth - 8, align: 'right', lineBreak: false });
    doc.rect(plotX, y, plotWidth, barHeight).fill(COLOR.track);
    const value = posture.score ?? 0;
    // A score of 0 still shows its posture colour as a stub; "not assessed" (no score) shows none.
    if (posture.score !== null) doc.rect(plotX, y, Math.max(2, (plotWidth * value) / 100), barHeight).fill(STATUS_COLOR[posture.status] ?? COLOR.accent);
    doc.font(FONT.regular).fontSize(8).fillColor(COLOR.ink).text(score(posture.score), plotX + plotWidth + 6, y + (barHeight - 8) / 2 + 1, { width: valueWidth - 6, lineBreak: false });
  });
  // Thresholds over the bars: the posture bands of docs/scoring.md.
  for (const [threshold, text] of [
    [AT_RISK_SCORE, `at risk from ${AT_RISK_SCORE}`],
    [COMPLIANT_SCORE, `compliant from ${COMPLIANT_SCORE}`],
  ] as const) {
    const x = plotX + (plotWidth * threshold) / 100;
    doc.save().moveTo(x, top - 4).lineTo(x, top + height).dash(2.5, { space: 2 }).lineWidth(0.8).strokeColor(COLOR.ink).strokeOpacity(0.55).stroke().restore();
    doc.font(FONT.regular).fontSize(7).fillColor(COLOR.muted).text(text, x - 40, top - 13, { width: 80, align: 'center', lineBreak: false });
  }
  // Axis.
  const axisY = top + height + 3;
  doc.moveTo(plotX, axisY).lineTo(plotX + plotWidth, axisY).lineWidth(0.5).strokeColor(COLOR.rule).stroke();
  for (let tick = 0; tick <= 100; tick += 20) {
    const x = plotX + (plotWidth * tick) / 100;
    doc.moveTo(x, axisY).lineTo(x, axisY + 3).stroke();
    doc.font(FONT.regular).fontSize(7).fillColor(COLOR.muted).text(String(tick), x - 12, axisY + 5, { width: 24, align: 'center' });
  }
  legend(doc, axisY + 18, [
    ['Compliant', STATUS_COLOR.compliant],
    ['At risk', STATUS_COLOR.at_risk],
    ['Non-compliant', STATUS_COLOR.non_compliant],
  ]);
}

/** One 100 % bar per framework: compliant, partially compliant, non-compliant and not assessed shares of its controls. */
function statusChart(doc: Doc, view: ExportView): void {
  const { labelWidth, valueWidth, plotX, plotWidth, barHeight, rowHeight } = barLayout(view, 74);
  const top = doc.y + 4;
  ensure(doc, view.frameworks.length * rowHeight + 30);
  const segments = [
    ['controls_compliant', 'compliant'],
    ['controls_partial', 'partially_compliant'],
    ['controls_non_compliant', 'non_compliant'],
    ['controls_not_assessed', 'not_assessed'],
  ] as const;
  view.frameworks.forEach((code, i) => {
    const posture = view.data.by_framework[code].posture;
    const y = top + i * rowHeight;
    doc.font(FONT.bold).fontSize(8).fillColor(COLOR.ink).text(code, LEFT, y + (barHeight - 8) / 2 + 1, { width: labelWidth - 8, align: 'right', lineBreak: false });
    let x = plotX;
    for (const [field, status] of segments) {
      const count = posture[field];
      if (!count || !posture.controls_total) continue;
      const width = (plotWidth * count) / posture.controls_total;
      doc.rect(x, y, width, barHeight).fill(STATUS_COLOR[status]);
      const text = String(count);
      doc.font(FONT.bold).fontSize(7);
      if (width > doc.widthOfString(text) + 6) {
        doc.fillColor(status === 'not_assessed' || status === 'partially_compliant' ? COLOR.ink : '#FFFFFF').text(text, x, y + (barHeight - 7) / 2 + 1, { width, align: 'center', lineBreak: false });
      }
      x += width;
    }
    const assessed = posture.controls_total - posture.controls_not_assessed;
    doc.font(FONT.regular).fontSize(7).fillColor(COLOR.muted).text(`${assessed} of ${posture.controls_total} assessed`, plotX + plotWidth + 6, y + (barHeight - 7.5) / 2 + 1, { width: valueWidth - 6, lineBreak: false });
  });
  legend(doc, top + view.frameworks.length * rowHeight + 4, [
    ['Compliant', STATUS_COLOR.compliant],
    ['Partially compliant', STATUS_COLOR.partially_compliant],
    ['Non-compliant', STATUS_COLOR.non_compliant],
    ['Not assessed', STATUS_COLOR.not_assessed],
  ]);
}

function frameworkTable(doc: Doc, view: ExportView): void {
  doc.moveDown(1);
  ensure(doc, 90);
  subheading(doc, 'Frameworks');
  const columns: TableColumn[] = [
    { title: 'Code', width: 50 },
    { title: 'Name', width: 112 },
    { title: 'Posture', width: 68 },
    { title: 'Score', width: 34, align: 'right' },
    { title: 'Cover.', width: 38, align: 'right' },
    { title: 'Compl.', width: 36, align: 'right' },
    { title: 'Partial', width: 36, align: 'right' },
    { title: 'Non-c.', width: 36, align: 'right' },
    { title: 'N/A', width: 27, align: 'right' },
    { title: 'Crit.', width: 28, align: 'right' },
    { title: 'High', width: 30, align: 'right' },
  ];
  const rows = view.frameworks.map((code) => {
    const framework = view.data.by_framework[code];
    const p = framework.posture;
    return {
      cells: [code, framework.name, statusLabel(p.status), score(p.score), percent(p.coverage), p.controls_compliant, p.controls_partial, p.controls_non_compliant, p.controls_not_assessed, p.critical_gaps, p.high_gaps].map(String),
      colors: { 2: STATUS_TEXT_COLOR[p.status] },
    };
  });
  table(doc, columns, rows, { fontSize: 8, rowHeight: 16 });
}

function priorityGaps(doc: Doc, view: ExportView): void {
  doc.y += 28;
  ensure(doc, 200);
  const ordered = gapsByUrgency(view);
  // An analysis created with include_remediation: false has none to show, whatever the export asks.
  const withRemediation = view.options.include_remediation && ordered.some(({ gap }) => gap.remediation);
  heading(doc, withRemediation ? 'Priority gaps and remediation' : 'Priority gaps');
  if (!ordered.length) {
    paragraph(doc, 'No gaps: every assessed control of the selected frameworks is compliant.');
    return;
  }
  const shown = ordered.slice(0, TOP_GAPS);
  paragraph(
    doc,
    `The ${shown.length === ordered.length ? plural(shown.length, 'gap') : `${shown.length} most urgent of ${ordered.length} gaps`}, ordered by remediation priority, ` +
      'then status and severity. Each gives the findings and signals that decided it' +
      (withRemediation ? ' and the remediation that closes it.' : '.') +
      (shown.length < ordered.length ? ' The gap register at the end of this report lists every gap.' : ''),
  );
  doc.moveDown(0.6);
  shown.forEach(({ framework, gap }, index) => gapBlock(doc, view, framework, gap, index + 1));
}

function gapBlock(doc: Doc, view: ExportView, framework: string, gap: GapResult, number: number): void {
  const signals = [...new Set(gap.findings.map((f) => f.signal_id))];
  const facts = [
    statusLabel(gap.status),
    `severity ${gap.severity ?? 'n/a'}`,
    gap.remediation && `priority ${gap.remediation.priority} (${gap.remediation.priority_rank})`,
    gap.remediation && `effort ${gap.remediation.effort}`,
    `confidence ${gap.confidence.toFixed(2)}`,
    plural(gap.findings.length, 'finding'),
  ]
    .filter(Boolean)
    .join('  ·  ');
  const lines: BlockLine[] = [
    { text: `${number}. ${framework} ${gap.control.id}: ${gap.control.title}`, font: FONT.bold, size: 10, color: COLOR.ink },
    { text: facts, font: FONT.bold, size: 8, color: STATUS_TEXT_COLOR[gap.status] ?? COLOR.muted, before: 2 },
    {
      text: `Signals: ${signals.slice(0, 4).join(', ')}${signals.length > 4 ? ` and ${signals.length - 4} more` : ''}`,
      font: FONT.regular,
      size: 7.5,
      color: COLOR.muted,
      before: 1,
    },
  ];
  const remediation = view.options.include_remediation ? gap.remediation : undefined;
  if (remediation) {
    lines.push({ text: remediation.guidance, font: FONT.regular, size: 9, color: COLOR.ink, before: 5, lineGap: 1 });
    remediation.steps.slice(0, STEPS_SHOWN).forEach((step, i) => lines.push({ text: `${i + 1}. ${step}`, font: FONT.regular, size: 8.5, color: COLOR.ink, indent: 10, before: i === 0 ? 4 : 1.5 }));
    if (remediation.steps.length > STEPS_SHOWN) {
      lines.push({ text: `and ${remediation.steps.length - STEPS_SHOWN} more steps in the csv and xlsx exports`, font: FONT.italic, size: 7.5, color: COLOR.muted, indent: 10, before: 1.5 });
    }
  }
  if (view.options.include_evidence) {
    const evidence = view.evidenceOf(framework, gap.control.id, gap);
    if (evidence.length) {
      lines.push({ text: 'EVIDENCE REQUIRED', font: FONT.bold, size: 7, color: COLOR.muted, before: 6, characterSpacing: 0.6 });
      evidence.forEach((item) => lines.push({ text: `•  ${item}`, font: FONT.regular, size: 8.5, color: COLOR.ink, indent: 4, before: 1.5 }));
    }
  }
  block(doc, lines, SEVERITY_COLOR[gap.severity ?? 'info'] ?? COLOR.muted, 14);
}

function crossFramework(doc: Doc, view: ExportView): void {
  doc.y += 24;
  heading(doc, 'Cross-framework insights');
  if (view.frameworks.length < 2) {
    paragraph(doc, 'Cross-framework insights compare two or more frameworks; this report covers one.');
    return;
  }
  if ((view.data.options as { include_cross_framework?: boolean }).include_cross_framework === false) {
    paragraph(doc, 'The analysis was run without cross-framework insights (include_cross_framework: false).');
    return;
  }
  subheading(doc, 'Common gaps');
  if (!view.commonGaps.length) {
    paragraph(doc, 'No failing signal opens gaps in more than one of the selected frameworks.');
  } else {
    const shown = view.commonGaps.slice(0, TOP_COMMON_GAPS);
    paragraph(
      doc,
      `${plural(view.commonGaps.length, 'weakness', 'weaknesses')} open gaps in two or more of the selected frameworks; ` +
        `fixing one closes gaps in each of them. ${shown.length < view.commonGaps.length ? `The ${shown.length} widest follow.` : ''}`,
    );
    doc.moveDown(0.5);
    for (const common of shown) {
      block(
        doc,
        [
          { text: common.description, font: FONT.bold, size: 9.5, color: COLOR.ink },
          { text: `${common.affects_frameworks.join(', ')}  ·  ${plural(common.controls_affected.length, 'control')}`, font: FONT.regular, size: 8, color: COLOR.accent, before: 2 },
          { text: common.remediation_overlap, font: FONT.regular, size: 8.5, color: COLOR.ink, before: 2, lineGap: 1 },
        ],
        COLOR.accent,
        10,
      );
    }
  }
  doc.moveDown(0.5);
  synergyMatrix(doc, view);
}

/** Row framework → column framework: share of the row's mapped controls that share a signal with the column framework. */
function synergyMatrix(doc: Doc, view: ExportView): void {
  if (!view.synergies.length) return;
  const codes = view.frameworks;
  const labelWidth = 62;
  const cell = Math.min(36, (WIDTH - labelWidth) / codes.length);
  const height = 40 + cell * (codes.length + 1) + 20;
  ensure(doc, height);
  subheading(doc, 'Framework synergies');
  doc.font(FONT.regular).fontSize(8).fillColor(COLOR.muted).text(
    'Share of each row framework\'s mapped controls that share a signal with the column framework: evidence collected for one supports the other.',
    LEFT,
    doc.y,
    { width: WIDTH },
  );
  const top = doc.y + 8;
  const value = new Map(view.synergies.map((s) => [`${s.primary_framework}|${s.synergy_with}`, s.overlap_percentage]));
  codes.forEach((code, i) => {
    const x = LEFT + labelWidth + i * cell;
    doc.font(FONT.bold).fontSize(6.5).fillColor(COLOR.ink).text(code, x, top + cell / 2 - 3, { width: cell, align: 'center', lineBreak: false });
  });
  codes.forEach((row, r) => {
    const y = top + cell * (r + 1);
    doc.font(FONT.bold).fontSize(7.5).fillColor(COLOR.ink).text(row, LEFT, y + cell / 2 - 3.5, { width: labelWidth - 8, align: 'right', lineBreak: false });
    codes.forEach((column, c) => {
      const x = LEFT + labelWidth + c * cell;
      if (row === column) {
        doc.rect(x, y, cell, cell).fill(COLOR.panel);
      } else {
        const pct = value.get(`${row}|${column}`) ?? 0;
        doc.rect(x, y, cell, cell).fill(shade(pct / 100));
        doc.font(FONT.regular).fontSize(6.5).fillColor(pct > 55 ? '#FFFFFF' : COLOR.ink).text(`${Math.round(pct)}%`, x, y + cell / 2 - 3, { width: cell, align: 'center', lineBreak: false });
      }
      doc.rect(x, y, cell, cell).lineWidth(0.5).strokeColor('#FFFFFF').stroke();
    });
  });
  doc.x = LEFT;
  doc.y = top + cell * (codes.length + 1) + 10;
}

function gapRegister(doc: Doc, view: ExportView): void {
  const ordered = gapsByUrgency(view);
  if (!ordered.length) return;
  doc.addPage();
  heading(doc, 'Gap register');
  paragraph(doc, `All ${plural(ordered.length, 'gap')} of the selected frameworks, in the order of the priority section. The xlsx and csv exports carry the findings and full remediation of each.`);
  doc.moveDown(0.5);
  const columns: TableColumn[] = [
    { title: '#', width: 26, align: 'right' },
    { title: 'Framework', width: 52 },
    { title: 'Control', width: 80 },
    { title: 'Title', width: 159 },
    { title: 'Status', width: 84 },
    { title: 'Severity', width: 44 },
    { title: 'Priority', width: 50 },
  ];
  const rows = ordered.map(({ framework, gap }, i) => ({
    cells: [String(i + 1), framework, gap.control.id, gap.control.title, statusLabel(gap.status), capitalize(gap.severity), gap.remediation ? capitalize(gap.remediation.priority) : ''],
    colors: { 4: STATUS_TEXT_COLOR[gap.status], 5: SEVERITY_COLOR[gap.severity ?? 'info'] },
  }));
  table(doc, columns, rows, { fontSize: 7.5, rowHeight: 13 });
}

function method(doc: Doc, view: ExportView): void {
  doc.addPage();
  heading(doc, 'Method and definitions');
  const analysisOptions = view.data.options as { min_confidence?: number; include_resolved?: boolean };
  const items: Array<[string, string]> = scoringMethod({ min_confidence: analysisOptions.min_confidence, include_resolved: analysisOptions.include_resolved === true }).map(
    (section) => [section.title, section.text],
  );
  const scoredWith = view.meta.scoring_version;
  items.push([
    'Versions',
    `Registry ${view.meta.registry_version}, scoring method ${scoredWith}, result format ${view.meta.version}. A change of method changes the scoring version, so results of different versions are not directly comparable.` +
      (scoredWith === SCORING_VERSION ? '' : ` This analysis was scored with method ${scoredWith}; the text above describes method ${SCORING_VERSION}.`),
  ]);
  for (const [title, text] of items) {
    ensure(doc, 60);
    doc.font(FONT.bold).fontSize(10).fillColor(COLOR.navy).text(title, LEFT, doc.y, { width: WIDTH });
    doc.moveDown(0.2);
    doc.font(FONT.regular).fontSize(9).fillColor(COLOR.ink).text(pdfText(text), LEFT, doc.y, { width: WIDTH, lineGap: 1.5 });
    doc.moveDown(0.8);
  }
  if (view.options.frameworks) {
    doc.font(FONT.italic).fontSize(9).fillColor(COLOR.muted).text(
      pdfText(`This report is filtered to ${view.frameworks.join(', ')}; the summary figures are pooled over these frameworks only.`),
      LEFT,
      doc.y,
      { width: WIDTH },
    );
  }
}

/** Running header (after the cover) and footer on every page, once the page count is known. */
function decoratePages(doc: Doc, view: ExportView, header: ExportHeader): void {
  const range = doc.bufferedPageRange();
  const footer = pdfText(`Compliance Signal Registry  ·  registry ${view.meta.registry_version}  ·  scoring ${view.meta.scoring_version}  ·  export format ${header.format_version}`);
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Writing in the margins must not trigger pdfkit's automatic page break.
    const margins = doc.page.margins;
    doc.page.margins = { ...margins, top: 0, bottom: 0 };
    if (i > range.start) {
      doc.font(FONT.bold).fontSize(8).fillColor(COLOR.navy).text('Compliance Gap Analysis', LEFT, 32, { lineBreak: false });
      doc.font(FONT.regular).fontSize(8).fillColor(COLOR.muted).text(view.data.analysis_id, LEFT, 32, { width: WIDTH, align: 'right', lineBreak: false });
      doc.moveTo(LEFT, 45).lineTo(LEFT + WIDTH, 45).lineWidth(0.5).strokeColor(COLOR.rule).stroke();
    }
    const y = PAGE.height - 40;
    doc.moveTo(LEFT, y - 8).lineTo(LEFT + WIDTH, y - 8).lineWidth(0.5).strokeColor(COLOR.rule).stroke();
    doc.font(FONT.regular).fontSize(7.5).fillColor(COLOR.muted).text(footer, LEFT, y, { lineBreak: false });
    doc.text(`Page ${i - range.start + 1} of ${range.count}`, LEFT, y, { width: WIDTH, align: 'right', lineBreak: false });
    doc.page.margins = margins;
  }
}

// ---------------------------------------------------------------- building blocks

interface BlockLine {
  text: string;
  font: string;
  size: number;
  color: string;
  /** Points of space above the line. */
  before?: number;
  indent?: number;
  lineGap?: number;
  characterSpacing?: number;
}

/**
 * A text block with a coloured bar on its left, kept on one page: every line is measured with
 * the same font, width and spacing it is drawn with, so the measure is the drawn height.
 */
function block(doc: Doc, lines: BlockLine[], barColor: string, spaceAfter: number): void {
  const x = LEFT + 14;
  const width = WIDTH - 14;
  const heights = lines.map((line) => {
    doc.font(line.font).fontSize(line.size);
    return doc.heightOfString(pdfText(line.text), { width: width - (line.indent ?? 0), lineGap: line.lineGap ?? 0, characterSpacing: line.characterSpacing ?? 0 });
  });
  const height = lines.reduce((sum, line, i) => sum + (line.before ?? 0) + heights[i], 0);
  ensure(doc, height + spaceAfter);
  const top = doc.y;
  doc.rect(LEFT, top, 3.5, height).fill(barColor);
  let y = top;
  lines.forEach((line, i) => {
    y += line.before ?? 0;
    doc.font(line.font).fontSize(line.size).fillColor(line.color);
    doc.text(pdfText(line.text), x + (line.indent ?? 0), y, { width: width - (line.indent ?? 0), lineGap: line.lineGap ?? 0, characterSpacing: line.characterSpacing ?? 0 });
    y += heights[i];
  });
  doc.x = LEFT;
  doc.y = top + height + spaceAfter;
}

interface TableColumn {
  title: string;
  width: number;
  align?: 'left' | 'right';
}

interface TableRow {
  cells: string[];
  /** Text colour per column index. */
  colors?: Record<number, string | undefined>;
}

/** A ruled table with zebra rows; the header repeats on each page the table continues on. */
function table(doc: Doc, columns: TableColumn[], rows: TableRow[], style: { fontSize: number; rowHeight: number }): void {
  const drawHeader = () => {
    const y = doc.y;
    doc.rect(LEFT, y, WIDTH, style.rowHeight + 2).fill(COLOR.navy);
    let x = LEFT;
    doc.font(FONT.bold).fontSize(style.fontSize).fillColor('#FFFFFF');
    for (const column of columns) {
      cellText(doc, column.title, x + 4, y + (style.rowHeight + 2 - style.fontSize) / 2 + 1, column.width - 8, column.align);
      x += column.width;
    }
    doc.x = LEFT;
    doc.y = y + style.rowHeight + 2;
  };
  ensure(doc, style.rowHeight * 3);
  drawHeader();
  rows.forEach((row, index) => {
    if (doc.y + style.rowHeight > BOTTOM) {
      doc.addPage();
      drawHeader();
    }
    const y = doc.y;
    if (index % 2 === 1) doc.rect(LEFT, y, WIDTH, style.rowHeight).fill(COLOR.panel);
    let x = LEFT;
    columns.forEach((column, c) => {
      const color = row.colors?.[c];
      doc.font(color ? FONT.bold : FONT.regular).fontSize(style.fontSize).fillColor(color ?? COLOR.ink);
      cellText(doc, pdfText(row.cells[c] ?? ''), x + 4, y + (style.rowHeight - style.fontSize) / 2 + 1, column.width - 8, column.align);
      x += column.width;
    });
    doc.moveTo(LEFT, y + style.rowHeight).lineTo(LEFT + WIDTH, y + style.rowHeight).lineWidth(0.3).strokeColor(COLOR.rule).stroke();
    doc.x = LEFT;
    doc.y = y + style.rowHeight;
  });
}

function heading(doc: Doc, text: string): void {
  ensure(doc, 120);
  doc.font(FONT.bold).fontSize(18).fillColor(COLOR.navy).text(text, LEFT, doc.y, { width: WIDTH });
  const y = doc.y + 3;
  doc.rect(LEFT, y, 40, 2.5).fill(COLOR.accent);
  doc.x = LEFT;
  doc.y = y + 12;
}

function subheading(doc: Doc, text: string): void {
  ensure(doc, 40);
  doc.font(FONT.bold).fontSize(11.5).fillColor(COLOR.ink).text(text, LEFT, doc.y, { width: WIDTH });
  doc.moveDown(0.3);
}

function paragraph(doc: Doc, text: string): void {
  doc.font(FONT.regular).fontSize(9.5).fillColor(COLOR.ink).text(pdfText(text), LEFT, doc.y, { width: WIDTH, lineGap: 2 });
}

function label(doc: Doc, text: string, x: number, y: number): void {
  doc.font(FONT.bold).fontSize(8).fillColor(COLOR.muted).text(text, x, y, { characterSpacing: 0.8, lineBreak: false });
}

function legend(doc: Doc, y: number, items: Array<[string, string]>): void {
  let x = LEFT + 62;
  doc.font(FONT.regular).fontSize(7.5);
  for (const [text, color] of items) {
    doc.rect(x, y + 1, 8, 8).fill(color);
    doc.fillColor(COLOR.ink).text(text, x + 12, y + 1.5, { lineBreak: false });
    x += 12 + doc.widthOfString(text) + 16;
  }
  doc.x = LEFT;
  doc.y = y + 16;
}

/** Starts a new page unless `height` points fit above the bottom margin. */
function ensure(doc: Doc, height: number): void {
  if (doc.y + height > BOTTOM) {
    doc.addPage();
    doc.x = LEFT;
  }
}

/**
 * One line of a table cell, cut to its width. Drawn without pdfkit's line wrapper, which would
 * start a new page for a line near the bottom margin even when the row fits.
 */
function cellText(doc: Doc, text: string, x: number, y: number, width: number, align: 'left' | 'right' = 'left'): void {
  const fitted = fit(doc, text, width);
  const offset = align === 'right' ? width - doc.widthOfString(fitted) : 0;
  doc.text(fitted, x + offset, y, { lineBreak: false });
}

/** Cuts a one-line text to `width` points, marking the cut with an ellipsis. */
function fit(doc: Doc, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (doc.widthOfString(`${text.slice(0, mid)}…`) <= width) low = mid;
    else high = mid - 1;
  }
  return `${text.slice(0, low).trimEnd()}…`;
}

/** White to navy by share (0..1), for the synergy matrix. */
function shade(share: number): string {
  const t = Math.max(0, Math.min(1, share));
  const from = [0xf2, 0xf6, 0xfc];
  const to = [0x1f, 0x4e, 0x9a];
  return `#${from.map((f, i) => Math.round(f + (to[i] - f) * t).toString(16).padStart(2, '0')).join('')}`;
}

/** The characters the built-in fonts can show (WinAnsi): Latin-1 plus the cp1252 punctuation. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const REPLACEMENTS: Record<string, string> = { '≥': '>=', '≤': '<=', '→': '->', '←': '<-', '×': 'x', '≠': '!=', '‐': '-', '‑': '-', '−': '-', ' ': ' ', '✓': 'v', Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', ı: 'i' };

/**
 * Text as the built-in Helvetica can draw it: known symbols spelled out, accents kept where
 * Latin-1 has them, anything else replaced by "?" rather than drawn as a wrong glyph.
 */
export function pdfText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if ((code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(char) || char === '\n') out += char;
    else if (REPLACEMENTS[char] !== undefined) out += REPLACEMENTS[char];
    else if (code === 0x09) out += ' ';
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) continue;
    else {
      const base = char.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += base && [...base].every((c) => c.charCodeAt(0) < 0x100) ? base : '?';
    }
  }
  return out;
}

function score(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(1);
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

function dateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 16)} UTC`;
}
