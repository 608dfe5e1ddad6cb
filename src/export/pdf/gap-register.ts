/** The register: every gap of the selection in one table, in the order of the priority section, with the resources its findings name. */
import { capitalize, gapResources, gapsByUrgency, statusLabel, type ExportView } from '../model.js';
import { FONT, heading, listThatFits, paragraph, plural, SEVERITY_COLOR, STATUS_TEXT_COLOR, table, WIDTH, type Doc, type TableColumn } from './layout.js';

export function gapRegister(doc: Doc, view: ExportView): void {
  const ordered = gapsByUrgency(view);
  if (!ordered.length) return;
  doc.addPage();
  heading(doc, 'Gap register');
  paragraph(
    doc,
    `All ${plural(ordered.length, 'gap')} of the selected frameworks, in the order of the priority section. Under each, the resources its findings name ` +
      '(id and artifact type), as many as fit on the line. The xlsx and csv exports carry every resource, the findings and the full remediation of each.',
  );
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
  const style = { fontSize: 7.5, rowHeight: 13 };
  // Measured with the font the table draws the detail line in.
  doc.font(FONT.regular).fontSize(style.fontSize - 1);
  const rows = ordered.map(({ framework, gap }, i) => {
    const resources = gapResources(view.data, gap);
    return {
      cells: [
        String(i + 1),
        framework,
        gap.control.id,
        gap.control.title,
        statusLabel(gap.status),
        capitalize(gap.severity),
        gap.remediation ? capitalize(gap.remediation.priority) : '',
      ],
      colors: { 4: STATUS_TEXT_COLOR[gap.status], 5: SEVERITY_COLOR[gap.severity ?? 'info'] },
      ...(resources.length && { detail: listThatFits(doc, 'Resources: ', resources, WIDTH - columns[0].width - 8, (rest) => ` and ${rest} more`) }),
    };
  });
  table(doc, columns, rows, style);
}
