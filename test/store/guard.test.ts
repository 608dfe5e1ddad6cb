import t from 'tap';
import { ApiError } from '../../src/core/errors.js';
import { guarded, StoreGuard } from '../../src/store/postgres/guard.js';
import { until } from '../helpers/wait.js';

/**
 * The guard every PostgreSQL call goes through (src/store/postgres/guard.ts), with work and
 * probes that the test settles itself: the deadline, per-account turns, refusing at once while the
 * database is known not to answer, and noticing it answer again.
 */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function refusal(work: Promise<unknown>): Promise<ApiError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('resolved where a refusal was expected');
}

const connectionLost = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

t.test('past its deadline a call is refused 503 store_unavailable with Retry-After', async (t) => {
  const guard = new StoreGuard({ timeoutMs: 60, accountConcurrency: 4, probe: async () => undefined });
  t.teardown(() => guard.close());
  const started = performance.now();
  const error = await refusal(guard.run('acme', () => new Promise(() => {})));
  const took = performance.now() - started;
  t.equal(error.status, 503);
  t.equal(error.code, 'store_unavailable');
  t.same(error.details, { reason: 'timeout', timeout_ms: 60, retry_after: 1 });
  t.same(error.headers, { 'Retry-After': '1' });
  t.ok(took >= 55 && took < 1000, `refused after ${Math.round(took)} ms`);
  t.equal(guard.health().available, true, 'one slow call does not mark the store unavailable while the probe answers');
  t.equal(await guard.run('acme', async () => 'ok'), 'ok', 'the next call runs');
});

t.test("an account's calls beyond its turns wait, and past the deadline are refused; other accounts are not held", async (t) => {
  const guard = new StoreGuard({ timeoutMs: 200, accountConcurrency: 2, probe: async () => undefined });
  t.teardown(() => guard.close());
  const slow = [deferred(), deferred()];
  const running = Promise.allSettled(slow.map((d) => guard.run('big', () => d.promise)));
  let thirdStarted = false;
  const third = guard.run('big', async () => {
    thirdStarted = true;
    return 'third';
  });
  t.equal(await guard.run('small', async () => 'small'), 'small', 'another account runs at once');
  t.equal(thirdStarted, false, 'the third call of the busy account waits for a turn');
  slow[0].resolve();
  t.equal(await third, 'third', 'and runs when one ends');
  // slow[1] (its caller refused at the deadline, its work still running) and a call that never ends hold both turns: a fifth call waits in vain.
  const fourth = refusal(guard.run('big', () => new Promise(() => {})));
  const fifth = refusal(guard.run('big', async () => 'never'));
  t.equal((await fourth).details?.reason, 'timeout');
  const waited = await fifth;
  slow[1].resolve();
  t.same(
    (await running).map((r) => r.status),
    ['fulfilled', 'rejected'],
    'the call whose work outlived its deadline was refused',
  );
  t.equal(waited.details?.reason, 'account_busy', 'a call that never got a turn says so');
  t.match(waited.message, /already has 2 store operations running/);
  t.same(guard.health().refused, { timeout: 2, unreachable: 0, account_busy: 1 });
});

t.test('a lost connection marks the store unavailable: calls are refused at once until a probe answers', async (t) => {
  const probes: Array<ReturnType<typeof deferred<unknown>>> = [];
  const changes: boolean[] = [];
  const guard = new StoreGuard({
    timeoutMs: 1000,
    accountConcurrency: 4,
    probe: () => {
      const probe = deferred<unknown>();
      probes.push(probe);
      return probe.promise;
    },
    onChange: (available) => changes.push(available),
  });
  t.teardown(() => guard.close());
  const first = await refusal(
    guard.run('acme', async () => {
      throw connectionLost();
    }),
  );
  t.equal(first.details?.reason, 'unreachable', 'a connection error is store_unavailable, not a 500');
  t.equal(guard.health().available, false);
  t.equal(probes.length, 1, 'a probe starts at once');
  let ran = false;
  const refused = await refusal(
    guard.run('acme', async () => {
      ran = true;
    }),
  );
  t.equal(refused.details?.reason, 'unreachable');
  t.equal(ran, false, 'while unavailable the work is not even started');
  probes[0].reject(connectionLost());
  const after = await until(() => probes.length === 2, 'the next probe');
  t.ok(after < 500, `the next probe follows the failed one at once (${after} ms)`);
  probes[1].resolve(undefined);
  await until(() => guard.health().available, 'the store is available again');
  t.pass('the probe answering makes the store available');
  t.same(changes, [false, true], 'each change reported once');
  t.equal(await guard.run('acme', async () => 'ok'), 'ok');
});

t.test('errors of the work itself pass through unchanged', async (t) => {
  const guard = new StoreGuard({ timeoutMs: 1000, accountConcurrency: 4, probe: async () => undefined });
  t.teardown(() => guard.close());
  const notFound = new ApiError('GAP_NOT_FOUND', { id: 'x' });
  t.equal(await refusal(guard.run('acme', () => Promise.reject(notFound))), notFound);
  const bug = new TypeError('a bug');
  await t.rejects(
    guard.run('acme', () => Promise.reject(bug)),
    bug,
    'a bug stays a bug (500), not a 503',
  );
  const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
  t.equal((await refusal(guard.run('acme', () => Promise.reject(cancelled)))).details?.reason, 'timeout', "the server's statement_timeout is a timeout");
});

t.test('guarded: methods returning promises run through the guard, named ones are left alone', async (t) => {
  const guard = new StoreGuard({ timeoutMs: 50, accountConcurrency: 1, probe: async () => undefined });
  t.teardown(() => guard.close());
  const store = {
    calls: 0,
    authenticate(key: string) {
      return key === 'k';
    },
    async get(account: string) {
      this.calls += 1;
      return account;
    },
    hang(_account: string) {
      return new Promise(() => {});
    },
  };
  const wrapped = guarded(store, guard, { sync: ['authenticate'] });
  t.equal(wrapped.authenticate('k'), true, 'a synchronous method answers synchronously');
  t.equal(await wrapped.get('acme'), 'acme');
  t.equal(store.calls, 1, 'the method runs on the store itself');
  t.equal((await refusal(wrapped.hang('acme'))).details?.reason, 'timeout');
});
