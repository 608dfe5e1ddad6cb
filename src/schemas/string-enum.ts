import { Type } from '@sinclair/typebox';

/**
 * A closed set of strings as a plain `enum` (not a union of literals), so ajv reports a failing
 * value with the `enum` keyword and its allowed values: query and body checks answer with
 * valid_values, the registry compiler with "must be one of a, b, c", and the OpenAPI document
 * shows an enum.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
