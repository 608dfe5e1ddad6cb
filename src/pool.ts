import { Piscina } from 'piscina';
import { join } from 'node:path';
import { projectRoot } from './paths.js';
import { ApiError } from './core/errors.js';

/**
 * The worker pool for heavy tasks (gap analysis, batch validation, pdf/xlsx rendering). The queue
 * is bounded: when it is full the caller gets 503 service_busy with Retry-After instead of an
 * ever-growing backlog.
 */
export interface TaskPool {
  run<R>(task: string, input: unknown, transferList?: ArrayBuffer[]): Promise<R>;
  readonly queueSize: number;
  /** Resolves when every thread has loaded its modules, opened the registry and built its index. */
  readonly ready: Promise<void>;
  readonly isReady: boolean;
  close(): Promise<void>;
}

export const WORKER_ENTRY = join(projectRoot, 'dist', 'workers', 'tasks.js');

export function createTaskPool(options: { threads: number; queueLimit: number; registryDir: string }): TaskPool {
  const piscina = new Piscina({
    filename: WORKER_ENTRY,
    minThreads: options.threads,
    maxThreads: options.threads,
    maxQueue: options.queueLimit,
    workerData: { registryDir: options.registryDir },
    // Without it Piscina puts a task it could not hand out back at the tail of the queue, and
    // under steady load one request can wait seconds (measured: 1.5–2 s p100 at 4 concurrent
    // analyses on one thread; 110–190 ms with strict FIFO).
    stricterFIFO: true,
  });
  // One `ready` task per thread: each thread answers it once its module has loaded. Waiting for
  // them also keeps close() from tearing a thread down mid-load, which can abort the process.
  let isReady = false;
  const ready = Promise.all(Array.from({ length: options.threads }, () => piscina.run(null, { name: 'ready' }))).then(() => {
    isReady = true;
  });
  return {
    ready,
    get isReady() {
      return isReady;
    },
    async run<R>(task: string, input: unknown, transferList?: ArrayBuffer[]): Promise<R> {
      try {
        return (await piscina.run(input, { name: task, transferList })) as R;
      } catch (error) {
        if (error instanceof Error && error.message === 'Task queue is at limit') {
          throw new ApiError('service_busy', { retry_after: 1, queue_limit: options.queueLimit }, { headers: { 'Retry-After': '1' } });
        }
        throw error;
      }
    },
    get queueSize() {
      return piscina.queueSize;
    },
    async close() {
      await ready.catch(() => undefined);
      await piscina.destroy();
    },
  };
}
