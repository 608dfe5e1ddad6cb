/** The most urgent gaps, each as a block with its findings, signals, remediation and evidence. */
import { gapsByUrgency, statusLabel, type ExportView, type GapResult } from '../model.js';
import { block, COLOR, ensure, FONT, heading, paragraph, plural, SEVERITY_COLOR, STATUS_TEXT_COLOR, type BlockLine, type Doc } from './layout.js';

/** How many gaps get a full block with remediation; the register lists them all. */
export const TOP_GAPS = 15;
/** Remediation steps shown per gap; the csv and xlsx exports carry the full list. */
const STEPS_SHOWN = 5;

export function priorityGaps(doc: Doc, view: ExportView): void {
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
    remediation.steps
      .slice(0, STEPS_SHOWN)
      .forEach((step, i) => lines.push({ text: `${i + 1}. ${step}`, font: FONT.regular, size: 8.5, color: COLOR.ink, indent: 10, before: i === 0 ? 4 : 1.5 }));
    if (remediation.steps.length > STEPS_SHOWN) {
      lines.push({
        text: `and ${remediation.steps.length - STEPS_SHOWN} more steps in the csv and xlsx exports`,
        font: FONT.italic,
        size: 7.5,
        color: COLOR.muted,
        indent: 10,
        before: 1.5,
      });
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
