/**
 * The one validation module: one ajv instance (every schema compiled once per thread), one
 * translation of ajv's errors into ours. Query strings, request bodies, the gap-analysis request
 * checked in a worker, and POST /v1/validate all check through here.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ApiError, invalidParameter, type ErrorDetails } from './errors.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

// allErrors: /v1/validate reports every problem of an object; other callers take the first, which
// is the one ajv would have stopped at. A valid value costs the same either way.
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
addFormats(ajv);

const compiled = new WeakMap<TSchema, ValidateFunction>();

function compile(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** One failed check, in the terms our error details use. */
export interface Problem {
  /** JSON pointer to the value at fault; a missing or unexpected field points at the field itself. */
  pointer: string;
  /** The same place as a caller writes it: a.0.b. */
  parameter: string;
  keyword: string;
  /** What is wrong, phrased to follow the parameter's name: "is required", "must be one of a, b". */
  reason: string;
  /** The spec's validation message (POST /v1/validate): "must have required property 'x'". */
  message: string;
  allowedValues?: string[];
  limit?: number;
}

/** RFC 6901 escaping of one pointer segment. */
function segment(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function dotted(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

export function translate(error: ErrorObject): Problem {
  const params = error.params as Record<string, unknown>;
  const base = (pointer: string, reason: string, message: string): Problem => ({
    pointer,
    parameter: dotted(pointer),
    keyword: error.keyword,
    reason,
    message,
  });
  switch (error.keyword) {
    case 'required': {
      const field = String(params.missingProperty);
      return base(`${error.instancePath}/${segment(field)}`, 'is required', `must have required property '${field}'`);
    }
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      return base(`${error.instancePath}/${segment(field)}`, 'is not a recognised field', `must not have additional property '${field}'`);
    }
    case 'enum': {
      const allowedValues = (params.allowedValues as unknown[]).map(String);
      const text = `must be one of ${allowedValues.join(', ')}`;
      return { ...base(error.instancePath, text, text), allowedValues };
    }
    case 'maxItems': {
      const limit = params.limit as number;
      return { ...base(error.instancePath, `must have at most ${limit} items`, error.message ?? 'is invalid'), limit };
    }
    default:
      return base(error.instancePath, error.message ?? 'is invalid', error.message ?? 'is invalid');
  }
}

/** Every problem of `value` against `schema` (defaults filled in on success), or undefined when valid. */
export function problemsOf(schema: TSchema, value: unknown): Problem[] | undefined {
  const validate = compile(schema);
  return validate(value) ? undefined : (validate.errors ?? []).map(translate);
}

/** The first problem of `value` against `schema`, or undefined when valid. */
export function firstProblemOf(schema: TSchema, value: unknown): Problem | undefined {
  const validate = compile(schema);
  return validate(value) ? undefined : translate(validate.errors![0]);
}

/** The longest text an error echoes back; a longer one is cut. */
const ECHO_MAX_CHARS = 200;

/**
 * What an error says of the value at fault: a number, boolean, null or short text as it is; a
 * longer text cut; an array or object by its kind and size, never its content. Echoed whole, a
 * scanner file posted as an analysis came back in its 400 (9 KB of a 12 KB file).
 */
export function echoedValue(value: unknown): unknown {
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return value ?? null;
  if (typeof value === 'string') return value.length <= ECHO_MAX_CHARS ? value : `${value.slice(0, ECHO_MAX_CHARS)}…`;
  if (Array.isArray(value)) return `(an array of ${value.length} item${value.length === 1 ? '' : 's'})`;
  if (typeof value === 'object') {
    const fields = Object.keys(value);
    return `(an object with ${fields.length} field${fields.length === 1 ? '' : 's'})`;
  }
  return null;
}

/** A problem as 400 invalid_parameter; a list over its limit echoes its length, not its items. */
export function invalidParameterOf(problem: Problem, value: unknown, prefix = ''): ApiError {
  const parameter = [prefix, problem.parameter].filter(Boolean).join('.') || '(body)';
  const echoed = problem.keyword === 'maxItems' && Array.isArray(value) ? value.length : echoedValue(value);
  return invalidParameter(parameter, echoed, { reason: problem.reason, valid_values: problem.allowedValues, limit: problem.limit });
}

/** The value a problem's pointer names, if the body has it. */
export function valueAtPointer(value: unknown, pointer: string): unknown {
  let current: unknown = value;
  for (const part of pointer.split('/').filter(Boolean)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return current;
}

/** A request body checker: the value itself (defaults filled in), or 400 naming the first problem. */
export function compileBody(schema: TSchema): (body: unknown) => unknown {
  compile(schema);
  return (body) => {
    const problem = firstProblemOf(schema, body);
    if (problem) throw invalidParameterOf(problem, valueAtPointer(body, problem.pointer));
    return body;
  };
}

const INTEGER_TEXT = /^-?\d{1,15}$/;
const NUMBER_TEXT = /^-?\d{1,15}(\.\d{1,15})?$/;

/**
 * A query-string parser: each declared parameter once (repeatable only where the schema says
 * array), numbers only in plain decimal notation (not 0x10, 1e1 or " 5"), booleans as true or
 * false, then the schema check with defaults; the first problem is 400 invalid_parameter.
 */
export function compileQuery(schema: TSchema): (search: URLSearchParams) => Record<string, unknown> {
  compile(schema);
  const properties = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  const accepted = Object.keys(properties);
  return (search) => {
    for (const name of search.keys()) if (!Object.hasOwn(properties, name)) throw unknownParameter(name, search.get(name), accepted);
    const value: Record<string, unknown> = {};
    const given: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(properties)) {
      if (!search.has(name)) continue;
      if (property.type === 'array') {
        value[name] = given[name] = search.getAll(name);
        continue;
      }
      const values = search.getAll(name);
      if (values.length > 1) throw invalidParameter(name, values, { reason: 'is given more than once' });
      const text = values[0];
      given[name] = text;
      value[name] = queryValue(name, text, property.type);
    }
    const problem = firstProblemOf(schema, value);
    if (problem) throw invalidParameterOf(problem, given[problem.parameter]);
    return value;
  };
}

/** Names clients send for a page's size, and what they mean here when the endpoint has it. */
const PAGE_SIZE_NAMES = new Set(['pagesize', 'size', 'count', 'limit', 'perpage', 'max', 'top']);
/** Names clients send for words to look for: searching is GET /v1/search's. */
const SEARCH_NAMES = new Set(['q', 'query', 'search', 'text', 'keyword', 'keywords', 'term', 'filter']);

/**
 * 400 for a query parameter the endpoint does not take, naming it and what to send instead: an
 * unknown parameter ignored made `GET /v1/signals?q=encryption` answer every signal, which
 * reads as a search that found everything.
 */
function unknownParameter(name: string, value: string | null, accepted: readonly string[]): ApiError {
  const folded = name.toLowerCase().replace(/[-\s]/g, '_');
  let reason: string;
  if (accepted.includes(folded)) reason = `is not a parameter of this endpoint; did you mean ${folded}?`;
  else if (SEARCH_NAMES.has(folded)) reason = 'is not a parameter of this endpoint: to search signals by words, use GET /v1/search?q=…';
  else if (PAGE_SIZE_NAMES.has(folded.replace(/_/g, '')) && accepted.includes('per_page'))
    reason = 'is not a parameter of this endpoint; the page size is per_page';
  else if (folded === 'offset' && accepted.includes('page')) reason = 'is not a parameter of this endpoint; pages are chosen with page (from 1) and per_page';
  else if (
    (folded === 'page' || folded === 'per_page' || PAGE_SIZE_NAMES.has(folded.replace(/_/g, ''))) &&
    !accepted.includes('page') &&
    !accepted.includes('offset')
  )
    reason = 'is not a parameter of this endpoint: it is not paged, every item comes in one answer';
  else
    reason = accepted.length
      ? `is not a parameter of this endpoint, which takes ${accepted.join(', ')}`
      : 'is not a parameter of this endpoint, which takes none';
  const details: ErrorDetails = { parameter: name, value: value === null ? null : value.slice(0, 200), reason, accepted: [...accepted] };
  return new ApiError('invalid_parameter', details, { message: `Unknown parameter ${name.slice(0, 100)}: ${reason}` });
}

function queryValue(name: string, text: string, type: string | undefined): unknown {
  if (type === 'integer') {
    if (!INTEGER_TEXT.test(text)) throw invalidParameter(name, text, { reason: 'must be an integer' });
    return Number(text);
  }
  if (type === 'number') {
    if (!NUMBER_TEXT.test(text)) throw invalidParameter(name, text, { reason: 'must be a number' });
    return Number(text);
  }
  if (type === 'boolean') {
    if (text !== 'true' && text !== 'false') throw invalidParameter(name, text, { reason: 'must be true or false' });
    return text === 'true';
  }
  return text;
}
