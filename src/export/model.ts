/**
 * The shared model every export writer reads: a stored analysis narrowed to the selected
 * frameworks (summary re-pooled over them), and flattened into one row per assessed control per
 * framework. Pure: the same stored result and options always give the same rows.
 */
import { storedTally, type AnalysisResult, type Resource } from '../gap/result.js';
import { pooledPosture } from '../gap/scoring.js';
import { bySeverityDescending, type PostureStatus } from '../core/vocabulary.js';
import type { ExportFormat, ResolvedExportOptions } from '../schemas/export.js';

export type AnalysisData = AnalysisResult['data'];
export type AnalysisMeta = AnalysisResult['meta'];
export type FrameworkResult = AnalysisData['by_framework'][string];
export type GapResult = FrameworkResult['gaps'][number];
export type CompliantResult = FrameworkResult['compliant'][number];
export type CommonGap = AnalysisData['cross_framework']['common_gaps'][number];
export type FrameworkSynergy = AnalysisData['cross_framework']['framework_synergies'][number];

/** Evidence items of a control, for analyses stored without include_evidence_requirements. */
export type EvidenceLookup = (framework: string, controlId: string) => readonly string[] | undefined;

/** A framework's controls in the registry, for listing those an analysis did not assess. */
export type ControlCatalogue = (framework: string) => ReadonlyArray<CatalogueControl>;

export interface CatalogueControl {
  id: string;
  title: string;
  category: string;
  /** Signals the registry maps to the control: 0 means no finding could ever assess it. */
  mapped_signals: number;
}

/**
 * Bumped when a column, sheet or field of any export format changes meaning or position.
 * 1.1.0: resources per gap (csv `resources` after `finding_ids`, xlsx Resources column), the
 * Scope and Not assessed sheets, the pdf scope page and not-assessed appendix.
 */
export const EXPORT_FORMAT_VERSION = '1.1.0';

export interface ExportHeader {
  format: ExportFormat;
  format_version: string;
  generated_at: string;
  analysis_id: string;
  account: string;
  filters: { frameworks: string[] | null; include_remediation: boolean; include_evidence: boolean };
}

export function exportHeader(format: ExportFormat, analysisId: string, account: string, generatedAt: string, options: ResolvedExportOptions): ExportHeader {
  return {
    format,
    format_version: EXPORT_FORMAT_VERSION,
    generated_at: generatedAt,
    analysis_id: analysisId,
    account,
    filters: { frameworks: options.frameworks ?? null, include_remediation: options.include_remediation, include_evidence: options.include_evidence },
  };
}

export interface SelectionSummary {
  posture: PostureStatus;
  score: number | null;
  coverage: number;
  controls_total: number;
  controls_assessed: number;
  counts: { compliant: number; partially_compliant: number; non_compliant: number; not_assessed: number };
  critical_gaps: number;
  high_gaps: number;
}

/** A stored analysis seen through the export options. */
export interface ExportView {
  data: AnalysisData;
  meta: AnalysisMeta;
  options: ResolvedExportOptions;
  /** Selected framework codes, in the analysis's order. */
  frameworks: string[];
  /** The summary pooled over the selected frameworks only (the stored one when nothing is filtered). */
  summary: SelectionSummary;
  /** Common gaps that still touch two or more selected frameworks, kept whole (see docs/exports.md). */
  commonGaps: CommonGap[];
  /** Synergies between two selected frameworks. */
  synergies: FrameworkSynergy[];
  /** Evidence items of an assessed control ([] when none are known). */
  evidenceOf(framework: string, controlId: string, gap?: GapResult): readonly string[];
  /** The framework's controls that no finding reached, in natural id order ([] without a catalogue). */
  notAssessed(framework: string): CatalogueControl[];
}

export function parseStoredAnalysis(payload: Uint8Array): { data: AnalysisData; meta: AnalysisMeta } {
  return JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8')) as AnalysisResult;
}

export function exportView(
  stored: { data: AnalysisData; meta: AnalysisMeta },
  options: ResolvedExportOptions,
  lookup?: EvidenceLookup,
  catalogue?: ControlCatalogue,
): ExportView {
  const { data, meta } = stored;
  const all = Object.keys(data.by_framework);
  const wanted = options.frameworks ? new Set(options.frameworks) : undefined;
  const frameworks = wanted ? all.filter((code) => wanted.has(code)) : all;
  const selected = new Set(frameworks);
  const cross = data.cross_framework ?? { common_gaps: [], framework_synergies: [] };
  return {
    data,
    meta,
    options,
    frameworks,
    summary: pooledSummary(frameworks.map((code) => data.by_framework[code].posture)),
    commonGaps: cross.common_gaps.filter((gap) => gap.affects_frameworks.filter((code) => selected.has(code)).length >= 2),
    synergies: cross.framework_synergies.filter((s) => selected.has(s.primary_framework) && selected.has(s.synergy_with)),
    evidenceOf(framework, controlId, gap) {
      return gap?.evidence_requirements ?? lookup?.(framework, controlId) ?? [];
    },
    notAssessed(framework) {
      const section = data.by_framework[framework];
      if (!catalogue || !section) return [];
      const assessed = new Set<string>();
      for (const gap of section.gaps) assessed.add(gap.control.id);
      for (const control of section.compliant) assessed.add(control.control.id);
      return catalogue(framework)
        .filter((control) => !assessed.has(control.id))
        .sort((a, b) => naturalOrder.compare(a.id, b.id));
    },
  };
}

