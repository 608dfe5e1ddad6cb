/**
 * Checks objects against the published object schemas (signal, finding, artifact, mapping) of
 * src/schemas/api.ts. Pure: the same module serves POST /v1/validate in-thread and the
 * `validateBatch` worker task. Each schema is compiled once, on first use in a thread, with every
 * error collected (allErrors), so a caller sees all problems of an object in one answer.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { VALIDATION_SCHEMAS, type BatchItemResult, type SchemaType, type ValidationError } from '../schemas/api.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

const compiled = new Map<SchemaType, ValidateFunction>();

function validatorOf(schema: SchemaType): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(VALIDATION_SCHEMAS[schema]);
    compiled.set(schema, validate);
  }
  return validate;
}

/** RFC 6901 escaping of one pointer segment. */
function segment(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** An ajv error as the spec's {path, message, keyword}: required and extra fields point at the field itself. */
function toValidationError(error: ErrorObject): ValidationError {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    const field = String(params.missingProperty);
    return { path: `${error.instancePath}/${segment(field)}`, message: `must have required property '${field}'`, keyword: 'required' };
  }
  if (error.keyword === 'additionalProperties') {
    const field = String(params.additionalProperty);
    return { path: `${error.instancePath}/${segment(field)}`, message: `must not have additional property '${field}'`, keyword: 'additionalProperties' };
  }
  if (error.keyword === 'enum') {
    return { path: error.instancePath, message: `must be one of ${(params.allowedValues as unknown[]).join(', ')}`, keyword: 'enum' };
  }
  return { path: error.instancePath, message: error.message ?? 'is invalid', keyword: error.keyword };
}

/** The errors of one object, or undefined when it is valid. */
export function validateObject(schema: SchemaType, data: unknown): ValidationError[] | undefined {
  const validate = validatorOf(schema);
  if (validate(data)) return undefined;
  return (validate.errors ?? []).map(toValidationError);
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
