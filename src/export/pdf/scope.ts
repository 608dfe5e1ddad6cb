/** The scope page: what the analysis covered, so an auditor can place the report in time and source. */
import { exportScope, type ExportView } from '../model.js';
import {
  boundedText,
  COLOR,
  dateTime,
  FONT,
  heading,
  LEFT,
  paragraph,
  pdfText,
  plural,
  subheading,
  table,
  WIDTH,
  type Doc,
  type TableColumn,
} from './layout.js';

export function scopePage(doc: Doc, view: ExportView): void {
  doc.addPage();
  heading(doc, 'Scope');
  const scope = exportScope(view);
  paragraph(
    doc,
    `This report covers ${plural(scope.frameworks.length, 'framework')} at the versions below, assessed from ${plural(scope.findings.submitted, 'submitted finding')} ` +
      `(${scope.findings.analyzed} analysed). Control statuses describe the findings of the period below; they say nothing about controls no finding reached ` +
      '(listed in the appendix "Controls not assessed").',
  );
  doc.moveDown(0.8);
  subheading(doc, 'Frameworks');
  const columns: TableColumn[] = [
    { title: 'Code', width: 60 },
    { title: 'Name', width: 235 },
    { title: 'Version', width: 80 },
    { title: 'Controls', width: 60, align: 'right' },
    { title: 'Assessed', width: 60, align: 'right' },
  ];
  table(
    doc,
    columns,
    scope.frameworks.map((f) => ({ cells: [f.code, f.name, f.version, String(f.controls_total), String(f.controls_assessed)] })),
    { fontSize: 8, rowHeight: 16 },
  );
  doc.moveDown(1.2);
  subheading(doc, 'Findings and method');
  const period =
    scope.observed_from && scope.observed_to
      ? `${dateTime(scope.observed_from)} to ${dateTime(scope.observed_to)}`
      : 'not given by the findings (observed_at absent)';
  const options = scope.analysis_options;
  const rows: Array<[string, string]> = [
    ['Findings observed', period],
    ['Sources', scope.sources.length ? namedSources(scope.sources) : 'not named by the findings'],
    [
      'Findings',
      `${scope.findings.submitted} submitted, ${scope.findings.analyzed} analysed, ${scope.findings.excluded_resolved} resolved left out, ${scope.findings.unmapped} with no mapping`,
    ],
    ...(scope.not_recognised ? ([['Not recognised', scope.not_recognised]] as Array<[string, string]>) : []),
    ['Minimum confidence', options.min_confidence === undefined ? 'as the analysis defaulted' : String(options.min_confidence)],
    ['Resolved findings', options.include_resolved ? 'included as passing evidence' : 'left out'],
    ['Registry version', scope.registry_version],
    ['Scoring version', scope.scoring_version],
    ['Result format', scope.result_format_version],
  ];
  let y = doc.y + 4;
  for (const [name, value] of rows) {
    doc.font(FONT.bold).fontSize(9).fillColor(COLOR.muted).text(name, LEFT, y, { width: 130 });
    doc
      .font(FONT.regular)
      .fontSize(9)
      .fillColor(COLOR.ink)
      .text(pdfText(value), LEFT + 140, y, { width: WIDTH - 140 });
    y = Math.max(doc.y, y + 12) + 5;
  }
  doc.x = LEFT;
  doc.y = y;
}

/** How many tools the scope names; the xlsx and csv exports name them all. */
const SOURCES_NAMED = 10;
/** A tool's name is short; a longer one is cut. */
const SOURCE_NAME_MAX_CHARS = 120;

function namedSources(sources: readonly string[]): string {
  const named = sources.slice(0, SOURCES_NAMED).map((source) => boundedText(source, SOURCE_NAME_MAX_CHARS));
  return sources.length > SOURCES_NAMED ? `${named.join(', ')} and ${sources.length - SOURCES_NAMED} more` : named.join(', ');
}
