import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ApiError, invalidParameter } from '../core/errors.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** Query strings arrive as text: coerce "5" to 5 and a single value to a one-item array. */
const queryAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false, strict: false });
const bodyAjv = new Ajv({ useDefaults: true, allErrors: false, strict: false });
addFormats(queryAjv);
addFormats(bodyAjv);

export type Validator = (value: unknown) => unknown;

const INTEGER_TEXT = /^-?\d{1,15}$/;
const NUMBER_TEXT = /^-?\d{1,15}(\.\d{1,15})?$/;

function firstProblem(errors: ErrorObject[] | null | undefined): ErrorObject | undefined {
  return errors?.[0];
}

function parameterName(error: ErrorObject, prefix = ''): string {
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return joinPath(prefix, `${error.instancePath}/${missing}`);
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return joinPath(prefix, `${error.instancePath}/${extra}`);
  }
  return joinPath(prefix, error.instancePath);
}

/** JSON pointer /a/0/b becomes a.0.b, the name a caller would write. */
function joinPath(prefix: string, pointer: string): string {
  const dotted = pointer.split('/').filter(Boolean).join('.');
  return [prefix, dotted].filter(Boolean).join('.') || prefix || '(body)';
}

function reasonOf(error: ErrorObject): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a recognised field';
  if (error.keyword === 'enum') return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return error.message ?? 'is invalid';
}

function toApiError(error: ErrorObject, rawValue: (name: string) => unknown, prefix = ''): ApiError {
  const parameter = parameterName(error, prefix);
  const validValues = error.keyword === 'enum' ? (error.params as { allowedValues: unknown[] }).allowedValues.map(String) : undefined;
  if (error.keyword === 'maxItems') {
    const limit = (error.params as { limit: number }).limit;
    const given = rawValue(parameter);
    // Echo the count, not a list of thousands of items.
    return invalidParameter(parameter, Array.isArray(given) ? given.length : given, { reason: `must have at most ${limit} items`, limit });
  }
  return invalidParameter(parameter, rawValue(parameter), { reason: reasonOf(error), valid_values: validValues });
}

/**
 * Builds the query parser of a route: repeated keys become arrays only where the schema says so,
 * values are coerced and defaulted, and the first problem becomes 400 invalid_parameter naming it.
 */
export function compileQuery(schema: TSchema): (search: URLSearchParams) => Record<string, unknown> {
  const validate: ValidateFunction = queryAjv.compile(schema);
  const properties = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  return (search) => {
    const value: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(properties)) {
      if (!search.has(name)) continue;
      if (property.type === 'array') {
        value[name] = search.getAll(name);
        continue;
      }
      const given = search.getAll(name);
      if (given.length > 1) throw invalidParameter(name, given, { reason: 'is given more than once' });
      const text = given[0];
      // ajv's coercion would read 0x10, 1e1 or " 5" as numbers: accept only plain decimal notation.
      if (property.type === 'integer' && !INTEGER_TEXT.test(text)) throw invalidParameter(name, text, { reason: 'must be an integer' });
      if (property.type === 'number' && !NUMBER_TEXT.test(text)) throw invalidParameter(name, text, { reason: 'must be a number' });
      value[name] = text;
    }
    const raw = { ...value };
    if (!validate(value)) {
      const error = firstProblem(validate.errors)!;
      throw toApiError(error, (name) => raw[name]);
    }
    return value;
  };
}

export function compileBody(schema: TSchema): Validator {
  const validate: ValidateFunction = bodyAjv.compile(schema);
  return (body) => {
    if (!validate(body)) {
      const error = firstProblem(validate.errors)!;
      throw toApiError(error, (name) => valueAt(body, name));
    }
    return body;
  };
}

function valueAt(body: unknown, dotted: string): unknown {
  let current: unknown = body;
  for (const key of dotted.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
