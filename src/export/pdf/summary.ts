/** The executive summary: key figures, a paragraph, the score and status charts, the framework table. */
import { AT_RISK_SCORE, COMPLIANT_SCORE } from '../../gap/scoring.js';
import { statusLabel, type ExportView } from '../model.js';
import {
  ensure,
  FONT,
  heading,
  legend,
  LEFT,
  COLOR,
  paragraph,
  percent,
  plural,
  score,
  SEVERITY_COLOR,
  STATUS_COLOR,
  STATUS_TEXT_COLOR,
  subheading,
  table,
  WIDTH,
  type Doc,
  type TableColumn,
} from './layout.js';

export function executiveSummary(doc: Doc, view: ExportView): void {
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
    doc
      .font(FONT.bold)
      .fontSize(20)
      .fillColor(tile.color)
      .text(tile.value, x + 10, tileY + 12, { width: tileWidth - 20 });
    doc
      .font(FONT.regular)
      .fontSize(8)
      .fillColor(COLOR.muted)
      .text(tile.caption, x + 10, tileY + 38, { width: tileWidth - 20 });
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
      (view.commonGaps.length
        ? `; ${plural(view.commonGaps.length, 'weakness', 'weaknesses')} open gaps in more than one framework, where one fix counts several times.`
        : '.'),
  );
  // An analysis of a scanner file says what of the file it could not read into findings.
  const notRecognised = view.data.summary.findings.not_recognised;
  if (notRecognised) paragraph(doc, `${notRecognised.message}.`);
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
    doc
      .font(FONT.bold)
      .fontSize(8)
      .fillColor(COLOR.ink)
      .text(code, LEFT, y + (barHeight - 8) / 2 + 1, { width: labelWidth - 8, align: 'right', lineBreak: false });
    doc.rect(plotX, y, plotWidth, barHeight).fill(COLOR.track);
    const value = posture.score ?? 0;
    // A score of 0 still shows its posture colour as a stub; "not assessed" (no score) shows none.
    if (posture.score !== null) doc.rect(plotX, y, Math.max(2, (plotWidth * value) / 100), barHeight).fill(STATUS_COLOR[posture.status] ?? COLOR.accent);
    doc
      .font(FONT.regular)
      .fontSize(8)
      .fillColor(COLOR.ink)
      .text(score(posture.score), plotX + plotWidth + 6, y + (barHeight - 8) / 2 + 1, { width: valueWidth - 6, lineBreak: false });
  });
  // Thresholds over the bars: the posture bands of docs/scoring.md.
  for (const [threshold, text] of [
    [AT_RISK_SCORE, `at risk from ${AT_RISK_SCORE}`],
    [COMPLIANT_SCORE, `compliant from ${COMPLIANT_SCORE}`],
  ] as const) {
    const x = plotX + (plotWidth * threshold) / 100;
    doc
      .save()
      .moveTo(x, top - 4)
      .lineTo(x, top + height)
      .dash(2.5, { space: 2 })
      .lineWidth(0.8)
      .strokeColor(COLOR.ink)
      .strokeOpacity(0.55)
      .stroke()
      .restore();
    doc
      .font(FONT.regular)
      .fontSize(7)
      .fillColor(COLOR.muted)
      .text(text, x - 40, top - 13, { width: 80, align: 'center', lineBreak: false });
  }
  // Axis.
  const axisY = top + height + 3;
  doc
    .moveTo(plotX, axisY)
    .lineTo(plotX + plotWidth, axisY)
    .lineWidth(0.5)
    .strokeColor(COLOR.rule)
    .stroke();
  for (let tick = 0; tick <= 100; tick += 20) {
    const x = plotX + (plotWidth * tick) / 100;
    doc
      .moveTo(x, axisY)
      .lineTo(x, axisY + 3)
      .stroke();
    doc
      .font(FONT.regular)
      .fontSize(7)
      .fillColor(COLOR.muted)
      .text(String(tick), x - 12, axisY + 5, { width: 24, align: 'center' });
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
    doc
      .font(FONT.bold)
      .fontSize(8)
      .fillColor(COLOR.ink)
      .text(code, LEFT, y + (barHeight - 8) / 2 + 1, { width: labelWidth - 8, align: 'right', lineBreak: false });
    let x = plotX;
    for (const [field, status] of segments) {
      const count = posture[field];
      if (!count || !posture.controls_total) continue;
      const width = (plotWidth * count) / posture.controls_total;
      doc.rect(x, y, width, barHeight).fill(STATUS_COLOR[status]);
      const text = String(count);
      doc.font(FONT.bold).fontSize(7);
      if (width > doc.widthOfString(text) + 6) {
        doc
          .fillColor(status === 'not_assessed' || status === 'partially_compliant' ? COLOR.ink : '#FFFFFF')
          .text(text, x, y + (barHeight - 7) / 2 + 1, { width, align: 'center', lineBreak: false });
      }
      x += width;
    }
    const assessed = posture.controls_total - posture.controls_not_assessed;
    doc
      .font(FONT.regular)
      .fontSize(7)
      .fillColor(COLOR.muted)
      .text(`${assessed} of ${posture.controls_total} assessed`, plotX + plotWidth + 6, y + (barHeight - 7.5) / 2 + 1, {
        width: valueWidth - 6,
        lineBreak: false,
      });
  });
  legend(doc, top + view.frameworks.length * rowHeight + 4, [
    ['Compliant', STATUS_COLOR.compliant],
    ['Partially compliant', STATUS_COLOR.partially_compliant],
    ['Non-compliant', STATUS_COLOR.non_compliant],
    ['Not assessed', STATUS_COLOR.not_assessed],
  ]);
}

export function frameworkTable(doc: Doc, view: ExportView): void {
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
      cells: [
        code,
        framework.name,
        statusLabel(p.status),
        score(p.score),
        percent(p.coverage),
        p.controls_compliant,
        p.controls_partial,
        p.controls_non_compliant,
        p.controls_not_assessed,
        p.critical_gaps,
        p.high_gaps,
      ].map(String),
      colors: { 2: STATUS_TEXT_COLOR[p.status] },
    };
  });
  table(doc, columns, rows, { fontSize: 8, rowHeight: 16 });
}
