import t from 'tap';
import { execFileSync } from 'node:child_process';
import { SERVICE_NODE_FLAGS, WORKER_SEMI_SPACE_MB } from '../../src/node-flags.js';

/**
 * What workers/tasks.ts relies on from V8, checked in a node started with the service's flags:
 * which collection each form of `gc()` runs, and the size of a worker's young generation.
 */
const script = `
const { PerformanceObserver, constants } = require('node:perf_hooks');
const { Worker } = require('node:worker_threads');
const kinds = [];
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) kinds.push(entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR ? 'major' : entry.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR ? 'minor' : 'other');
});
observer.observe({ entryTypes: ['gc'] });
const calls = {};
setTimeout(() => {
  kinds.length = 0; gc({ type: 'minor' });
  setTimeout(() => {
    calls.minor = [...kinds]; kinds.length = 0; gc();
    setTimeout(() => {
      calls.none = [...kinds];
      const worker = new Worker(
        "const { getHeapSpaceStatistics } = require('node:v8');" +
        "const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');" +
        "require('node:worker_threads').parentPort.postMessage(young.space_used_size + young.space_available_size);",
        { eval: true, resourceLimits: { maxYoungGenerationSizeMb: ${3 * WORKER_SEMI_SPACE_MB} } },
      );
      worker.once('message', (semiSpaceBytes) => { console.log(JSON.stringify({ ...calls, semiSpaceBytes })); worker.terminate(); observer.disconnect(); });
    }, 50);
  }, 50);
}, 50);
`;

const report = JSON.parse(execFileSync(process.execPath, [...SERVICE_NODE_FLAGS, '-e', script], { encoding: 'utf8' })) as {
  minor: string[];
  none: string[];
  semiSpaceBytes: number;
};

t.same(report.minor, ['minor'], "gc({ type: 'minor' }) is one scavenge (makeRoom)");
t.same(report.none, ['major'], 'gc() with no argument is one full GC (the collection afterTask leaves owed)');
const semiSpaceMb = report.semiSpaceBytes / (1024 * 1024);
t.ok(
  semiSpaceMb > WORKER_SEMI_SPACE_MB * 0.95 && semiSpaceMb <= WORKER_SEMI_SPACE_MB,
  `a new worker's semi-space is ${WORKER_SEMI_SPACE_MB} MB from the start (${semiSpaceMb.toFixed(1)} MB)`,
);
