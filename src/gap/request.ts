import { ApiError } from '../core/errors.js';
import { parseJsonBody } from '../core/json-body.js';
import { echoedValue, firstProblemOf, invalidParameterOf, valueAtPointer } from '../core/validation.js';
import { AnalysisRequestEnvelope, FindingInput } from '../schemas/gap.js';
import { GAP_ANALYSIS_LIMITS, type Tier } from '../tiers.js';
import type { AnalysisOptions, Finding } from './engine.js';

export interface ValidatedAnalysisRequest {
  findings: Finding[];
  frameworks: string[];
  options: AnalysisOptions;
  /** The scope the caller filed the analysis under (docs/posture.md), if any. */
  scope?: string;
}

export interface RequestRegistry {
  resolveFrameworkCode(input: string): string | undefined;
  gapFrameworkCodes(): string[];
  signal(id: string): unknown;
  /** The account's own framework a code names (any case), if any: docs/custom-frameworks.md. */
  customFrameworkCode?(input: string): string | undefined;
  /** The codes of the account's own frameworks, for the list of valid codes. */
  customFrameworkCodes?(): string[];
}

/**
 * Checks a create request against its declared schema (src/schemas/gap.ts) in the order that
 * costs least first (docs/lifecycle.md): the request with findings unchecked (shape, frameworks
 * given, options) → framework codes → tier limits → each finding → signal ids.
 */
export function validateAnalysisRequest(raw: Uint8Array, tier: Tier, registry: RequestRegistry): ValidatedAnalysisRequest {
  return validateAnalysisBody(parseJsonBody(raw), tier, registry);
}

/** The same checks over a request already in memory (scanner import assembles one from a file). */
export function validateAnalysisBody(body: unknown, tier: Tier, registry: RequestRegistry): ValidatedAnalysisRequest {
  notAnalysisShaped(body);
  const problem = firstProblemOf(AnalysisRequestEnvelope, body);
  if (problem) {
    const error = invalidParameterOf(problem, valueAtPointer(body, problem.pointer));
    // A caller who got the frameworks wrong is best helped by the list of right ones.
    if (problem.parameter.startsWith('frameworks')) error.details!.valid_values = registry.gapFrameworkCodes();
    throw error;
  }
  const { findings, frameworks, options, scope } = body as { findings: unknown[]; frameworks: string[]; options: AnalysisOptions; scope?: string };

  const gapCodes = registry.gapFrameworkCodes();
  const resolved: string[] = [];
  const unknown: string[] = [];
  // The registry lists frameworks it maps signals to but does not assess (gap_analysis: false in GET /v1/frameworks).
  const listedOnly: string[] = [];
  for (const code of frameworks) {
    const builtIn = registry.resolveFrameworkCode(code);
    const canonical = builtIn && gapCodes.includes(builtIn) ? builtIn : builtIn === undefined ? registry.customFrameworkCode?.(code) : undefined;
    if (builtIn && !canonical) listedOnly.push(code);
    if (!canonical) unknown.push(code);
    else if (!resolved.includes(canonical)) resolved.push(canonical);
  }
  if (unknown.length) {
    const validCodes = [...gapCodes, ...(registry.customFrameworkCodes?.() ?? [])];
    const details = { frameworks: unknown, valid_codes: validCodes, ...(listedOnly.length && { listed_for_lookup: listedOnly }) };
    const others = unknown.filter((code) => !listedOnly.includes(code));
    const message = [
      listedOnly.length &&
        `${listedOnly.join(', ')} ${listedOnly.length === 1 ? 'is' : 'are'} listed for lookup only (GET /v1/frameworks marks ${listedOnly.length === 1 ? 'it' : 'them'} gap_analysis: false): signals map to ${listedOnly.length === 1 ? 'its' : 'their'} controls, but gap analysis does not assess ${listedOnly.length === 1 ? 'it' : 'them'}.`,
      others.length && `Unknown framework code(s): ${others.join(', ')}.`,
      `Gap analysis supports ${validCodes.join(', ')}.`,
    ]
      .filter(Boolean)
      .join(' ');
    throw new ApiError('GAP_FRAMEWORK_NOT_FOUND', details, { message });
  }

  const limits = GAP_ANALYSIS_LIMITS[tier];
  if (resolved.length > limits.maxFrameworks) throw new ApiError('GAP_TOO_MANY_FRAMEWORKS', { count: resolved.length, limit: limits.maxFrameworks, tier });
  if (findings.length > limits.maxFindings) throw new ApiError('GAP_TOO_MANY_FINDINGS', { count: findings.length, limit: limits.maxFindings, tier });

  const firstIndexOfId = new Map<string, number>();
  const validated: Finding[] = new Array(findings.length);
  for (let index = 0; index < findings.length; index++) {
    const finding = findings[index];
    const findingProblem = firstProblemOf(FindingInput, finding);
    if (findingProblem) {
      const pointer = `/findings/${index}${findingProblem.pointer}`;
      throw new ApiError('GAP_INVALID_FINDING', { index, pointer, reason: `${findingProblem.parameter || 'finding'} ${findingProblem.reason}` });
    }
    const value = finding as Finding & { status?: Finding['status'] };
    const first = firstIndexOfId.get(value.id);
    if (first !== undefined) {
      throw new ApiError('GAP_INVALID_FINDING', {
        index,
        pointer: `/findings/${index}/id`,
        reason: `duplicate finding id ${value.id} (first used at index ${first})`,
      });
    }
    firstIndexOfId.set(value.id, index);
    // The parsed body is ours alone: default a missing status in place rather than copy the finding.
    value.status ??= 'open';
    validated[index] = value;
  }

  const unknownSignals = [...new Set(validated.filter((f) => registry.signal(f.signal_id) === undefined).map((f) => f.signal_id))];
  if (unknownSignals.length) {
    // Up to 10,000 findings may each name another unknown id: the answer names the first ones and counts them all.
    const named = unknownSignals.slice(0, UNKNOWN_SIGNALS_NAMED);
    const more = unknownSignals.length - named.length;
    throw new ApiError(
      'GAP_SIGNAL_NOT_FOUND',
      { signal_ids: named, count: unknownSignals.length },
      { message: `Unknown signal id(s): ${named.join(', ')}${more ? ` and ${more} more` : ''}` },
    );
  }

  return { findings: validated, frameworks: resolved, options, ...(scope !== undefined && { scope }) };
}

