/**
 * The pdf export (pdfkit; built-in Helvetica, and an embedded Unicode font for names Helvetica
 * cannot draw): a report a compliance lead can hand to an auditor. Cover; scope (frameworks and
 * versions, the findings' period and sources); executive summary with key figures, a bar chart of
 * posture score per framework and a stacked bar of control statuses per framework (vector
 * graphics); the framework table; the most urgent gaps with remediation; cross-framework insights
 * (common gaps, synergy matrix); a register of every gap with the resources its findings name;
 * method and definitions; the controls not assessed. Every page after the cover has a running
 * header, and every page a footer with the registry, scoring and export versions and "Page x of y".
 * Rendered in a pool worker. One file per page kind; layout.ts holds what they share.
 */
import PDFDocument from 'pdfkit';
import type { ExportHeader, ExportView } from '../model.js';
import { method, notAssessedAppendix } from './appendix.js';
import { cover } from './cover.js';
import { crossFramework } from './cross-framework.js';
import { gapRegister } from './gap-register.js';
import { COLOR, drawAnyScript, FONT, LEFT, MARGIN, PAGE, pdfText, WIDTH, type Doc } from './layout.js';
import { priorityGaps } from './priority-gaps.js';
import { scopePage } from './scope.js';
import { executiveSummary, frameworkTable } from './summary.js';

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

  drawAnyScript(doc);
  cover(doc, view, header);
  scopePage(doc, view);
  executiveSummary(doc, view);
  frameworkTable(doc, view);
  priorityGaps(doc, view);
  crossFramework(doc, view);
  gapRegister(doc, view);
  method(doc, view);
  notAssessedAppendix(doc, view);
  decoratePages(doc, view, header);

  doc.end();
  return done;
}

/** Running header (after the cover) and footer on every page, once the page count is known. */
function decoratePages(doc: Doc, view: ExportView, header: ExportHeader): void {
  const range = doc.bufferedPageRange();
  const footer = pdfText(
    `Compliance Signal Registry  ·  registry ${view.meta.registry_version}  ·  scoring ${view.meta.scoring_version}  ·  export format ${header.format_version}`,
  );
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Writing in the margins must not trigger pdfkit's automatic page break.
    const margins = doc.page.margins;
    doc.page.margins = { ...margins, top: 0, bottom: 0 };
    if (i > range.start) {
      doc.font(FONT.bold).fontSize(8).fillColor(COLOR.navy).text('Compliance Gap Analysis', LEFT, 32, { lineBreak: false });
      doc.font(FONT.regular).fontSize(8).fillColor(COLOR.muted).text(view.data.analysis_id, LEFT, 32, { width: WIDTH, align: 'right', lineBreak: false });
      doc
        .moveTo(LEFT, 45)
        .lineTo(LEFT + WIDTH, 45)
        .lineWidth(0.5)
        .strokeColor(COLOR.rule)
        .stroke();
    }
    const y = PAGE.height - 40;
    doc
      .moveTo(LEFT, y - 8)
      .lineTo(LEFT + WIDTH, y - 8)
      .lineWidth(0.5)
      .strokeColor(COLOR.rule)
      .stroke();
    doc.font(FONT.regular).fontSize(7.5).fillColor(COLOR.muted).text(footer, LEFT, y, { lineBreak: false });
    doc.text(`Page ${i - range.start + 1} of ${range.count}`, LEFT, y, { width: WIDTH, align: 'right', lineBreak: false });
    doc.page.margins = margins;
  }
}
