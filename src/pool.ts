import { Piscina } from 'piscina';
import { join } from 'node:path';
import { projectRoot } from './paths.js';
import { ApiError } from './http/errors.js';

/**
 * The worker pool for heavy tasks (gap analysis, batch validation, pdf/xlsx rendering). The queue
 * is bounded: when it is full the caller gets 503 service_busy with Retry-After instead of an
 * ever-growing backlog.
 */
export interface TaskPool {
  run<R>(task: string, input: unknown, transferList?: ArrayBuffer[]): Promise<R>;
  readonly queueSize: number;
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
  });
  return {
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
    close: () => piscina.destroy(),
  };
}
