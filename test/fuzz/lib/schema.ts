import fc from 'fast-check';
import { Entries, Ref, type JsonObject, type JsonTree } from './json-text.js';
import { hostileValue, longString, strangeString } from './hostile.js';

/** The part of JSON Schema the OpenAPI document uses (TypeBox output). */
export interface Schema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  default?: unknown;
}

/**
 * Real values the service knows (signal ids, framework codes, control ids…), read from the running
 * service, so that generated requests get past "not found" and reach the code behind it.
 */
export type Vocabulary = Record<string, string[]>;

/** Which vocabulary a field's values come from, by the field's name (and, for path ids, its path). */
export function vocabularyName(field: string, path = ''): string | undefined {
  if (field === 'id' && path) {
    if (path.startsWith('/v1/signals')) return 'signals';
    if (path.startsWith('/v1/domains')) return 'domains';
    if (path.startsWith('/v1/controls')) return 'controls';
    if (path.startsWith('/v1/artifact-types')) return 'artifactTypes';
    if (path.startsWith('/v1/finding-templates')) return 'findingTemplates';
    if (path.startsWith('/v1/gap-analysis')) return 'analyses';
    return undefined;
  }
  const byField: Record<string, string> = {
    signal_id: 'signals',
    ids: 'signals',
    signal_ids: 'signals',
    framework: 'frameworks',
    frameworks: 'frameworks',
    framework_a: 'frameworks',
    framework_b: 'frameworks',
    code: 'frameworks',
    control_id: 'controls',
    tool_id: 'tools',
    rule_id: 'rules',
    finding_template_id: 'findingTemplates',
    tag: 'tags',
    category: 'categories',
    subcategory: 'subcategories',
    q: 'words',
    resource_type: 'resourceTypes',
    provider: 'providers',
    baseline_id: 'analyses',
    current_id: 'analyses',
    domain: 'domains',
  };
  return byField[field];
}

export interface SlotContext {
  vocabulary: Vocabulary;
  /** The field's name: picks the vocabulary of its values. */
  field: string;
  path?: string;
}

const analysisIds: fc.Arbitrary<JsonTree> = fc.oneof(
  { arbitrary: fc.constant(new Ref('own-analysis')), weight: 8 },
  { arbitrary: fc.constant(new Ref('foreign-analysis')), weight: 1 },
  { arbitrary: fc.uuid(), weight: 1 },
);

/** Known values for the slot, when there are some. */
export function knownValues(context: SlotContext): fc.Arbitrary<JsonTree> | undefined {
  const name = vocabularyName(context.field, context.path);
  if (name === 'analyses') return analysisIds;
  const values = name ? context.vocabulary[name] : undefined;
  return values?.length ? fc.constantFrom(...values) : undefined;
}

function boundedString(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 24, 24)) });
}

/** Values the schema accepts (and the service should answer with 2xx or a domain 4xx). */
export function validValue(schema: Schema, context: SlotContext): fc.Arbitrary<JsonTree> {
  if (schema.enum) return fc.constantFrom(...(schema.enum as JsonTree[]));
  if (schema.const !== undefined) return fc.constant(schema.const as JsonTree);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((option) => validValue(option, context)));
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'date-time')
        return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
      const known = knownValues(context);
      return known ? fc.oneof({ arbitrary: known, weight: 4 }, { arbitrary: boundedString(schema), weight: 1 }) : boundedString(schema);
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? Math.max(1_000, (schema.minimum ?? 0) + 1_000) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 6, 6));
      return fc.array(validValue(schema.items ?? {}, context), { minLength, maxLength });
    }
    case 'object':
      return validObject(schema, context);
    default:
      // An open schema ({}): anything a client might hand over.
      return fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonTree>;
  }
}

function validObject(schema: Schema, context: SlotContext): fc.Arbitrary<JsonTree> {
  const properties = schema.properties ?? {};
  if (!Object.keys(properties).length)
    return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonTree>, { maxKeys: 4 });
  const arbitraries: Record<string, fc.Arbitrary<JsonTree>> = {};
  for (const [name, property] of Object.entries(properties)) arbitraries[name] = validValue(property, { ...context, field: name });
  return fc.record(arbitraries, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<JsonTree>;
}

/** Values of the wrong JSON type for the schema. */
function wrongType(schema: Schema): fc.Arbitrary<JsonTree> {
  const expected = schema.type ?? (schema.enum || schema.anyOf ? 'string' : undefined);
  const all: Array<[string, fc.Arbitrary<JsonTree>]> = [
    ['string', fc.string({ maxLength: 10 })],
    ['number', fc.oneof(fc.integer(), fc.double({ noNaN: true }))],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<JsonTree>, { maxLength: 3 })],
    ['object', fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<JsonTree>, { maxKeys: 3 })],
  ];
  const others = all.filter(([type]) => type !== expected && !(expected === 'integer' && type === 'number')).map(([, arbitrary]) => arbitrary);
  return fc.oneof(...others);
}

