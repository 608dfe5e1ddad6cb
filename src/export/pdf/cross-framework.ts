/** Cross-framework insights: the widest common gaps and the synergy matrix. */
import type { ExportView } from '../model.js';
import { block, COLOR, ensure, FONT, heading, LEFT, paragraph, plural, subheading, WIDTH, type Doc } from './layout.js';

/** How many common gaps the insights section details. */
export const TOP_COMMON_GAPS = 8;

export function crossFramework(doc: Doc, view: ExportView): void {
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
          {
            text: `${common.affects_frameworks.join(', ')}  ·  ${plural(common.controls_affected.length, 'control')}`,
            font: FONT.regular,
            size: 8,
            color: COLOR.accent,
            before: 2,
          },
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
  doc
    .font(FONT.regular)
    .fontSize(8)
    .fillColor(COLOR.muted)
    .text(
      "Share of each row framework's mapped controls that share a signal with the column framework: evidence collected for one supports the other.",
      LEFT,
      doc.y,
      { width: WIDTH },
    );
  const top = doc.y + 8;
  const value = new Map(view.synergies.map((s) => [`${s.primary_framework}|${s.synergy_with}`, s.overlap_percentage]));
  codes.forEach((code, i) => {
    const x = LEFT + labelWidth + i * cell;
    doc
      .font(FONT.bold)
      .fontSize(6.5)
      .fillColor(COLOR.ink)
      .text(code, x, top + cell / 2 - 3, { width: cell, align: 'center', lineBreak: false });
  });
  codes.forEach((row, r) => {
    const y = top + cell * (r + 1);
    doc
      .font(FONT.bold)
      .fontSize(7.5)
      .fillColor(COLOR.ink)
      .text(row, LEFT, y + cell / 2 - 3.5, { width: labelWidth - 8, align: 'right', lineBreak: false });
    codes.forEach((column, c) => {
      const x = LEFT + labelWidth + c * cell;
      if (row === column) {
        doc.rect(x, y, cell, cell).fill(COLOR.panel);
      } else {
        const pct = value.get(`${row}|${column}`) ?? 0;
        doc.rect(x, y, cell, cell).fill(shade(pct / 100));
        doc
          .font(FONT.regular)
          .fontSize(6.5)
          .fillColor(pct > 55 ? '#FFFFFF' : COLOR.ink)
          .text(`${Math.round(pct)}%`, x, y + cell / 2 - 3, { width: cell, align: 'center', lineBreak: false });
      }
      doc.rect(x, y, cell, cell).lineWidth(0.5).strokeColor('#FFFFFF').stroke();
    });
  });
  doc.x = LEFT;
  doc.y = top + cell * (codes.length + 1) + 10;
}

/** White to navy by share (0..1), for the synergy matrix. */
function shade(share: number): string {
  const t = Math.max(0, Math.min(1, share));
  const from = [0xf2, 0xf6, 0xfc];
  const to = [0x1f, 0x4e, 0x9a];
  return `#${from
    .map((f, i) =>
      Math.round(f + (to[i] - f) * t)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}
