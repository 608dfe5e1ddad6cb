import t, { type Test } from 'tap';
import { createServer, type Server } from 'node:net';
import { MemoryRateLimiter } from '../../src/limits/memory.js';
import { RedisRateLimiter } from '../../src/limits/redis.js';
import type { RateLimiter } from '../../src/limits/types.js';
import { ADDRESS_RATE_LIMITS, RATE_LIMITS } from '../../src/tiers.js';
import { freePort, startRedis, throwaway } from '../helpers/servers.js';

/**
 * One rate-limit suite, two limiters: the in-memory one (one node) and the Redis one (every node
 * shares the counts). Same windows, same headers, same refusals.
 */
const MINUTE = 60_000;

type Open = (now: () => number) => Promise<RateLimiter>;

async function consume(limiter: RateLimiter, subject: string, limits = RATE_LIMITS.community) {
  return await limiter.consume(subject, limits);
}

function contract(t: Test, name: string, open: Open) {
  t.test(`${name}: the minute window, its headers and the 429 verdict`, async (t) => {
    let now = Date.UTC(2026, 10, 23, 12, 0, 5);
    const limiter = await open(() => now);
    t.teardown(() => limiter.close());
    const first = await consume(limiter, 'account:a');
    t.same(first, {
      allowed: true,
      headers: {
        'X-RateLimit-Limit': '60',
        'X-RateLimit-Remaining': '59',
        'X-RateLimit-Reset': String(Date.UTC(2026, 10, 23, 12, 1, 0) / 1000),
        'X-RateLimit-Daily-Limit': '10000',
        'X-RateLimit-Daily-Remaining': '9999',
      },
    });
    for (let i = 2; i <= 60; i++) t.equal((await consume(limiter, 'account:a')).allowed, true);
    const refused = await consume(limiter, 'account:a');
    t.equal(refused.allowed, false, 'the 61st request of the minute is refused');
    t.equal(refused.headers['X-RateLimit-Remaining'], '0');
    t.equal(refused.headers['X-RateLimit-Daily-Remaining'], '9940', 'a refused request is not counted');
    t.equal(refused.retryAfter, 55);
    t.equal(refused.limit, 60);
    t.equal(refused.resetAt, Date.UTC(2026, 10, 23, 12, 1, 0));
    t.equal((await consume(limiter, 'account:b')).allowed, true, 'subjects are counted apart');
    now += MINUTE;
    const next = await consume(limiter, 'account:a');
    t.equal(next.allowed, true, 'a new minute opens a new window');
    t.equal(next.headers['X-RateLimit-Daily-Remaining'], '9939', 'the day keeps counting');
  });

  t.test(`${name}: the daily window, unlimited days, addresses`, async (t) => {
    let now = Date.UTC(2026, 10, 23, 23, 58, 0);
    const limiter = await open(() => now);
    t.teardown(() => limiter.close());
    const tight = { perMinute: 5, perDay: 7 };
    for (let i = 0; i < 5; i++) await consume(limiter, 'account:c', tight);
    now += MINUTE;
    await consume(limiter, 'account:c', tight);
    await consume(limiter, 'account:c', tight);
    const refused = await consume(limiter, 'account:c', tight);
    t.equal(refused.allowed, false, 'the day is used up');
    t.equal(refused.limit, 7);
    t.equal(refused.resetAt, Date.UTC(2026, 10, 24), 'the wait is until the day ends');
    now += 2 * MINUTE;
    t.equal((await consume(limiter, 'account:c', tight)).allowed, true, 'a new UTC day');

    const unlimited = await consume(limiter, 'account:e', RATE_LIMITS.enterprise);
    t.equal(unlimited.headers['X-RateLimit-Daily-Limit'], 'unlimited');
    t.equal(unlimited.headers['X-RateLimit-Daily-Remaining'], 'unlimited');
    t.equal(unlimited.headers['X-RateLimit-Limit'], '1000');

    for (let i = 0; i < ADDRESS_RATE_LIMITS.perMinute; i++) await consume(limiter, '203.0.113.9', ADDRESS_RATE_LIMITS);
    t.equal((await consume(limiter, '203.0.113.9', ADDRESS_RATE_LIMITS)).allowed, false, 'an address has its minute');
    now += MINUTE;
    t.equal((await consume(limiter, '203.0.113.9', ADDRESS_RATE_LIMITS)).allowed, true, 'and only its minute');
  });

  t.test(`${name}: simultaneous requests never overshoot`, async (t) => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 5);
    const limiter = await open(() => now);
    t.teardown(() => limiter.close());
    const verdicts = await Promise.all(Array.from({ length: 100 }, () => consume(limiter, 'account:burst')));
    t.equal(verdicts.filter((v) => v.allowed).length, 60, '60 of 100 simultaneous requests pass');
  });
}

