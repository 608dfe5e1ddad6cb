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
  // meta is listed only where the route declares it: the routes without one send none.
  const schema = isBare(route)
    ? plain(route.response ?? Type.Object({}))
    : {
        type: 'object',
        required: ['data'],
        properties: { data: plain(route.response), ...(route.meta && { meta: plain(route.meta) }) },
      };
  const content: JsonObject = { [JSON_TYPE]: { schema } };
  // Media types without their parameters: "text/csv; charset=utf-8" is documented as text/csv.
  for (const type of route.produces ?? []) {
    const media = type.split(';')[0].trim();
    if (media !== JSON_TYPE) content[media] = { schema: { type: 'string', format: 'binary' } };
  }
  return content;
}

/** Response headers, described once under components.headers and referenced by each response. */
const HEADERS: Record<string, JsonObject> = {
  'X-Request-Id': {
    description: 'The request id: the caller\'s X-Request-Id when it is 1–128 characters of A-Z a-z 0-9 . _ : -, a new UUID otherwise. Logged with every line about the request; quote it when reporting a problem.',
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': { description: 'Requests allowed per minute for the caller\'s tier (docs/limits.md)', schema: { type: 'string', pattern: '^\\d+$' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute', schema: { type: 'string', pattern: '^\\d+$' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) when the minute window resets', schema: { type: 'string', pattern: '^\\d+$' } },
  'X-RateLimit-Daily-Limit': { description: 'Requests allowed per UTC day, or "unlimited"', schema: { type: 'string', pattern: '^(\\d+|unlimited)$' } },
  'X-RateLimit-Daily-Remaining': { description: 'Requests left today, or "unlimited"', schema: { type: 'string', pattern: '^(\\d+|unlimited)$' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string', pattern: '^\\d+$' } },
  'Server-Timing': {
    description: 'Where the time went (W3C Server-Timing): analysis (queue and worker included) and store (the durable write), in milliseconds',
    schema: { type: 'string', examples: ['analysis;dur=18.4, store;dur=1.2'] },
  },
  'X-Analysis-Expires-At': { description: 'When the stored analysis expires (ISO 8601); after that it answers 410 GAP_EXPIRED', schema: { type: 'string', format: 'date-time' } },
};
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Daily-Limit', 'X-RateLimit-Daily-Remaining'];
/** Codes whose answer carries Retry-After. */
const RETRY_CODES = new Set<string>(['rate_limited', 'service_busy', 'task_timeout']);

function headerRefs(names: readonly string[]): JsonObject {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** The headers of one response of a route: the request id always, the rate-limit ones behind a key. */
function responseHeaders(route: Route, codes: readonly string[] | 'success'): JsonObject {
  const names = ['X-Request-Id'];
  // Every keyed answer carries the caller's counters, refusals included (the 401 counts against the address).
  if (route.tier !== null && (codes === 'success' || !codes.every((code) => code === 'internal_error' || code === 'shutting_down'))) names.push(...RATE_LIMIT_HEADERS);
  if (codes === 'success') names.push(...(route.headers ?? []));
  else if (codes.some((code) => RETRY_CODES.has(code))) names.push('Retry-After');
  return headerRefs(names);
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
    ],
  };
  if (route.body) op.requestBody = { required: true, content: { [JSON_TYPE]: { schema: plain(route.body) } } };

  const responses: JsonObject = { '200': { description: 'OK', headers: responseHeaders(route, 'success'), content: successContent(route) } };
  for (const [status, description] of Object.entries(route.otherSuccessStatuses ?? {})) {
    responses[status] = { description, headers: responseHeaders(route, 'success'), content: successContent(route) };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = { description: codes.join(', '), headers: responseHeaders(route, codes), content: { [JSON_TYPE]: { schema: errorEnvelope(codes) } } };
  }
  op.responses = responses;
  return op;
}

export function buildOpenApiDocument(routes: readonly Route[], info: { version: string }): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    if (route.documented === false) continue;
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
    tags: [...new Set(routes.filter((r) => r.documented !== false).map((r) => r.tag))].map((name) => ({ name })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' } },
      schemas: { Error: errorEnvelope(Object.keys(ERROR_CODES)) },
      headers: HEADERS,
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
      // Public: the interface is no secret, and the /docs page and client generators fetch it without a key.
      tier: null,
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
