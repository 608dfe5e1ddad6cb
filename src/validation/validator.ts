/**
 * Checks objects against the published object schemas (signal, finding, artifact, mapping) of
 * src/schemas/api.ts. Pure: the same module serves POST /v1/validate in-thread and the
 * `validateBatch` worker task, through the one validation module (src/core/validation.ts), so a
 * caller sees every problem of an object in one answer.
 */
import { problemsOf } from '../core/validation.js';
import { VALIDATION_SCHEMAS, type BatchItemResult, type SchemaType, type ValidationError } from '../schemas/api.js';

/** The errors of one object, or undefined when it is valid. */
export function validateObject(schema: SchemaType, data: unknown): ValidationError[] | undefined {
  return problemsOf(VALIDATION_SCHEMAS[schema], data)?.map(({ pointer, message, keyword }) => ({ path: pointer, message, keyword }));
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
    const errors = validateObject(schema, item);
    if (!errors) {
      valid++;
      return { index, valid: true };
    }
    return { index, valid: false, errors };
  });
  return { results, summary: { total: items.length, valid, invalid: items.length - valid } };
}