/** Values just outside what the schema allows: bounds ± 1, lengths ± 1, near-miss enum members. */
function outOfRange(schema: Schema, context: SlotContext): fc.Arbitrary<JsonTree> {
  const options: fc.Arbitrary<JsonTree>[] = [];
  if (schema.enum) {
    const members = schema.enum.map(String);
    options.push(
      fc
        .constantFrom(...members)
        .chain((member) =>
          fc.constantFrom(member.toUpperCase(), member.toLowerCase(), ` ${member}`, `${member} `, `${member}\u0000`, member.slice(0, -1), `${member}s`),
        ),
    );
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    const edges: number[] = [];
    if (schema.minimum !== undefined) edges.push(schema.minimum - 1, schema.minimum - 0.5, schema.minimum);
    if (schema.maximum !== undefined) edges.push(schema.maximum + 1, schema.maximum + 0.5, schema.maximum);
    edges.push(0, -1, 0.5, 1e21, -1e21);
    options.push(fc.constantFrom(...edges));
  }
  if (schema.type === 'string') {
    if (schema.minLength) options.push(fc.constant('x'.repeat(schema.minLength - 1)));
    if (schema.maxLength !== undefined) options.push(fc.constant('x'.repeat(schema.maxLength + 1)));
    options.push(strangeString);
    const known = knownValues(context);
    if (known) options.push(known.map((value) => (typeof value === 'string' ? value.toLowerCase() : value)));
  }
  if (schema.type === 'array') {
    const item = validValue(schema.items ?? {}, context);
    if (schema.maxItems !== undefined) options.push(fc.array(item, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 3 }));
    if (schema.minItems) options.push(fc.constant([]));
    // Repeated members: lists of ids are sets in the caller's mind, not always in the code.
    options.push(item.map((value) => [value, value, value]));
  }
  return options.length ? fc.oneof(...options) : wrongType(schema);
}

/**
 * Values that break the schema in one place: the whole slot of the wrong type or out of range,
 * or, in an object, one field broken, an unknown field, a required field missing or a key repeated.
 */
export function nearValidValue(schema: Schema, context: SlotContext, depth = 0): fc.Arbitrary<JsonTree> {
  const own: fc.Arbitrary<JsonTree>[] = [wrongType(schema), outOfRange(schema, context), hostileValue];
  if (depth > 3) return fc.oneof(...own);
  if (schema.type === 'object' && schema.properties && Object.keys(schema.properties).length) {
    const properties = schema.properties;
    const names = Object.keys(properties);
    const valid = validObject(schema, context) as fc.Arbitrary<JsonObject>;
    const oneFieldBroken = fc
      .constantFrom(...names)
      .chain((name) =>
        fc
          .tuple(valid, nearValidValue(properties[name], { ...context, field: name }, depth + 1))
          .map(([object, broken]) => ({ ...object, [name]: broken }) as JsonTree),
      );
    const unknownField = fc
      .tuple(
        valid,
        fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !names.includes(name)),
        anyJsonLeaf,
      )
      .map(([object, name, value]) => new Entries([...Object.entries(object), [name, value]]));
    const missing = (schema.required ?? []).length
      ? fc
          .tuple(valid, fc.constantFrom(...schema.required!))
          .map(([object, name]) => Object.fromEntries(Object.entries(object).filter(([key]) => key !== name)) as JsonTree)
      : undefined;
    const repeatedKey = fc
      .tuple(valid, fc.constantFrom(...names))
      .chain(([object, name]) =>
        nearValidValue(properties[name], { ...context, field: name }, depth + 1).map((broken) => new Entries([...Object.entries(object), [name, broken]])),
      );
    return fc.oneof(
      { arbitrary: oneFieldBroken, weight: 6 },
      { arbitrary: unknownField, weight: 1 },
      ...(missing ? [{ arbitrary: missing, weight: 1 }] : []),
      { arbitrary: repeatedKey, weight: 1 },
      { arbitrary: fc.oneof(...own), weight: 1 },
    );
  }
  if (schema.type === 'array' && schema.items) {
    const item = schema.items;
    const oneItemBroken = fc
      .tuple(
        fc.array(validValue(item, context), { maxLength: 3 }),
        nearValidValue(item, context, depth + 1),
        fc.array(validValue(item, context), { maxLength: 3 }),
      )
      .map(([before, broken, after]) => [...before, broken, ...after]);
    return fc.oneof({ arbitrary: oneItemBroken, weight: 3 }, { arbitrary: fc.oneof(...own), weight: 1 });
  }
  return fc.oneof(...own);
}

const anyJsonLeaf: fc.Arbitrary<JsonTree> = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), longString);
