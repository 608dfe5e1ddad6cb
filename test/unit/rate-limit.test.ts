import t from 'tap';
import { MemoryRateLimiter as RateLimiter } from '../../src/limits/memory.js';
import { ADDRESS_RATE_LIMITS, RATE_LIMITS } from '../../src/tiers.js';

const MINUTE = 60_000;

t.test('an address is forgotten when its minute ends; an account keeps its day', async (t) => {
  let now = Date.UTC(2026, 10, 23, 12, 0, 5);
  const limiter = new RateLimiter(() => now);
  for (let i = 0; i < 1000; i++) limiter.consume(`10.0.${i >> 8}.${i & 255}`, ADDRESS_RATE_LIMITS);
  limiter.consume('account:a', RATE_LIMITS.community);
  t.equal(limiter.size, 1001);
  limiter.prune();
  t.equal(limiter.size, 1001, 'nothing ends within the minute');
  now += MINUTE;
  limiter.prune();
  t.equal(limiter.size, 1, 'the addresses are gone, the account stays for its daily window');
  t.equal(limiter.consume('account:a', RATE_LIMITS.community).headers['X-RateLimit-Daily-Remaining'], '9998', 'with its daily count');
  now += 86_400_000;
  limiter.prune();
  t.equal(limiter.size, 0);
});

t.test('the table is bounded: a new subject displaces the oldest once ended windows are gone', async (t) => {
  const now = Date.UTC(2026, 10, 23, 12, 0, 5);
  const limiter = new RateLimiter(() => now, 100);
  for (let i = 0; i < 250; i++) limiter.consume(`address-${i}`, ADDRESS_RATE_LIMITS);
  t.equal(limiter.size, 100);
  const recent = limiter.consume('address-249', ADDRESS_RATE_LIMITS);
  t.equal(recent.headers['X-RateLimit-Remaining'], String(ADDRESS_RATE_LIMITS.perMinute - 2), 'recent subjects keep their counts');
});
