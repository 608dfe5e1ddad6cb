/** The appendix: method and definitions as the scoring model states them, and the controls no finding reached. */
import { SCORING_VERSION, scoringMethod } from '../../gap/scoring.js';
import type { ExportView } from '../model.js';
import { COLOR, ensure, FONT, heading, LEFT, paragraph, pdfText, plural, subheading, table, WIDTH, type Doc, type TableColumn } from './layout.js';

export function method(doc: Doc, view: ExportView): void {
  doc.addPage();
  heading(doc, 'Method and definitions');
  const analysisOptions = view.data.options as { min_confidence?: number; include_resolved?: boolean };
  const items: Array<[string, string]> = scoringMethod({
    min_confidence: analysisOptions.min_confidence,
    include_resolved: analysisOptions.include_resolved === true,
  }).map((section) => [section.title, section.text]);
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
    doc
      .font(FONT.italic)
      .fontSize(9)
      .fillColor(COLOR.muted)
      .text(pdfText(`This report is filtered to ${view.frameworks.join(', ')}; the summary figures are pooled over these frameworks only.`), LEFT, doc.y, {
        width: WIDTH,
      });
  }
}

/**
 * Every control of the selected frameworks that no finding reached, from the registry the service
 * runs (the same registry version as the analysis unless the registry was updated since).
 */
export function notAssessedAppendix(doc: Doc, view: ExportView): void {
  doc.addPage();
  heading(doc, 'Controls not assessed');
  const total = view.frameworks.reduce((sum, code) => sum + view.data.by_framework[code].posture.controls_not_assessed, 0);
  paragraph(
    doc,
    `${plural(total, 'control')} of the selected frameworks ${total === 1 ? 'was' : 'were'} not reached by any finding: the analysis says nothing about ${total === 1 ? 'it' : 'them'}. ` +
      '"Signals" is how many registry signals map to the control; 0 means no scanner finding can assess it and it needs other evidence.',
  );
  const columns: TableColumn[] = [
    { title: 'Control', width: 95 },
    { title: 'Title', width: 250 },
    { title: 'Category', width: 115 },
    { title: 'Signals', width: 35, align: 'right' },
  ];
  for (const code of view.frameworks) {
    const controls = view.notAssessed(code);
    if (!controls.length) continue;
    doc.moveDown(0.8);
    subheading(doc, `${code}  ${view.data.by_framework[code].name} (${controls.length})`);
    table(
      doc,
      columns,
      controls.map((c) => ({ cells: [c.id, c.title, c.category, String(c.mapped_signals)] })),
      { fontSize: 7, rowHeight: 11 },
    );
  }
}