t.test('memory', async (t) => contract(t, 'memory', async (now) => new MemoryRateLimiter(now)));

t.test('redis', async (t) => {
  const server = await throwaway(t, startRedis);
  if (!server) return;
  let database = 0;
  // Each case gets its own logical database, so counts never leak between cases.
  const opened: RedisRateLimiter[] = [];
  const connected = async (url: string, now: () => number) => {
    const limiter = new RedisRateLimiter(url, { timeoutMs: 1000, now });
    t.equal(await limiter.ready(5000), true, 'connected');
    opened.push(limiter);
    return limiter;
  };
  contract(t, 'redis', (now) => connected(`${server.url}/${++database}`, now));

  t.test('two nodes share one count', async (t) => {
    const now = () => Date.UTC(2026, 10, 23, 12, 0, 5);
    const url = `${server.url}/${++database}`;
    const [a, b] = [await connected(url, now), await connected(url, now)];
    t.teardown(() => Promise.all([a.close(), b.close()]));
    const both = await Promise.all(Array.from({ length: 80 }, (_, i) => consume(i % 2 ? a : b, 'account:shared')));
    t.equal(both.filter((v) => v.allowed).length, 60, '80 simultaneous requests over two nodes: 60 pass');
  });
  t.test('every answer above came from Redis, none from a local fallback', async (t) => {
    t.same(
      opened.map((limiter) => limiter.fallbacks),
      opened.map(() => 0),
    );
  });
});

t.test('redis unreachable: the node fails open to its own counts, and says so', async (t) => {
  // A listener that accepts and never replies (a hung Redis), and a closed port (a Redis that is down).
  const hung: Server = createServer(() => {});
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => hung.close(() => resolve())));
  const hungPort = (hung.address() as { port: number }).port;
  const closedPort = await freePort();

  for (const [what, port] of [
    ['down', closedPort],
    ['hung', hungPort],
  ] as const) {
    const transitions: boolean[] = [];
    // One fixed instant: 61 waits of up to 100 ms on the real clock could straddle a minute's end.
    const limiter = new RedisRateLimiter(`redis://127.0.0.1:${port}`, {
      timeoutMs: 100,
      now: () => Date.UTC(2026, 10, 23, 12, 0, 5),
      onFallback: (fallingBack) => transitions.push(fallingBack),
    });
    const verdicts = [];
    let longest = 0;
    for (let i = 0; i < 61; i++) {
      const started = Date.now();
      verdicts.push(await limiter.consume('account:lonely', RATE_LIMITS.community));
      longest = Math.max(longest, Date.now() - started);
    }
    await limiter.close();
    t.equal(
      verdicts.slice(0, 60).every((v) => v.allowed),
      true,
      `${what}: requests are answered`,
    );
    t.equal(verdicts[60].allowed, false, `${what}: by the node's own limiter, which still refuses the 61st`);
    t.equal(verdicts[0].headers['X-RateLimit-Limit'], '60', `${what}: with the same headers`);
    t.equal(limiter.fallbacks, 61, `${what}: every such answer is counted`);
    t.equal(limiter.shared, false, `${what}: the limiter reports that counts are not shared`);
    t.same(transitions, [true], `${what}: the switch is reported once`);
    // Bounded by the 100 ms timeout, not by a connect timeout of seconds; the margin is for a loaded machine.
    t.ok(longest < 2000, `${what}: no request waits for Redis past the timeout (longest ${longest} ms)`);
  }
});

t.test('redis comes back: counts are shared again', async (t) => {
  const port = await freePort();
  const transitions: boolean[] = [];
  const limiter = new RedisRateLimiter(`redis://127.0.0.1:${port}`, { timeoutMs: 500, onFallback: (fallingBack) => transitions.push(fallingBack) });
  t.teardown(() => limiter.close());
  await limiter.consume('account:x', RATE_LIMITS.pro);
  t.equal(limiter.shared, false, 'nothing on the port: counted locally');
  const server = await throwaway(t, () => startRedis(port));
  if (!server) return;
  // The client reconnects by itself ('ready'); the next count then goes to Redis. The bound only stops a hang.
  t.equal(await limiter.ready(60_000), true, 'the client reconnected');
  await limiter.consume('account:x', RATE_LIMITS.pro);
  t.equal(limiter.shared, true, 'Redis back on its port: the counts are shared again');
  t.same(transitions, [true, false], 'both switches reported');
});
