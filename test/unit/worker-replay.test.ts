import t from 'tap';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { SERVICE_NODE_FLAGS, WORKER_SEMI_SPACE_MB } from '../../src/node-flags.js';
import { WORKER_ENTRY } from '../../src/pool.js';
import { projectRoot, defaultRegistryDir } from '../../src/paths.js';
import { Registry } from '../../src/registry/registry.js';

/**
 * workers/tasks.ts replays a thread's latest analysis after its first one and after a full GC it
 * ran while idle, so that the next request finds the analysis code optimized for its clients'
 * objects. Checked in the worker module as Piscina loads it, in a node started with the service's
 * flags, through V8's %GetOptimizationStatus of the engine's `assess`: without the replays, the
 * next analysis in each case ran it unoptimized (TurboFan was still compiling it).
 */
const registry = Registry.open(defaultRegistryDir);
const ids = registry.signalIds();
await registry.close();
/** Findings as a scanner integration sends them: more fields than the warm-up's own request. */
const request = (count: number) =>
  JSON.stringify({
    frameworks: ['HIPAA', 'SOC2', 'PCIDSS', 'ISO27001'],
    findings: Array.from({ length: count }, (_, i) => ({
      id: `finding-${i}`,
      signal_id: ids[(i * 7919) % ids.length],
      status: i % 3 === 0 ? 'resolved' : 'open',
      observed_at: '2026-11-20T10:00:00Z',
      artifact: { type: 'cloud.storage.object_bucket', id: `arn:aws:s3:::bucket-${i}`, provider: 'aws' },
    })),
  });
const small = request(300);
// Over the 1 MB after which the thread owes a full GC once it is idle.
const large = request(6000);
t.ok(large.length > 1024 * 1024, `the large request is over 1 MB (${large.length} bytes)`);

const workerCode = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const tasks = await import(workerData.tasksUrl);
  const { assess } = await import(workerData.engineUrl);
  const analyze = (body) => tasks.analyze({ body: Buffer.from(body), tier: 'enterprise', id: 'test', createdAt: new Date().toISOString() });
  // The TurboFan bit of V8's optimization status (V8 11.3, Node 20).
  const optimized = () => (%GetOptimizationStatus(assess) & (1 << 6)) !== 0;
  // Idle with nothing to wake the event loop (the thread's own timer aside), as a pool thread is.
  const idle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  // Idle, the event loop turning: V8's memory reducer runs its collection as a task of the loop.
  const idleTurning = async (ms) => { for (let waited = 0; waited < ms; waited += 50) await idle(50); };
  const nextAnalysis = () => { const before = optimized(); analyze(workerData.small); return { before, after: optimized() }; };
  const report = {};
  analyze(workerData.small);
  await idle(1000);
  report.afterFirstAnalysis = nextAnalysis();
  for (let i = 0; i < 40; i++) analyze(workerData.small);
  report.warm = optimized();
  analyze(workerData.large);
  await idle(2000);
  report.afterOwedCollection = nextAnalysis();
  await idleTurning(100);
  gc();
  await idleTurning(2000);
  report.afterIdleCollection = nextAnalysis();
  parentPort.postMessage(report);
})();
`;

const parentCode = `
const { Worker } = require('node:worker_threads');
const worker = new Worker(${JSON.stringify(workerCode)}, {
  eval: true,
  workerData: JSON.parse(require('node:fs').readFileSync(0, 'utf8')),
  resourceLimits: { maxYoungGenerationSizeMb: ${3 * WORKER_SEMI_SPACE_MB} },
});
worker.once('message', (report) => { console.log(JSON.stringify(report)); process.exit(0); });
worker.once('error', (error) => { console.error(error); process.exit(1); });
`;

const workerData = {
  registryDir: defaultRegistryDir,
  tasksUrl: pathToFileURL(WORKER_ENTRY).href,
  engineUrl: pathToFileURL(join(projectRoot, 'dist', 'src', 'gap', 'engine.js')).href,
  small,
  large,
};
const output = execFileSync(process.execPath, [...SERVICE_NODE_FLAGS, '--allow-natives-syntax', '-e', parentCode], {
  encoding: 'utf8',
  input: JSON.stringify(workerData),
});
type Next = { before: boolean; after: boolean };
const report = JSON.parse(output) as { afterFirstAnalysis: Next; warm: boolean; afterOwedCollection: Next; afterIdleCollection: Next };

t.same(
  report.afterFirstAnalysis,
  { before: true, after: true },
  "after the thread's first analysis, with objects its start-up warm-up never made, the next request finds assess optimized and keeps it so",
);
t.ok(report.warm, 'after 40 analyses, assess runs optimized');
t.same(
  report.afterOwedCollection,
  { before: true, after: true },
  'after the full GC a large analysis leaves owed, the next request finds assess optimized and keeps it so',
);
t.same(report.afterIdleCollection, { before: true, after: true }, 'after a full GC V8 runs while the thread is idle, likewise');
