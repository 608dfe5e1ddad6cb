/** The register: every gap of the selection in one table, in the order of the priority section. */
import { capitalize, gapsByUrgency, statusLabel, type ExportView } from '../model.js';
import { heading, paragraph, plural, SEVERITY_COLOR, STATUS_TEXT_COLOR, table, type Doc, type TableColumn } from './layout.js';

export function gapRegister(doc: Doc, view: ExportView): void {
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
