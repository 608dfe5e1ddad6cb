import t from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { routes } from '../../src/api/routes.js';
import { ERROR_CODES } from '../../src/core/errors.js';
import { buildOpenApiDocument, errorCodesOf, openApiPath, pathParameters } from '../../src/api/openapi.js';
import { startTestService, call } from '../helpers/service.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: Record<string, unknown>;
}
interface Operation {
  operationId: string;
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, any> }> }>;
  security: unknown[];
}

/** API operations: the /docs page and its assets are routes but not operations. */
const operationsTable = routes.filter((route) => route.documented !== false);
const document = buildOpenApiDocument(routes, { version: '1.0.0' }) as { openapi: string; paths: Record<string, Record<string, Operation>>; components: any };

t.test('every route is in the document with its parameters, body, response and errors', async (t) => {
  t.equal(document.openapi, '3.1.0');
  const operationIds = new Set<string>();
  let operations = 0;
  for (const route of operationsTable) {
    const label = `${route.method} ${route.path}`;
    const op = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    if (!t.ok(op, `${label} is documented`)) continue;
    operations++;
    t.notOk(operationIds.has(op.operationId), `${label}: operationId is unique`);
    operationIds.add(op.operationId);

    for (const name of pathParameters(route.path)) {
      const parameter = op.parameters.find((p) => p.in === 'path' && p.name === name);
      t.ok(parameter?.required, `${label}: path parameter ${name}`);
    }
    const query = (route.query ?? { properties: {}, required: [] }) as {
      properties?: Record<string, { type?: string; enum?: unknown[]; maximum?: number; default?: unknown }>;
      required?: string[];
    };
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    t.same(queryParams.map((p) => p.name).sort(), Object.keys(query.properties ?? {}).sort(), `${label}: query parameters`);
    for (const parameter of queryParams) {
      const property = query.properties![parameter.name];
      t.equal(parameter.required, (query.required ?? []).includes(parameter.name), `${label}: ${parameter.name} required flag`);
      t.same(parameter.schema.enum, property.enum, `${label}: ${parameter.name} enum`);
      t.equal(parameter.schema.maximum, property.maximum, `${label}: ${parameter.name} maximum`);
      t.same(parameter.schema.default, property.default, `${label}: ${parameter.name} default`);
    }

    if (route.body) t.ok(op.requestBody?.content['application/json']?.schema, `${label}: request body`);
    else if (route.accepts) t.same(Object.keys(op.requestBody?.content ?? {}), [...route.accepts], `${label}: request body in each declared media type`);
    else t.notOk(op.requestBody, `${label}: no request body`);
    // Every JSON body passes the depth guard first (found missing by the fuzz suite).
    if (route.body || route.rawBody)
      t.ok(
        op.responses['400']?.content?.['application/json']?.schema.properties.error.properties.code.enum.includes('json_too_deep'),
        `${label}: 400 lists json_too_deep`,
      );

    const ok = op.responses['200']?.content?.['application/json']?.schema;
    t.ok(ok, `${label}: 200 response`);
    if (route.tier !== null && !route.bare) {
      t.same(ok?.required, ['data'], `${label}: success envelope`);
      if (route.response) t.ok(Object.keys(ok?.properties.data ?? {}).length > 0, `${label}: data schema`);
    }
    for (const code of errorCodesOf(route)) {
      const status = String(ERROR_CODES[code].status);
      const schema = op.responses[status]?.content?.['application/json']?.schema;
      t.ok(schema?.properties?.error?.properties?.code?.enum?.includes(code), `${label}: ${status} lists ${code}`);
    }
    for (const code of route.errors ?? []) t.ok(errorCodesOf(route).includes(code), `${label}: declared error ${code}`);
    if (route.tier === null) t.same(op.security, [], `${label}: public`);
    else t.same(op.security, [{ bearerAuth: [] }], `${label}: bearer key`);
    if (route.tier !== null && route.tier !== 'community') {
      const code = route.tierError ?? 'tier_required';
      t.ok(op.responses['403']?.content?.['application/json']?.schema.properties.error.properties.code.enum.includes(code), `${label}: 403 ${code}`);
    }
  }
  const documented = Object.values(document.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
  t.equal(documented, operations, 'nothing documented beyond the route table');
  t.same(
    [...new Set<string>(document.components.schemas.Error.properties.error.properties.code.enum)].sort(),
    Object.keys(ERROR_CODES).sort(),
    'the error schema lists every code',
  );
});

t.test('every schema in the document compiles as JSON Schema 2020-12', async (t) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  let compiled = 0;
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const schemas = [
        ...op.parameters.map((p) => p.schema),
        ...(op.requestBody ? [op.requestBody.content['application/json'].schema] : []),
        ...Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {}).map((c) => c.schema)),
      ];
      for (const schema of schemas) {
        try {
          ajv.compile(schema);
          compiled++;
        } catch (error) {
          t.fail(`${method} ${path}: ${(error as Error).message}`);
        }
      }
    }
  }
  t.ok(compiled > routes.length, `${compiled} schemas compile`);
});

t.test('GET /v1/openapi.json serves the document to any tier, and without a key', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('community');
  const res = await call(service, 'GET', '/v1/openapi.json', { key });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /application\/json/);
  t.equal(res.body.openapi, '3.1.0');
  t.same(Object.keys(res.body.paths).sort(), Object.keys(document.paths).sort());
  t.ok(res.body.paths['/v1/signals/{id}'].get, 'path parameters in OpenAPI form');
  const unauthenticated = await call(service, 'GET', '/v1/openapi.json');
  t.equal(unauthenticated.status, 200, 'public: the /docs page and client generators read it without a key');
  t.same(unauthenticated.body, res.body, 'the same document');
});
