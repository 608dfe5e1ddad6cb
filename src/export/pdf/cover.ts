/** The cover: overall posture and score, the report details and the frameworks, a confidentiality note. */
import type { ExportHeader, ExportView } from '../model.js';
import { statusLabel } from '../model.js';
import {
  BOTTOM,
  COLOR,
  dateTime,
  FONT,
  label,
  LEFT,
  PAGE,
  pdfText,
  percent,
  plural,
  score,
  STATUS_COLOR,
  STATUS_TEXT_COLOR,
  WIDTH,
  type Doc,
} from './layout.js';

export function cover(doc: Doc, view: ExportView, header: ExportHeader): void {
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
  doc
    .font(FONT.bold)
    .fontSize(22)
    .fillColor(STATUS_TEXT_COLOR[s.posture] ?? COLOR.ink)
    .text(statusLabel(s.posture), LEFT + 24, badgeY + 32);
  doc
    .font(FONT.regular)
    .fontSize(9)
    .fillColor(COLOR.muted)
    .text(`${s.controls_assessed} of ${s.controls_total} controls assessed (${percent(s.coverage)} coverage)`, LEFT + 24, badgeY + 62);
  label(doc, 'POSTURE SCORE', LEFT + 300, badgeY + 16);
  const scoreText = score(s.score);
  doc
    .font(FONT.bold)
    .fontSize(30)
    .fillColor(COLOR.ink)
    .text(scoreText, LEFT + 300, badgeY + 32, { lineBreak: false });
  const scoreWidth = doc.widthOfString(scoreText);
  doc
    .font(FONT.regular)
    .fontSize(12)
    .fillColor(COLOR.muted)
    .text('/ 100', LEFT + 300 + scoreWidth + 6, badgeY + 46, { lineBreak: false });

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
    doc
      .font(FONT.regular)
      .fontSize(10)
      .fillColor(COLOR.ink)
      .text(pdfText(value), LEFT + 140, y, { width: WIDTH - 140 });
    y += 20;
  }
  doc.font(FONT.bold).fontSize(10).fillColor(COLOR.muted).text('Frameworks', LEFT, y, { width: 130 });
  doc.font(FONT.regular).fontSize(10).fillColor(COLOR.ink);
  for (const code of view.frameworks) {
    doc.text(pdfText(`${code}  ${view.data.by_framework[code].name}`), LEFT + 140, y, { width: WIDTH - 140 });
    y = doc.y + 4;
  }

  const noteY = BOTTOM - 70;
  doc
    .moveTo(LEFT, noteY)
    .lineTo(LEFT + WIDTH, noteY)
    .lineWidth(0.5)
    .strokeColor(COLOR.rule)
    .stroke();
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
