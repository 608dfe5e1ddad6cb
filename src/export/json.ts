/**
 * The json export: the stored result (both variants, as GET :id returns it) under an `export`
 * header. Streamed in pieces; when no option changes the stored content the stored bytes are
 * sent as they are, without parsing them.
 */
import { coalesce, STREAM_CHUNK_BYTES } from './chunks.js';
import { exportView, parseStoredAnalysis, type EvidenceLookup, type ExportHeader, type ExportView } from './model.js';
import type { ResolvedExportOptions } from '../schemas/export.js';

/** Nesting depth down to which the writer emits pieces; deeper values (one gap, one control) are stringified whole. */
const PIECE_DEPTH = 5;

const EVIDENCE_KEY = Buffer.from('"evidence_requirements":');

export function jsonExport(payload: Buffer, header: ExportHeader, options: ResolvedExportOptions, lookup?: EvidenceLookup): AsyncIterable<Buffer> {
  const opening = `{"export":${JSON.stringify(header)},`;
  if (storedAsIs(payload, options)) return coalesce(verbatim(opening, payload));
  // Parse now, before the response starts: a fault here is still an ordinary 500.
  const view = exportView(parseStoredAnalysis(payload), options, lookup);
  return coalesce(transformed(opening, view));
}

/**
 * True when the options would not change the stored result: no framework filter, remediation
 * kept, evidence not asked for and absent. A key followed by `":` cannot occur inside a JSON
 * string (its quote would be escaped), so the byte search is exact.
 */
function storedAsIs(payload: Buffer, options: ResolvedExportOptions): boolean {
  return !options.frameworks && options.include_remediation && !options.include_evidence && payload[0] === 0x7b && payload.indexOf(EVIDENCE_KEY) === -1;
}

function* verbatim(opening: string, payload: Buffer): Generator<Buffer | string> {
  yield opening;
  // Slices are views of the stored buffer: no copy beyond what the socket buffers.
  for (let offset = 1; offset < payload.length; offset += STREAM_CHUNK_BYTES) yield payload.subarray(offset, offset + STREAM_CHUNK_BYTES);
}

function* transformed(opening: string, view: ExportView): Generator<string> {
  yield opening.slice(0, -1);
  yield* pieces({ data: filteredData(view), meta: view.meta }, PIECE_DEPTH, true);
}

/** JSON text of `value` in pieces, as JSON.stringify would write it (undefined members skipped). */
function* pieces(value: unknown, depth: number, continuing = false): Generator<string> {
  if (depth === 0 || value === null || typeof value !== 'object') {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      yield* pieces(value[i], depth - 1);
    }
    yield ']';
    return;
  }
  // `continuing`: the opening brace was already written (the export header's object).
  let first = !continuing;
  if (!continuing) yield '{';
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined) continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* pieces(member, depth - 1);
  }
  yield '}';
}

/** The stored data narrowed to the selection, with remediation and evidence as the options say. */
function filteredData(view: ExportView) {
  const { data, options, summary } = view;
  const selected = new Set(view.frameworks);
  const filtered = Boolean(options.frameworks);
  const withOptions = <G extends { control: { id: string }; remediation?: unknown; evidence_requirements?: string[] }>(code: string, gap: G) => {
    const { remediation, evidence_requirements, ...rest } = gap;
    return {
      ...rest,
      ...(options.include_remediation && remediation !== undefined && { remediation }),
      ...(options.include_evidence && { evidence_requirements: evidence_requirements ?? [...view.evidenceOf(code, gap.control.id)] }),
    };
  };
  const crossFramework = { common_gaps: view.commonGaps, framework_synergies: view.synergies };
  return {
    ...data,
    summary: filtered
      ? {
          overall_posture: summary.posture,
          posture_score: summary.score,
          coverage: summary.coverage,
          total_controls: summary.controls_total,
          total_controls_assessed: summary.controls_assessed,
          controls_by_status: summary.counts,
          critical_gaps: summary.critical_gaps,
          high_risk_gaps: summary.high_gaps,
          findings: data.summary.findings,
        }
      : data.summary,
    posture: filtered ? { status: summary.posture, score: summary.score } : data.posture,
    frameworks: data.frameworks
      .filter((framework) => selected.has(framework.code))
      .map((framework) => ({ ...framework, gaps: framework.gaps.map((gap) => withOptions(framework.code, gap)) })),
    by_framework: Object.fromEntries(
      view.frameworks.map((code) => {
        const framework = data.by_framework[code];
        return [
          code,
          {
            ...framework,
            gaps: framework.gaps.map((gap) => withOptions(code, gap)),
            compliant: framework.compliant.map((control) => ({
              ...control,
              ...(options.include_evidence && { evidence_requirements: [...view.evidenceOf(code, control.control.id)] }),
            })),
          },
        ];
      }),
    ),
    cross_framework_insights: { common_gaps: crossFramework.common_gaps },
    cross_framework: crossFramework,
  };
}