/** How many unknown signal ids GAP_SIGNAL_NOT_FOUND names; `count` counts them all. */
const UNKNOWN_SIGNALS_NAMED = 100;

/** Where a scanner's own output file goes, and the shape an analysis request has. */
const IMPORT_ROUTE = 'POST /v1/gap-analysis/import?format=auto&frameworks=…';
const REQUEST_SHAPE = '{"frameworks": ["HIPAA", …], "findings": [{"id", "signal_id", "status"…}, …]}';

/**
 * Refuses, saying what to send instead, a body that is not an analysis request at all: a bare
 * list of findings, or an object with neither frameworks nor findings (a scanner's output file,
 * most likely). The schema alone answered "(body): must be object" or "frameworks is required".
 */
function notAnalysisShaped(body: unknown): void {
  const refuse = (reason: string) => {
    throw new ApiError('invalid_parameter', { parameter: '(body)', value: echoedValue(body), reason }, { message: `The body ${reason}` });
  };
  if (Array.isArray(body)) {
    const findingsLike = body.length > 0 && body.every((item) => item !== null && typeof item === 'object' && 'signal_id' in item);
    refuse(
      findingsLike
        ? `is a bare list of findings: wrap it in ${'{"frameworks": [...], "findings": <this list>}'}`
        : `is an array, not a gap-analysis request: send ${REQUEST_SHAPE}, or a scanner's output file to ${IMPORT_ROUTE}`,
    );
  }
  if (body !== null && typeof body === 'object' && !('frameworks' in body) && !('findings' in body)) {
    refuse(
      `has neither frameworks nor findings, so it is not a gap-analysis request: send ${REQUEST_SHAPE}, or a scanner's output file as it is to ${IMPORT_ROUTE}`,
    );
  }
}
