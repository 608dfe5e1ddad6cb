import fc from 'fast-check';
import { TIERS, type Tier } from '../../../src/tiers.js';
import { Ref, toJsonText, type JsonTree } from './json-text.js';
import { brokenJson, hostileValue } from './hostile.js';
import { nearValidValue, validValue, type Schema, type Vocabulary } from './schema.js';

/** One operation of the OpenAPI document, as the fuzzer needs it. */
export interface Operation {
  /** "GET /v1/signals/{id}" */
  name: string;
  method: string;
  path: string;
  minTier: Tier | null;
  pathParameters: string[];
  query: Array<{ name: string; required: boolean; schema: Schema }>;
  body?: Schema;
  /** The body is a file (a scanner export), not JSON the schema describes. */
  fileBody: boolean;
  /** The error codes the document lists for the operation. */
  errorCodes: Set<string>;
}

interface OpenApiOperation {
  'x-min-tier': Tier | null;
  parameters: Array<{ name: string; in: string; required: boolean; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } }> }>;
}

export function operationsOf(document: { paths: Record<string, Record<string, OpenApiOperation>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const errorCodes = new Set<string>();
      for (const response of Object.values(op.responses))
        for (const code of response.content?.['application/json']?.schema.properties?.error?.properties?.code?.enum ?? []) errorCodes.add(code);
      operations.push({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        minTier: op['x-min-tier'],
        pathParameters: op.parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: op.parameters.filter((p) => p.in === 'query').map(({ name, required, schema }) => ({ name, required, schema })),
        body: op.requestBody?.content['application/json']?.schema,
        fileBody: op.requestBody?.content['application/json']?.schema.format === 'binary',
        errorCodes,
      });
    }
  }
  return operations;
}

/** Who calls: a key of a tier, or a caller without a usable key. */
export type Caller = Tier | 'none' | 'malformed' | 'unknown-key';

/** A path segment: URL-encoded text, or an id the harness fills in for the caller. */
export type Segment = string | Ref;

export type Body = { kind: 'json'; tree: JsonTree; label: string } | { kind: 'bytes'; bytes: Buffer; label: string };

/** One generated request. Values are kept apart so that fast-check can shrink each of them. */
export interface FuzzCase {
  operation: string;
  method: string;
  /** The path as segments; parameters already in place. */
  segments: Segment[];
  /** name=value pairs, URL-encoded as they go on the wire (repeats and raw escapes included). */
  query: string[];
  caller: Caller;
  contentType: string | null;
  body?: Body;
}

/** The generated list `present` times in (present + absent), else an empty list. */
function sometimes<T>(list: fc.Arbitrary<T[]>, present: number, absent: number): fc.Arbitrary<T[]> {
  return fc.oneof({ arbitrary: list, weight: present }, { arbitrary: fc.constant([] as T[]), weight: absent });
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function encodeQueryValue(value: JsonTree): string {
  return encodeURIComponent(typeof value === 'string' ? value : toJsonText(value, () => 'ref'));
}

/** Query text that is wrong for a parameter of the schema's type, as a client might write it. */
function nearValidQueryText(schema: Schema): fc.Arbitrary<string> {
  const numeric = ['', 'abc', '-1', '0', '1.5', '1e3', '0x10', '%201', '+1', '1,2', 'NaN', 'Infinity', '-0', '9'.repeat(400), '1%00', '１'];
  const boolean = ['', 'TRUE', 'yes', '1', '0', 'on', 'null', 'true%00'];
  const strange = [
    '%zz',
    '%',
    '%ff%fe',
    '%00',
    '%C0%AF',
    '%E2%80%AE',
    '%ED%A0%80',
    '+',
    '%2B',
    '..%2F..',
    'a'.repeat(10_000),
    encodeURIComponent('😀'.repeat(300)),
    '%F0%9F%98',
  ];
  const type = schema.type === 'array' ? schema.items?.type : schema.type;
  if (type === 'integer' || type === 'number') return fc.constantFrom(...numeric, ...strange);
  if (type === 'boolean') return fc.constantFrom(...boolean, ...strange);
  const members = (schema.enum ?? schema.items?.enum ?? []).map(String);
  const nearMembers = members.flatMap((member) => [member.toUpperCase(), member.toLowerCase(), `${member}%20`, `%20${member}`]);
  return fc.oneof(
    fc.constantFrom(...strange, ...(nearMembers.length ? nearMembers : [''])),
    fc.string({ unit: 'grapheme', maxLength: 30 }).map(encodeURIComponent),
  );
}

/** name=value pairs for one declared parameter: valid, near-valid or repeated. */
function queryPairs(parameter: Operation['query'][number], vocabulary: Vocabulary): fc.Arbitrary<string[]> {
  const { name, schema } = parameter;
  const valid = validValue(schema, { vocabulary, field: name }).map((value) =>
    (Array.isArray(value) ? value : [value]).map((item) => `${name}=${encodeQueryValue(item)}`),
  );
  const near = nearValidQueryText(schema).map((text) => [`${name}=${text}`]);
  const repeated = fc.tuple(valid, valid).map(([a, b]) => [...a, ...b]);
  const bare = fc.constantFrom(name, `${name}=`, `${name}[]=1`, `${encodeURIComponent(name.toUpperCase())}=1`).map((pair) => [pair]);
  return fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: near, weight: 3 }, { arbitrary: repeated, weight: 1 }, { arbitrary: bare, weight: 1 });
}

