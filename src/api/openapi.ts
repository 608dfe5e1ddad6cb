/**
 * The OpenAPI 3.1 document, generated from the route table and its TypeBox schemas: every route
 * with its path and query parameters, body, response envelope and the error codes it can answer
 * with (from the error registry). TypeBox emits JSON Schema, which OpenAPI 3.1 takes as is.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from '../core/errors.js';
import type { Route } from '../http/route.js';

export const OPENAPI_VERSION = '3.1.0';
const JSON_TYPE = 'application/json';

type JsonObject = Record<string, unknown>;

/** A JSON copy of a schema: drops TypeBox's symbol keys, leaving plain JSON Schema. */
function plain(schema: TSchema | undefined): JsonObject {
  return schema === undefined ? {} : (JSON.parse(JSON.stringify(schema)) as JsonObject);
}

/** /v1/signals/:id → /v1/signals/{id} */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

export function pathParameters(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
}

function operationId(route: Route): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part));
  return [route.method.toLowerCase(), ...words].join('-').replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
}

/** Whether the JSON body is the route's schema itself rather than the {data, meta} envelope. */
function isBare(route: Route): boolean {
  return route.bare ?? route.tier === null;
}

/** The error codes a route can answer with: the pipeline's stages it passes through, then its own. */
export function errorCodesOf(route: Route): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (route.tier !== null) {
    codes.add('unauthorized');
    if (route.tier !== 'community') codes.add(route.tierError ?? 'tier_required');
    codes.add('rate_limited');
    codes.add('shutting_down');
  }
  const pathParams = pathParameters(route.path);
  if (route.query || route.body || pathParams.length) codes.add('invalid_parameter');
  if (pathParams.length) codes.add('not_found');
  if (route.body || route.rawBody) {
    codes.add('invalid_json');
    codes.add('unsupported_media_type');
    codes.add('payload_too_large');
  }
  for (const code of route.errors ?? []) codes.add(code);
  codes.add('internal_error');
  return [...codes];
}

function errorEnvelope(codes: readonly string[]): JsonObject {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: [...codes] },
          message: { type: 'string' },
          details: { type: 'object', description: 'Fields per code: see docs/errors.md' },
        },
      },
    },
  };
}

function queryParameters(route: Route): JsonObject[] {
  if (!route.query) return [];
  const schema = plain(route.query) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    const parameter: JsonObject = { name, in: 'query', required: schema.required?.includes(name) ?? false, schema: rest };
    if (description) parameter.description = description;
    if (rest.type === 'array') {
      parameter.style = 'form';
      parameter.explode = true;
    }
    return parameter;
  });
}

function successContent(route: Route): JsonObject {
  const schema = isBare(route)
    ? plain(route.response ?? Type.Object({}))
    : {
        type: 'object',
        required: ['data'],
        properties: { data: plain(route.response), meta: route.meta ? plain(route.meta) : { type: 'object' } },
      };
  const content: JsonObject = { [JSON_TYPE]: { schema } };
  for (const type of route.produces ?? []) if (type !== JSON_TYPE) content[type] = { schema: { type: 'string', format: 'binary' } };
  return content;
}

function operation(route: Route): JsonObject {
  const op: JsonObject = {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    description: route.tier === null ? 'Public: no API key, no rate limit.' : `Minimum tier: ${route.tier}.`,
    'x-min-tier': route.tier,
    security: route.tier === null ? [] : [{ bearerAuth: [] }],
    parameters: [
      ...pathParameters(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...queryParameters(route),
      ...(route.idempotent
        ? [{
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'A retry with the same key and body within 24 hours answers the stored result (Idempotent-Replayed: true); docs/api.md',
            schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
          }]
        : []),
    ],
  };
  if (route.body) op.requestBody = { required: true, content: { [JSON_TYPE]: { schema: plain(route.body) } } };

  const responses: JsonObject = { '200': { description: 'OK', content: successContent(route) } };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = { description: codes.join(', '), content: { [JSON_TYPE]: { schema: errorEnvelope(codes) } } };
  }
  op.responses = responses;
  return op;
}

export function buildOpenApiDocument(routes: readonly Route[], info: { version: string }): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Compliance Signal Registry and Gap Analysis Service',
      version: info.version,
      description: 'Security signals mapped to compliance controls, with gap analysis. Every error uses the envelope {"error": {code, message, details}}.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' } },
      schemas: { Error: errorEnvelope(Object.keys(ERROR_CODES)) },
    },
    'x-error-codes': Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { status, message }]) => [code, { status, message }])),
  };
}

/** Interface version of the document (the /v1 prefix). */
export const API_VERSION = '1.0.0';

/**
 * The route serving the document. It takes the table lazily because the table includes it; the
 * document is built on first request and kept, as routes do not change while the process runs.
 */
export function openApiRoutes(table: () => readonly Route[]): Route[] {
  let document: string | undefined;
  return [
    {
      method: 'GET',
      path: '/v1/openapi.json',
      tier: 'community',
      tag: 'meta',
      summary: 'This OpenAPI 3.1 document, generated from the route table',
      bare: true,
      response: Type.Object({ openapi: Type.Literal(OPENAPI_VERSION), info: Type.Object({}), paths: Type.Object({}) }),
      handler: () => {
        document ??= JSON.stringify(buildOpenApiDocument(table(), { version: API_VERSION }));
        return { headers: { 'Content-Type': 'application/json; charset=utf-8' }, file: document };
      },
    },
  ];
}
