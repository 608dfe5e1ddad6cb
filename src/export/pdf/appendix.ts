/** The appendix: method and definitions, as the scoring model states them. */
import { SCORING_VERSION, scoringMethod } from '../../gap/scoring.js';
import type { ExportView } from '../model.js';
import { COLOR, ensure, FONT, heading, LEFT, pdfText, WIDTH, type Doc } from './layout.js';

export function method(doc: Doc, view: ExportView): void {
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
