import { join } from 'node:path';
import { projectRoot } from './paths.js';

/** The service's entry point, for the processes that start it (csr serve, the bench). */
export const SERVER_ENTRY = join(projectRoot, 'dist', 'src', 'server.js');

/**
 * V8 flags the service runs with: `npm start`, `csr serve` and the bench pass them, and an operator
 * starting `node dist/src/server.js` by hand should too. They must be on the command line: V8 aborts
 * at the next full GC when its GC flags change in a running process. Why each one is there:
 * docs/architecture.md, "V8 flags"; figures in docs/benchmarks.md.
 *
 * WORKER_SEMI_SPACE_MB is the worker's young-generation semi-space, given in full from the start
 * (--min-semi-space-size) and the largest src/pool.ts lets a worker have.
 */
export const WORKER_SEMI_SPACE_MB = 128;

export const SERVICE_NODE_FLAGS = [
  '--single-threaded-gc',
  '--heap-growing-percent=100',
  '--no-allocation-site-pretenuring',
  '--expose-gc',
  `--min-semi-space-size=${WORKER_SEMI_SPACE_MB}`,
];
