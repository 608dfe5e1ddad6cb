/**
 * Checks objects against the published object schemas (signal, finding, artifact, mapping) of
 * src/schemas/api.ts. Pure: the same module serves POST /v1/validate in-thread and the
 * `validateBatch` worker task, through the one validation module (src/core/validation.ts), so a
 * caller sees every problem of an object in one answer.
 */
import { problemsOf } from '../core/validation.js';
import { VALIDATION_SCHEMAS, type BatchItemResult, type SchemaType, type ValidationError } from '../schemas/api.js';

/**
 * How many errors of one object an answer lists. An object of a 1 MiB body can break a rule a
 * hundred thousand times (an array of numbers where strings belong): listed, that was a 6.7 MB
 * answer. The rest are counted in `errors_total`.
 */
export const ERRORS_LISTED = 50;

/** What is wrong with one object: its first errors, and their count when there are more. */
export interface ObjectErrors {
  errors: ValidationError[];
  errors_total?: number;
}

/** The errors of one object, or undefined when it is valid. */
export function validateObject(schema: SchemaType, data: unknown): ObjectErrors | undefined {
  const problems = problemsOf(VALIDATION_SCHEMAS[schema], data);
  if (!problems) return undefined;
  const errors = problems.slice(0, ERRORS_LISTED).map(({ pointer, message, keyword }) => ({ path: pointer, message, keyword }));
  return problems.length > ERRORS_LISTED ? { errors, errors_total: problems.length } : { errors };
}

/** Input of the `validateBatch` worker task. */
export interface ValidateBatchTask {
  schema: SchemaType;
  items: unknown[];
}

export interface BatchOutcome {
  results: BatchItemResult[];
  summary: { total: number; valid: number; invalid: number };
}

export function validateItems(schema: SchemaType, items: readonly unknown[]): BatchOutcome {
  let valid = 0;
  const results = items.map((item, index): BatchItemResult => {
    const checked = validateObject(schema, item);
    if (!checked) {
      valid++;
      return { index, valid: true };
    }
    return { index, valid: false, ...checked };
  });
  return { results, summary: { total: items.length, valid, invalid: items.length - valid } };
}
