/**
 * A task module for pool tests: the same task names as workers/tasks.ts where the pool needs them
 * (`ready`), plus tasks that fail, spin forever or end their thread, so the tests can show that
 * none of these wedges the pool.
 */
export function ready(): true {
  return true;
}

export function echo(value: number): number {
  return value;
}

export function fail(): never {
  throw new Error('task failed on purpose');
}

export function spin(): never {
  for (;;);
}

export function exitThread(): never {
  process.exit(3);
}

/** Keeps its thread busy for `ms` milliseconds, so the tasks submitted meanwhile must queue. */
export async function hold(ms: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return ms;
}