/** Control ids in natural order (A.5.2 before A.5.10), as the analysis lists them. */
const naturalOrder = new Intl.Collator('en', { numeric: true });

/** What an analysis covered, for a report's scope page or sheet. */
export interface ExportScope {
  frameworks: Array<{ code: string; name: string; version: string; controls_total: number; controls_assessed: number }>;
  /** Earliest and latest observed_at of the submitted findings; null when none gave one (or stored before result format 1.1.0). */
  observed_from: string | null;
  observed_to: string | null;
  /** Tools the findings name; empty when none does. */
  sources: string[];
  findings: { submitted: number; analyzed: number; excluded_resolved: number; unmapped: number };
  /** For an analysis of a scanner file: "N of M results were not recognised: …"; null otherwise. */
  not_recognised: string | null;
  analysis_options: { min_confidence?: number; include_resolved?: boolean };
  registry_version: string;
  scoring_version: string;
  result_format_version: string;
}

export function exportScope(view: ExportView): ExportScope {
  const findings = view.data.summary.findings as AnalysisData['summary']['findings'] &
    Partial<{ observed_from: string | null; observed_to: string | null; sources: string[] }>;
  const options = view.data.options as { min_confidence?: number; include_resolved?: boolean };
  return {
    frameworks: view.frameworks.map((code) => {
      const framework = view.data.by_framework[code];
      return {
        code,
        name: framework.name,
        version: framework.version,
        controls_total: framework.posture.controls_total,
        controls_assessed: framework.posture.controls_total - framework.posture.controls_not_assessed,
      };
    }),
    observed_from: findings.observed_from ?? null,
    observed_to: findings.observed_to ?? null,
    sources: findings.sources ?? [],
    findings: { submitted: findings.submitted, analyzed: findings.analyzed, excluded_resolved: findings.excluded_resolved, unmapped: findings.unmapped },
    not_recognised: findings.not_recognised?.message ?? null,
    analysis_options: { min_confidence: options.min_confidence, include_resolved: options.include_resolved },
    registry_version: view.meta.registry_version,
    scoring_version: view.meta.scoring_version,
    result_format_version: view.meta.version,
  };
}

/** "id (type)" for each distinct resource a gap's findings name, in the gap's finding order ([] for results stored before 1.1.0). */
export function gapResources(data: AnalysisData, gap: GapResult): string[] {
  const table = (data as { resources?: Resource[] }).resources;
  if (!table || !gap.resources) return [];
  return gap.resources.map((index) => {
    const { type, id } = table[index];
    return id === undefined ? `(${type})` : type === undefined ? id : `${id} (${type})`;
  });
}

/** The same pooling rule as the analysis summary (docs/scoring.md), over the selected frameworks. */
function pooledSummary(postures: ReadonlyArray<FrameworkResult['posture']>): SelectionSummary {
  const { status, score, coverage, controls_total, controls_assessed, counts, critical_gaps, high_gaps } = pooledPosture(postures.map(storedTally));
  return { posture: status, score, coverage, controls_total, controls_assessed, counts, critical_gaps, high_gaps };
}

export interface RowRemediation {
  priority: string;
  priority_rank: number;
  effort: string;
  guidance: string;
  steps: string[];
}

/** One assessed control of one framework: a gap or a compliant control. */
export interface ControlRow {
  framework: string;
  framework_name: string;
  control_id: string;
  control_title: string;
  category: string;
  status: string;
  /** null for compliant controls (no failing evidence). */
  severity: string | null;
  confidence: number;
  signal_ids: string[];
  finding_ids: string[];
  /** Distinct resources the findings name, "id (type)"; [] for compliant controls (the result traces gaps only). */
  resources: string[];
  /** Only with include_remediation; null when the control has none (compliant, or stored without). */
  remediation?: RowRemediation | null;
  /** Only with include_evidence. */
  evidence?: readonly string[];
}

/** Rows of every selected framework: gaps first (most urgent first, as stored), then compliant controls. */
export function* controlRows(view: ExportView): Generator<ControlRow> {
  for (const code of view.frameworks) {
    const framework = view.data.by_framework[code];
    for (const gap of framework.gaps) yield gapRow(view, code, framework.name, gap);
    for (const control of framework.compliant) yield compliantRow(view, code, framework.name, control);
  }
}

