import t from 'tap';
import { fileURLToPath } from 'node:url';
import { AnswerBuffers, createTaskPool, TURNS_PER_THREAD, type PoolTurn, type TaskName } from '../../src/pool.js';
import { ApiError } from '../../src/core/errors.js';

// The production table types the pool; these tests drive a module of their own through it.
const FAULTY = fileURLToPath(new URL('../helpers/faulty-tasks.js', import.meta.url));
const pool = createTaskPool({ threads: 1, queueLimit: 4, registryDir: '', taskTimeoutMs: 3000, filename: FAULTY });
t.teardown(() => pool.close());
const run = (task: string, input: unknown = null): Promise<unknown> => pool.run(task as TaskName, input as never);

/**
 * The answer of an echo task once the pool serves again. A replacement thread starts in about a
 * second, longer on a loaded machine, and tasks submitted meanwhile may use up their budget
 * waiting: a few tries, each bounded by the budget, tell a slow recovery from none.
 */
async function echoOnceRecovered(value: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await run('echo', value)) as number;
    } catch (error) {
      if (attempt === 5 || !(error instanceof ApiError) || error.code !== 'task_timeout') throw error;
    }
  }
}

await pool.ready;

t.test('tasks waiting for a thread are served first in, first out', async (t) => {
  const finished: number[] = [];
  const busy = run('hold', 300);
  const queued = [1, 2, 3, 4].map((value) => run('echo', value).then((v) => finished.push(v as number)));
  t.equal(pool.queueSize, 4, 'all four wait while the one thread is held');
  await Promise.all([busy, ...queued]);
  t.same(finished, [1, 2, 3, 4]);
});

t.test('a task that throws is a rejection, and the pool goes on', async (t) => {
  await t.rejects(run('fail'), /task failed on purpose/);
  t.equal(await echoOnceRecovered(7), 7);
});

t.test('a task past its time budget answers 503 task_timeout and its thread is replaced', async (t) => {
  const stuck = run('spin');
  const error = await stuck.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(error instanceof ApiError, 'an API error');
  t.equal((error as ApiError).code, 'task_timeout');
  t.equal((error as ApiError).status, 503);
  t.equal((error as ApiError).headers?.['Retry-After'], '1');
  t.equal(await echoOnceRecovered(2), 2, 'a new thread answers later tasks');
  t.equal(pool.health.ready, true);
});

t.test('a task that ends its thread is a rejection, and the pool goes on', async (t) => {
  await t.rejects(run('exitThread'));
  t.equal(await echoOnceRecovered(3), 3);
});

t.test('a full queue refuses at once with service_busy, and /readyz sees it', async (t) => {
  const stuck = [run('spin'), run('spin'), run('spin'), run('spin'), run('spin')];
  t.same(pool.health, { ready: false, reason: 'queue_full', queued: 4, queue_limit: 4 });
  const refused = await run('echo', 4).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.equal((refused as ApiError).code, 'service_busy');
  const outcomes = await Promise.allSettled(stuck);
  t.ok(
    outcomes.every((o) => o.status === 'rejected' && (o.reason as ApiError).code === 'task_timeout'),
    'every stuck task times out',
  );
  t.equal(await echoOnceRecovered(5), 5, 'the pool serves again');
  t.equal(pool.health.ready, true);
});

t.test('answer buffers: kept up to a count and a size, the small and the transferred ignored, last in first out', async (t) => {
  const buffers = new AnswerBuffers();
  t.equal(buffers.take(), undefined, 'none at first');
  buffers.give(new ArrayBuffer(1024));
  t.equal(buffers.take(), undefined, 'a small buffer is not kept');
  const transferred = new ArrayBuffer(1 << 20);
  structuredClone(transferred, { transfer: [transferred] });
  buffers.give(transferred);
  t.equal(buffers.take(), undefined, 'a transferred buffer is not kept');
  const sizes = [1, 2, 3, 4, 5].map((mb) => mb << 20);
  for (const size of sizes) buffers.give(new ArrayBuffer(size));
  t.same(
    [buffers.take(), buffers.take(), buffers.take(), buffers.take(), buffers.take()].map((b) => b?.byteLength),
    [4 << 20, 3 << 20, 2 << 20, 1 << 20, undefined],
    'four kept, the last given first',
  );
  buffers.give(new ArrayBuffer(40 << 20));
  buffers.give(new ArrayBuffer(30 << 20));
  t.same([buffers.take()?.byteLength, buffers.take()], [40 << 20, undefined], 'no more than 64 MB kept');
});

t.test('closing the pool answers every unfinished task, running or waiting, 503 shutting_down', async (t) => {
  const closing = createTaskPool({ threads: 1, queueLimit: 4, registryDir: '', taskTimeoutMs: 3000, filename: FAULTY });
  await closing.ready;
  const runOn = (task: string, input: unknown) => closing.run(task as TaskName, input as never);
  const running = runOn('hold', 2000);
  const waiting = [runOn('echo', 1), runOn('echo', 2)];
  t.equal(closing.queueSize, 2, 'two wait behind the running task');
  const settled = Promise.allSettled([running, ...waiting]);
  await closing.close();
  const outcomes = [...(await settled), ...(await Promise.allSettled([runOn('echo', 3)]))];
  t.same(
    outcomes.map((o) => (o.status === 'rejected' && o.reason instanceof ApiError ? `${o.reason.status} ${o.reason.code}` : o.status)),
    ['503 shutting_down', '503 shutting_down', '503 shutting_down', '503 shutting_down'],
    'the running task, the two waiting and one submitted after close',
  );
  t.equal(closing.queueSize, 0);
});

