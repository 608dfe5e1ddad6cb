import t from 'tap';
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildService } from '../helpers/child-service.js';
import { openDataStore } from '../../src/store/lmdb/database.js';
import { LmdbAccountDirectory } from '../../src/store/lmdb/accounts.js';
import { testRegistry } from '../helpers/findings.js';
import { until } from '../helpers/wait.js';

/**
 * Keep-alive connections under a bounded load on loopback: 24,000 requests of a mix (registry
 * reads, HEAD, refusals before and after the body, analyses inline and pooled, batch
 * validation), half through node:http's keep-alive agent and half through fetch, eight
 * connections each, against the service as an operator runs it. No request may fail on a reused
 * connection, and none may wait 5 s. docs/benchmarks.md, "Keep-alive connections".
 */
const REQUESTS_PER_CLIENT = 12_000;
const CONNECTIONS = 8;
const STALL_MS = 5_000;

const dataDir = mkdtempSync(join(tmpdir(), 'csr-keepalive-'));
const store = openDataStore(dataDir);
const accounts = new LmdbAccountDirectory(store);
const keys: string[] = [];
for (let i = 0; i < 40; i++) keys.push((await accounts.createKey(`keepalive-${i}`, 'enterprise')).key);
const service = await startChildService({ DATA_DIR: dataDir, WORKERS: '1', ACCESS_LOG: 'off' });
t.teardown(async () => {
  await service.stop();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});
await until(async () => (await fetch(`${service.url}/readyz`).then((r) => r.status)) === 200, 'the pool is ready');

const ids = testRegistry().signalIds();
const small = JSON.stringify({ frameworks: ['HIPAA'], findings: [{ id: 'f', signal_id: ids[0], status: 'open' }] });
const pooled = JSON.stringify({
  frameworks: ['HIPAA'],
  findings: Array.from({ length: 400 }, (_, i) => ({ id: `p-${i}`, signal_id: ids[(i * 7) % ids.length], status: 'open' })),
});
type Call = [method: string, path: string, headers: Record<string, string>, body?: string];
const json = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const mix: Array<(key: string) => Call> = [
  (key) => ['GET', '/v1/frameworks', { authorization: `Bearer ${key}` }],
  (key) => ['GET', '/v1/signals?per_page=5', { authorization: `Bearer ${key}` }],
  (key) => ['HEAD', '/v1/frameworks', { authorization: `Bearer ${key}` }],
  (key) => ['GET', '/v1/signals?q=x', { authorization: `Bearer ${key}` }],
  (key) => ['GET', '/v1/signals/NO-SUCH-SIGNAL', { authorization: `Bearer ${key}` }],
  () => ['GET', '/v1/frameworks', {}],
  (key) => ['POST', '/v1/mappings/bulk', json(key), JSON.stringify({ signal_ids: [ids[0]] })],
  () => ['POST', '/v1/mappings/bulk', json('nope'), JSON.stringify({ signal_ids: [ids[0]] })],
  (key) => ['POST', '/v1/validate', { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, 'x'.repeat(3000)],
  (key) => ['POST', '/v1/validate', json(key), '{"schema":"signal","data":'],
  (key) => ['POST', '/v1/gap-analysis', json(key), small],
  (key) => ['POST', '/v1/gap-analysis', json(key), pooled],
  (key) => ['POST', '/v1/validate/batch', json(key), JSON.stringify({ schema: 'signal', items: Array.from({ length: 30 }, () => ({})) })],
  (key) => ['GET', '/v1/gap-analysis/summary', { authorization: `Bearer ${key}` }],
  (key) => ['GET', '/v1/frameworks/HIPAA/controls?per_page=100', { authorization: `Bearer ${key}`, 'accept-encoding': 'br' }],
  (key) => ['DELETE', '/v1/frameworks', { authorization: `Bearer ${key}` }],
];

interface Outcome {
  status: number | string;
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
t.teardown(() => agent.destroy());
function viaNodeHttp([method, path, headers, body]: Call): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(`${service.url}${path}`, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - started }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? error.message, ms: performance.now() - started }));
    req.end(body);
  });
}

async function viaFetch([method, path, headers, body]: Call): Promise<Outcome> {
  const started = performance.now();
  try {
    const response = await fetch(`${service.url}${path}`, { method, headers, body });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } catch (error) {
    return { status: String((error as { cause?: { code?: string } }).cause?.code ?? error), ms: performance.now() - started };
  }
}

async function load(send: (call: Call) => Promise<Outcome>) {
  let next = 0;
  const failed: string[] = [];
  const stalled: string[] = [];
  const worker = async () => {
    for (let i = next++; i < REQUESTS_PER_CLIENT; i = next++) {
      const call = mix[i % mix.length](keys[i % keys.length]);
      const { status, ms } = await send(call);
      if (typeof status !== 'number' || status >= 500) failed.push(`${call[0]} ${call[1]}: ${status}`);
      if (ms >= STALL_MS) stalled.push(`${call[0]} ${call[1]}: ${Math.round(ms)} ms`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return { failed, stalled };
}

for (const [client, send] of [
  ['node:http keep-alive agent', viaNodeHttp],
  ['fetch', viaFetch],
] as const) {
  t.test(`${REQUESTS_PER_CLIENT} requests through ${client} on ${CONNECTIONS} connections: none lost, none stalled`, async (t) => {
    const { failed, stalled } = await load(send);
    t.same(failed.slice(0, 10), [], `no request failed (${failed.length})`);
    t.same(stalled.slice(0, 10), [], `none took ${STALL_MS} ms or more (${stalled.length})`);
  });
}