function queryOf(operation: Operation, vocabulary: Vocabulary): fc.Arbitrary<string[]> {
  const perParameter = operation.query.map((parameter) =>
    // Required parameters are mostly there; optional ones mostly not, so that each case varies a few.
    parameter.required ? sometimes(queryPairs(parameter, vocabulary), 8, 1) : sometimes(queryPairs(parameter, vocabulary), 1, 2),
  );
  const unknown = fc.array(
    fc
      .tuple(fc.constantFrom('debug', 'admin', 'callback', 'fields', 'sort', 'x', '__proto__', 'constructor', ''), fc.string({ maxLength: 8 }))
      .map(([key, value]) => `${key}=${encodeURIComponent(value)}`),
    { maxLength: 2 },
  );
  return fc.tuple(fc.tuple(...perParameter), sometimes(unknown, 1, 6)).map(([pairs, extra]) => [...pairs.flat(), ...extra]);
}

/** The value of one path parameter: a known id, a near miss, or something hostile. */
function pathSegment(operation: Operation, name: string, vocabulary: Vocabulary): fc.Arbitrary<Segment> {
  const known = validValue({ type: 'string', minLength: 1 }, { vocabulary, field: name, path: operation.path }).map((value) =>
    value instanceof Ref ? value : encodeURIComponent(String(value)),
  );
  const near = fc.oneof(
    known.map((segment) => (typeof segment === 'string' ? segment.toLowerCase() : segment)),
    known.map((segment) => (typeof segment === 'string' ? `${segment}%20` : segment)),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  );
  const hostile = fc.constantFrom(
    '',
    '%2F',
    '..',
    '.',
    '%2e%2e',
    '%00',
    '%zz',
    '%',
    '%ff',
    '%C0%AF',
    'A'.repeat(10_000),
    encodeURIComponent('✓'.repeat(3000)),
    '%E2%80%AE',
    'summary',
    'compare',
    '*',
    '%3F',
    '%23',
  );
  return fc.oneof({ arbitrary: known, weight: 6 }, { arbitrary: near, weight: 2 }, { arbitrary: hostile, weight: 1 });
}

function segmentsOf(operation: Operation, vocabulary: Vocabulary): fc.Arbitrary<Segment[]> {
  const parts = operation.path.split('/').slice(1);
  return fc.tuple(
    ...parts.map((part) => {
      const parameter = /^\{(\w+)\}$/.exec(part)?.[1];
      return parameter ? pathSegment(operation, parameter, vocabulary) : fc.constant(part as Segment);
    }),
  );
}

function callerOf(operation: Operation): fc.Arbitrary<Caller> {
  const minimum = operation.minTier;
  const entitled = minimum === null ? [...TIERS] : TIERS.slice(TIERS.indexOf(minimum));
  const below = minimum === null ? [] : TIERS.slice(0, TIERS.indexOf(minimum));
  return fc.oneof({ arbitrary: fc.constantFrom(...entitled), weight: 16 }, ...(below.length ? [{ arbitrary: fc.constantFrom(...below), weight: 2 }] : []), {
    arbitrary: fc.constantFrom<Caller>('none', 'malformed', 'unknown-key'),
    weight: 1,
  });
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8'];
const OTHER_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  'application/jsonp',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/xml',
  '*/*',
  'json',
  ';',
  'a'.repeat(2_000),
];

function contentTypeOf(hasBody: boolean): fc.Arbitrary<string | null> {
  return hasBody
    ? fc.oneof(
        { arbitrary: fc.constantFrom(...JSON_TYPES), weight: 14 },
        { arbitrary: fc.constant(null), weight: 1 },
        { arbitrary: fc.constantFrom(...OTHER_TYPES), weight: 2 },
      )
    : fc.oneof({ arbitrary: fc.constant(null), weight: 14 }, { arbitrary: fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES), weight: 1 });
}

function bodyOf(schema: Schema, vocabulary: Vocabulary): fc.Arbitrary<Body> {
  const context = { vocabulary, field: '' };
  const validTree = validValue(schema, context);
  return fc.oneof(
    { arbitrary: validTree.map((tree): Body => ({ kind: 'json', tree, label: 'valid' })), weight: 6 },
    { arbitrary: nearValidValue(schema, context).map((tree): Body => ({ kind: 'json', tree, label: 'near-valid' })), weight: 5 },
    { arbitrary: hostileValue.map((tree): Body => ({ kind: 'json', tree, label: 'hostile' })), weight: 1 },
    {
      arbitrary: brokenJson(validTree.map((tree) => toJsonText(tree, () => 'ref'))).map(({ bytes, label }): Body => ({ kind: 'bytes', bytes, label })),
      weight: 2,
    },
  );
}

/** Requests for one operation: mostly as declared, sometimes with another method or a stray body. */
export function caseOf(operation: Operation, vocabulary: Vocabulary): fc.Arbitrary<FuzzCase> {
  const hasBody = operation.body !== undefined;
  const method = fc.oneof({ arbitrary: fc.constant(operation.method), weight: 30 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 });
  const strayBody = fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 20 },
    { arbitrary: bodyOf({ type: 'object', properties: { a: { type: 'string' } } }, vocabulary), weight: 1 },
  );
  return fc
    .record({
      method,
      segments: segmentsOf(operation, vocabulary),
      query: queryOf(operation, vocabulary),
      caller: callerOf(operation),
      contentType: contentTypeOf(hasBody),
      body: hasBody ? bodyOf(operation.body!, vocabulary) : strayBody,
    })
    .map((generated) => ({ operation: operation.name, ...generated }));
}

/** Cases over every operation, each operation as likely as any other. */
export function anyCase(operations: Operation[], vocabulary: Vocabulary): fc.Arbitrary<FuzzCase> {
  return fc.oneof(...operations.map((operation) => caseOf(operation, vocabulary)));
}
