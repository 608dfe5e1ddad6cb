/**
 * Regenerates src/api/openapi-examples.json, the example per operation the OpenAPI document
 * carries: one real call per documented operation (test/helpers/operation-calls.ts) on a service
 * over a temp data directory, each answer trimmed (lists to two items, long texts cut) so the
 * document stays small. Run after changing a response shape; the contract test
 * (test/contracts/openapi-live.test.ts) fails while an example does not match its schema.
 *
 *   npm run build && node dist/test/tools/openapi-examples.js
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { startTestService } from '../helpers/service.js';
import { operationCalls } from '../helpers/operation-calls.js';

const LIST_ITEMS = 2;
const TEXT_LENGTH = 240;

function trim(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, LIST_ITEMS).map(trim);
  if (typeof value === 'string') return value.length > TEXT_LENGTH ? `${value.slice(0, TEXT_LENGTH - 1)}…` : value;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, trim(inner)]));
  return value;
}

const service = await startTestService();
try {
  await service.services.pool.ready;
  const key = await service.key('enterprise', 'example-account');
  const examples: Record<string, { request?: unknown; response: unknown }> = {};
  for (const operation of await operationCalls(service, key)) {
    const res = await operation.run();
    if (res.status !== 200) throw new Error(`${operation.method} ${operation.template}: ${res.status} ${res.text.slice(0, 200)}`);
    let response: unknown = res.body === undefined ? res.text.split('\n').slice(0, 3).join('\n') : trim(res.body);
    // The document as its own example would nest every example in it: its head stands for it.
    if (operation.template === '/v1/openapi.json') response = { openapi: res.body.openapi, info: res.body.info, paths: {} };
    examples[`${operation.method} ${operation.template}`] = { ...(operation.body !== undefined && { request: operation.body }), response };
  }
  const sorted = Object.fromEntries(Object.entries(examples).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(projectRoot, 'src', 'api', 'openapi-examples.json'), `${JSON.stringify(sorted, null, 2)}\n`);
  process.stdout.write(`${Object.keys(sorted).length} examples written to src/api/openapi-examples.json\n`);
} finally {
  await service.close();
}
