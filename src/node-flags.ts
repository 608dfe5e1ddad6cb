import { join } from 'node:path';
import { projectRoot } from './paths.js';

/** The service's entry point, for the processes that start it (csr serve, the bench). */
export const SERVER_ENTRY = join(projectRoot, 'dist', 'src', 'server.js');

/**
 * V8 flags the service runs with: `npm start`, `csr serve` and the bench pass them, and an
 * operator starting `node dist/src/server.js` by hand should too (README). They must be given on
 * the command line: changing V8's GC flags in a running process aborts it at the next full GC
 * (tried with v8.setFlagsFromString).
 *
 * --single-threaded-gc: under load the HTTP thread and the workers (cores − 1 by default) already
 * keep every core busy, so V8's parallel and concurrent GC helpers only compete with them and
 * make each pause wait for a descheduled helper. Measured on the 2-core bench machine, 500-finding
 * analyses back to back: the worker's scavenge time fell from about 540 to 310 ms per 10 s and
 * the analysis p99 from about 35 to 25 ms (docs/benchmarks.md).
 *
 * --heap-growing-percent=100: after each full GC V8 lets the old generation grow to twice what
 * survived. Its own choice on the HTTP thread, once its memory reducer had run, was 1.3× (80 MB
 * live, limit 104 MB), and the thread then marked its whole heap every 0.2 s while analyses came
 * back: 98 mark-compacts in 20 s of 500-finding analyses back to back, 27 % of its time. With the
 * flag, 28 (the rest are started by 64 MB of new result buffers, whatever the limit). In the
 * bench's shorter runs the change in latency is within the noise (docs/benchmarks.md).
 *
 * --no-allocation-site-pretenuring: V8 watches how many objects from each allocation site survive
 * a scavenge, and from a site where most do it allocates straight in the old generation. A
 * scavenge that lands mid-analysis finds most of that analysis's objects alive, and in 3 of 9
 * fresh starts (500-finding analyses back to back) the worker then put every analysis's
 * short-lived objects in its old generation: it grew by 170 MB between mark-compacts, one every
 * 1.7 s, and the slowest answer in each hundred took 41–50 ms instead of 17–22. With the flag,
 * 9 of 9 starts stayed at 17–21 ms; registry reads are unchanged (docs/benchmarks.md).
 *
 * --expose-gc: a worker scavenges before an analysis that would not fit in its young generation,
 * rather than in the middle of it (workers/tasks.ts `makeRoom`): the slowest tenth of 500-finding
 * analyses went from 19–21 to 13–14 ms in a worker, and to 15–18 ms through the service
 * (docs/benchmarks.md, session 11). A worker also runs a full GC once it is idle after a large task
 * (workers/tasks.ts `afterTask`).
 *
 * --min-semi-space-size: a worker's young generation starts at its largest (WORKER_SEMI_SPACE_MB,
 * the largest src/pool.ts lets a worker have) instead of growing to it. It used to grow from 2 × 64 to 2 × 128 MB on the first
 * 10,000-finding analysis or large scanner import, and each page it gained cost a page fault the
 * first time it was written: the next 30 or so 500-finding analyses took 60–70 ms instead of
 * 15–20. The warm-up now writes the whole young generation through before the thread is ready
 * (0.5–0.9 s more to `/readyz`), and V8 never shrinks it below this size. The price is memory:
 * about 130 MB more per worker from the start. V8 caps the size at each thread's maximum, so the
 * HTTP thread's young generation starts at its default maximum (16 MB); registry reads did not
 * change (docs/benchmarks.md, session 14).
 */
export const WORKER_SEMI_SPACE_MB = 128;

export const SERVICE_NODE_FLAGS = [
  '--single-threaded-gc',
  '--heap-growing-percent=100',
  '--no-allocation-site-pretenuring',
  '--expose-gc',
  `--min-semi-space-size=${WORKER_SEMI_SPACE_MB}`,
];
