import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Type } from '@sinclair/typebox';
import { ApiError, invalidParameter } from '../core/errors.js';
import { parseJsonBody } from '../core/json-body.js';
import { AnalysisOptionsInput, FindingInput } from '../schemas/gap.js';
import { GAP_ANALYSIS_LIMITS, type Tier } from '../tiers.js';
import type { AnalysisOptions, Finding } from './engine.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
const ajv = new Ajv({ useDefaults: true, strict: false, allErrors: false });
addFormats(ajv);
const checkFinding: ValidateFunction = ajv.compile(FindingInput);
const checkOptions: ValidateFunction = ajv.compile(Type.Partial(AnalysisOptionsInput, { additionalProperties: false }));

export interface ValidatedAnalysisRequest {
  findings: Finding[];
  frameworks: string[];
  options: AnalysisOptions;
}

export interface RequestRegistry {
  resolveFrameworkCode(input: string): string | undefined;
  gapFrameworkCodes(): string[];
  signal(id: string): unknown;
}

/**
 * Validates a create request in the order that costs least first (docs/gap-analysis.md):
 * shape and options → framework codes → tier limits → each finding → signal ids.
 */
export function validateAnalysisRequest(raw: Uint8Array, tier: Tier, registry: RequestRegistry): ValidatedAnalysisRequest {
  const body = parseJsonBody(raw);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidParameter('(body)', null, { reason: 'must be a JSON object with findings and frameworks' });
  const { findings, frameworks, options, ...unknownFields } = body as Record<string, unknown>;
  const [unknownField] = Object.keys(unknownFields);
  if (unknownField !== undefined) throw invalidParameter(unknownField, unknownFields[unknownField], { reason: 'is not a recognised field (expected findings, frameworks, options)' });

  const optionValues = options === undefined ? {} : options;
  if (optionValues === null || typeof optionValues !== 'object' || Array.isArray(optionValues)) throw invalidParameter('options', options, { reason: 'must be an object' });
  if (!checkOptions(optionValues)) {
    const error = checkOptions.errors![0];
    const field = error.keyword === 'additionalProperties' ? (error.params as { additionalProperty: string }).additionalProperty : error.instancePath.slice(1);
    throw invalidParameter(`options.${field}`, (optionValues as Record<string, unknown>)[field], {
      reason: error.keyword === 'additionalProperties' ? 'is not a recognised option' : error.message ?? 'is invalid',
    });
  }

  if (!Array.isArray(frameworks) || frameworks.length === 0 || frameworks.some((f) => typeof f !== 'string')) {
    throw invalidParameter('frameworks', frameworks ?? null, { reason: 'must be a non-empty array of framework codes', valid_values: registry.gapFrameworkCodes() });
  }
  const gapCodes = registry.gapFrameworkCodes();
  const resolved: string[] = [];
  const unknown: string[] = [];
  for (const code of frameworks as string[]) {
    const canonical = registry.resolveFrameworkCode(code);
    if (!canonical || !gapCodes.includes(canonical)) unknown.push(code);
    else if (!resolved.includes(canonical)) resolved.push(canonical);
  }
  if (unknown.length) throw new ApiError('GAP_FRAMEWORK_NOT_FOUND', { frameworks: unknown, valid_codes: gapCodes });

  const limits = GAP_ANALYSIS_LIMITS[tier];
  if (resolved.length > limits.maxFrameworks) throw new ApiError('GAP_TOO_MANY_FRAMEWORKS', { count: resolved.length, limit: limits.maxFrameworks, tier });
  if (!Array.isArray(findings)) throw invalidParameter('findings', findings ?? null, { reason: 'must be an array of findings' });
  if (findings.length > limits.maxFindings) throw new ApiError('GAP_TOO_MANY_FINDINGS', { count: findings.length, limit: limits.maxFindings, tier });

  const firstIndexOfId = new Map<string, number>();
  const validated: Finding[] = new Array(findings.length);
  for (let index = 0; index < findings.length; index++) {
    const finding = findings[index];
    if (!checkFinding(finding)) {
      const error = checkFinding.errors![0];
      const pointer = `/findings/${index}${error.instancePath}${error.keyword === 'required' ? `/${(error.params as { missingProperty: string }).missingProperty}` : ''}`;
      const reason = error.keyword === 'required' ? 'is required' : error.keyword === 'enum' || error.keyword === 'const' || error.keyword === 'anyOf' ? describeEnum(error.instancePath) : error.message ?? 'is invalid';
      throw new ApiError('GAP_INVALID_FINDING', { index, pointer, reason: `${pointer.split('/').slice(3).join('.') || 'finding'} ${reason}` });
    }
    const value = finding as Finding & { status?: Finding['status'] };
    const first = firstIndexOfId.get(value.id);
    if (first !== undefined) {
      throw new ApiError('GAP_INVALID_FINDING', { index, pointer: `/findings/${index}/id`, reason: `duplicate finding id ${value.id} (first used at index ${first})` });
    }
    firstIndexOfId.set(value.id, index);
    // The parsed body is ours alone: default a missing status in place rather than copy the finding.
    value.status ??= 'open';
    validated[index] = value;
  }

  const unknownSignals = [...new Set(validated.filter((f) => registry.signal(f.signal_id) === undefined).map((f) => f.signal_id))];
  if (unknownSignals.length) throw new ApiError('GAP_SIGNAL_NOT_FOUND', { signal_ids: unknownSignals, count: unknownSignals.length });

  return { findings: validated, frameworks: resolved, options: optionValues as AnalysisOptions };
}

function describeEnum(instancePath: string): string {
  if (instancePath.endsWith('/status')) return 'must be one of open, in_progress, resolved, accepted, false_positive';
  if (instancePath.endsWith('/level')) return 'must be one of critical, high, medium, low, info';
  return 'has an unsupported value';
}