t.test('a task that waited most of its budget for a thread still gets the whole budget to run', async (t) => {
  const budgeted = createTaskPool({ threads: 1, queueLimit: 4, registryDir: '', taskTimeoutMs: 1500, filename: FAULTY });
  t.teardown(() => budgeted.close());
  await budgeted.ready;
  const runOn = (task: string, input: unknown) => budgeted.run(task as TaskName, input as never);
  const first = runOn('hold', 1000);
  // Submitted now, it gets the thread after 1,000 ms and needs 900 ms more: past 1,500 ms from submission.
  const second = runOn('hold', 900);
  t.same(await Promise.all([first, second]), [1000, 900], 'both answered');
  const stuck = await runOn('spin', null).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.equal((stuck as ApiError).code, 'task_timeout', 'a task stuck on its thread is still stopped');
});

t.test('turns: threads × 2 at once, then first in first out, a bounded queue, a budget, and a client that leaves', async (t) => {
  const turns = createTaskPool({ threads: 1, queueLimit: 2, registryDir: '', taskTimeoutMs: 800, filename: FAULTY });
  t.teardown(() => turns.close());
  await turns.ready;
  t.equal(TURNS_PER_THREAD, 2);
  const open = () => new AbortController();
  const held = [turns.takeTurn(open().signal), turns.takeTurn(open().signal)];
  t.ok(
    held.every((turn) => !(turn instanceof Promise)),
    'two turns for one thread, at once',
  );
  const [first, second] = held as PoolTurn[];

  const granted: string[] = [];
  const leaving = open();
  const third = (turns.takeTurn(open().signal) as Promise<PoolTurn>).then((turn) => {
    granted.push('third');
    return turn;
  });
  const gone = (turns.takeTurn(leaving.signal) as Promise<PoolTurn>).then(() => granted.push('gone'));
  t.same(turns.health, { ready: false, reason: 'queue_full', queued: 2, queue_limit: 2 }, 'two wait: the queue is full');
  t.throws(() => turns.takeTurn(open().signal), { code: 'service_busy' }, 'a third waiter is refused at once');

  leaving.abort(new Error('client left'));
  await t.rejects(gone, /client left/, 'a client that leaves gives up its place');
  t.equal(turns.queueSize, 1);
  first.release();
  first.release();
  const thirdTurn = await third;
  t.same(granted, ['third'], 'the released turn goes to the oldest waiter; a second release does nothing');
  const fourth = turns.takeTurn(open().signal);
  t.ok(fourth instanceof Promise, 'still two turns held');
  await t.rejects(fourth as Promise<PoolTurn>, { code: 'task_timeout' }, 'a wait longer than the budget is refused');

  // A held turn of a client that leaves is released.
  const client = open();
  second.release();
  const fifth = turns.takeTurn(client.signal);
  t.notOk(fifth instanceof Promise, 'a released turn is free again');
  t.ok(turns.takeTurn(open().signal) instanceof Promise, 'all held');
  client.abort();
  thirdTurn.release();
  t.equal(turns.queueSize, 0, 'the waiter got the turn the leaving client held');
});

t.test('closing the pool refuses the requests waiting for a turn with shutting_down', async (t) => {
  const closing = createTaskPool({ threads: 1, queueLimit: 4, registryDir: '', taskTimeoutMs: 3000, filename: FAULTY });
  await closing.ready;
  const signal = new AbortController().signal;
  closing.takeTurn(signal);
  closing.takeTurn(signal);
  const waiting = t.rejects(closing.takeTurn(signal) as Promise<PoolTurn>, { code: 'shutting_down' });
  await closing.close();
  await waiting;
  t.throws(() => closing.takeTurn(signal), { code: 'shutting_down' });
});

t.test('a task whose client left before it got a thread is not started', async (t) => {
  const busy = run('hold', 400);
  const leaving = new AbortController();
  const started: number[] = [];
  const abandoned = pool.run('echo' as TaskName, 1 as never, undefined, leaving.signal).then((v) => started.push(v as unknown as number));
  const kept = run('echo', 2).then((v) => started.push(v as number));
  t.equal(pool.queueSize, 2);
  leaving.abort(new Error('client left'));
  await t.rejects(abandoned, /client left/);
  t.equal(pool.queueSize, 1, 'it left the queue');
  await Promise.all([busy, kept]);
  t.same(started, [2], 'only the task of the client that stayed ran');
  await t.rejects(pool.run('echo' as TaskName, 3 as never, undefined, leaving.signal), /client left/, 'a client already gone is refused at once');
});
