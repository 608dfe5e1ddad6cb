/**
 * Scanner import end to end, as the worker tasks and the CLI run it: read the file, convert its
 * results, and either answer the findings (POST /v1/findings/import) or run them through the gap
 * analysis every create takes (POST /v1/gap-analysis/import).
 */
import { ApiError, type ErrorCode } from '../core/errors.js';
import { jsonBytes } from '../core/json-body.js';
import { analyzeRequest, type AnalyzeOutput } from '../gap/analyze.js';
import type { AnalysisOptions } from '../gap/engine.js';
import type { Registry } from '../registry/registry.js';
import { GAP_ANALYSIS_LIMITS, type Tier } from '../tiers.js';
import { convertResults } from './convert.js';
import type { ImportResult, ScanFormat } from './model.js';
import type { NotRecognisedResults } from '../schemas/gap-result.js';
import { readScan, UnknownScanFormatError, type FormatChoice } from './read.js';
import { ScanShapeError } from './shape.js';

export interface ImportFindingsTask {
  body: Uint8Array;
  format: FormatChoice;
}

export interface ImportAnalysisTask extends ImportFindingsTask {
  tier: Tier;
  id: string;
  createdAt: string;
  frameworks: string[];
  options: Partial<AnalysisOptions>;
  /** The scope the analysis is filed under (docs/posture.md). */
  scope?: string;
}

/** Errors cross the thread boundary as data, as the analysis's do. */
export type ImportFindingsOutput =
  | { ok: true; payload: Uint8Array }
  | { ok: false; error: { code: ErrorCode; details?: Record<string, unknown>; message: string } };

/** What the import adds to a response: the format detected and the formats looked at. */
export interface ImportMeta {
  format_requested: FormatChoice;
  formats_considered: ScanFormat[];
}

/** A file that does not match its format, or matches none, as the 400 scan_unreadable. */
function unreadable(error: ScanShapeError | UnknownScanFormatError, requested: FormatChoice): ApiError {
  if (error instanceof UnknownScanFormatError) {
    return new ApiError(
      'scan_unreadable',
      { format: null, format_requested: requested, formats_considered: error.considered, reason: error.reason },
      { message: `The file matches none of the scanner formats considered (${error.considered.join(', ')}): ${error.reason}` },
    );
  }
  const where = error.where;
  const place = 'pointer' in where ? `at ${where.pointer || '/'} ` : 'line' in where ? `line ${where.line} ` : '';
  const found = error.found === undefined ? {} : { found: error.found };
  return new ApiError(
    'scan_unreadable',
    { format: error.format, format_requested: requested, ...where, reason: error.reason, ...found },
    { message: `The file cannot be read as ${error.format ?? 'JSON'}: ${place}${error.reason}` },
  );
}

/** Reads and converts a scanner file; throws ApiError (scan_unreadable, json_too_deep). */
export function convertScan(registry: Registry, body: Uint8Array, format: FormatChoice): { result: ImportResult; meta: ImportMeta } {
  let read;
  try {
    read = readScan(body, format);
  } catch (error) {
    if (error instanceof ScanShapeError || error instanceof UnknownScanFormatError) throw unreadable(error, format);
    throw error;
  }
  return { result: convertResults(registry, read), meta: { format_requested: format, formats_considered: read.considered } };
}

function asOutput(error: unknown): { ok: false; error: { code: ErrorCode; details?: Record<string, unknown>; message: string } } {
  if (error instanceof ApiError) return { ok: false, error: { code: error.code, details: error.details, message: error.message } };
  throw error;
}

export function importFindings(registry: Registry, task: ImportFindingsTask): ImportFindingsOutput {
  try {
    const { result, meta } = convertScan(registry, task.body, task.format);
    // More findings than one analysis takes are of no use to its client: listed up to that many, all counted in summary.findings.
    const findings = result.findings.length > FINDINGS_LISTED ? result.findings.slice(0, FINDINGS_LISTED) : result.findings;
    return { ok: true, payload: jsonBytes({ data: { ...result, findings }, meta: { ...meta, registry_version: registry.manifest.registry_version } }) };
  } catch (error) {
    return asOutput(error);
  }
}

/** The most findings POST /v1/findings/import lists: the most one analysis takes (Enterprise). */
export const FINDINGS_LISTED = Math.max(...Object.values(GAP_ANALYSIS_LIMITS).map((limits) => limits.maxFindings));

/** How many rule ids the "not recognised" line names; the rest are counted. */
export const NOT_RECOGNISED_LISTED = 20;

/**
 * The file's results whose rule resolved to no signal, as the analysis summary and the exports
 * state them ("N of M results were not recognised: …"); undefined when every result was.
 */
export function notRecognisedOf(result: ImportResult): NotRecognisedResults | undefined {
  const { unmapped: count, results } = result.summary;
  if (!count) return undefined;
  const ruleIds = result.unmapped.slice(0, NOT_RECOGNISED_LISTED).map((rule) => rule.rule_id);
  const more = Math.max(0, result.summary.unmapped_rules - ruleIds.length);
  const message = `${count} of ${results} results were not recognised: ${ruleIds.join(', ')}${more ? ` and ${more} more rule${more === 1 ? '' : 's'}` : ''}`;
  return { results: count, of: results, rule_ids: ruleIds, more, message };
}

/**
 * Converts the file and analyses its findings as POST /v1/gap-analysis would a request of them:
 * same validation (tier limits on the converted findings), same engine, same result, plus
 * `meta.import` (the summary and the unmapped rules).
 */
export function importAnalysis(registry: Registry, task: ImportAnalysisTask): AnalyzeOutput {
  let converted;
  try {
    converted = convertScan(registry, task.body, task.format);
  } catch (error) {
    return asOutput(error);
  }
  const { result, meta } = converted;
  const notRecognised = notRecognisedOf(result);
  const importMeta = {
    import: {
      format: result.format,
      tool: result.tool,
      tool_version: result.tool_version,
      ...meta,
      summary: result.summary,
      unmapped: result.unmapped,
      ...(notRecognised && { not_recognised: notRecognised }),
    },
  };
  return analyzeRequest(
    registry,
    task,
    () => ({ frameworks: task.frameworks, findings: result.findings, options: task.options, ...(task.scope !== undefined && { scope: task.scope }) }),
    importMeta,
  );
}