export function gapRow(view: ExportView, code: string, name: string, gap: GapResult): ControlRow {
  const row: ControlRow = {
    framework: code,
    framework_name: name,
    control_id: gap.control.id,
    control_title: gap.control.title,
    category: gap.control.category,
    status: gap.status,
    severity: gap.severity,
    confidence: gap.confidence,
    signal_ids: unique(gap.findings.map((f) => f.signal_id)),
    finding_ids: gap.findings.map((f) => f.finding_id),
    resources: gapResources(view.data, gap),
  };
  if (view.options.include_remediation) {
    const r = gap.remediation;
    row.remediation = r ? { priority: r.priority, priority_rank: r.priority_rank, effort: r.effort, guidance: r.guidance, steps: r.steps } : null;
  }
  if (view.options.include_evidence) row.evidence = view.evidenceOf(code, gap.control.id, gap);
  return row;
}

function compliantRow(view: ExportView, code: string, name: string, control: CompliantResult): ControlRow {
  const row: ControlRow = {
    framework: code,
    framework_name: name,
    control_id: control.control.id,
    control_title: control.control.title,
    category: control.control.category,
    status: control.status,
    severity: null,
    confidence: control.confidence,
    signal_ids: unique(control.validated_by.map((v) => v.signal_id)),
    finding_ids: control.validated_by.map((v) => v.finding_id),
    resources: [],
  };
  if (view.options.include_remediation) row.remediation = null;
  if (view.options.include_evidence) row.evidence = view.evidenceOf(code, control.control.id);
  return row;
}

/** Every gap of the selection, most urgent first: priority rank, then status, severity and framework order. */
export function gapsByUrgency(view: ExportView): Array<{ framework: string; gap: GapResult }> {
  const all = view.frameworks.flatMap((code, order) => view.data.by_framework[code].gaps.map((gap, index) => ({ framework: code, gap, order, index })));
  all.sort(
    (a, b) =>
      (a.gap.remediation?.priority_rank ?? 9) - (b.gap.remediation?.priority_rank ?? 9) ||
      (a.gap.status === 'non_compliant' ? 0 : 1) - (b.gap.status === 'non_compliant' ? 0 : 1) ||
      bySeverityDescending(a.gap.severity, b.gap.severity) ||
      b.gap.findings.length - a.gap.findings.length ||
      a.order - b.order ||
      a.index - b.index,
  );
  return all.map(({ framework, gap }) => ({ framework, gap }));
}

/** Multi-valued cells (ids, steps, evidence) are joined with this in csv and xlsx. */
export const LIST_SEPARATOR = ' | ';

/**
 * Spreadsheet formula injection (OWASP "CSV injection"): a text cell that begins with = + - @
 * can be run as a formula by Excel, LibreOffice or Google Sheets, and so can one where that sign
 * follows leading white space (trimmed on import) or characters that show nothing (zero-width
 * space, joiners, word joiner, direction marks and embeddings, soft hyphen, byte order mark), or
 * is its fullwidth form ＝ ＋ － ＠ (folded to ASCII by East Asian input and by some importers).
 * A cell that begins with a control character (tab, carriage return, line feed, vertical tab,
 * form feed…) is neutralised whatever follows, as the tools differ in what they skip, and xlsx
 * cannot hold most of them at all: written, the vertical tab and form feed vanished and left the
 * sign first. A leading single quote makes the cell text and is what those tools show as the
 * neutral form. The csv and xlsx exports both use this one rule.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters at the start are what this looks for.
const FORMULA_START = /^(?:[\x00-\x1f\x7f]|[\s\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f]*[=+\-@\uff1d\uff0b\uff0d\uff20])/;

export function neutralizeFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** Human words for the enum values shown in pdf and xlsx. */
export const STATUS_LABELS: Record<string, string> = {
  compliant: 'Compliant',
  partially_compliant: 'Partially compliant',
  non_compliant: 'Non-compliant',
  not_assessed: 'Not assessed',
  at_risk: 'At risk',
};

export function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

export function capitalize(word: string | null | undefined): string {
  return word ? word[0].toUpperCase() + word.slice(1) : '';
}

/** Every control of a framework from a registry (or its in-memory gap index), for the not-assessed lists. */
export function registryControls(registry: {
  controls(framework: string): ReadonlyArray<{ id: string; mapped_signals: ReadonlyArray<unknown> }>;
  control(framework: string, id: string): { title: string; category: string } | undefined;
}): ControlCatalogue {
  return (framework) =>
    registry.controls(framework).map((control) => {
      const facts = registry.control(framework, control.id);
      return { id: control.id, title: facts?.title ?? '', category: facts?.category ?? '', mapped_signals: control.mapped_signals.length };
    });
}

/** Evidence items from a registry (or its in-memory gap index), for analyses stored without include_evidence_requirements. */
export function registryEvidence(registry: { control(framework: string, id: string): { evidence?: string[] } | undefined }): EvidenceLookup {
  return (framework, controlId) => registry.control(framework, controlId)?.evidence;
}
