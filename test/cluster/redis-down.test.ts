import t from 'tap';
import { call, startTestService } from '../helpers/service.js';
import { freePort } from '../helpers/servers.js';

t.test('REDIS_URL set but Redis down: the service starts, answers, limits per node and says so on /readyz (503)', async (t) => {
  const port = await freePort();
  // One fixed instant: 61 requests that each wait for Redis could straddle a minute's end on the real clock.
  const service = await startTestService({
    env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_TIMEOUT_MS: '50' },
    now: () => new Date('2026-11-23T12:00:05Z'),
  });
  t.teardown(() => service.close());
  const key = await service.key('community');
  const statuses: number[] = [];
  for (let i = 0; i < 61; i++) statuses.push((await call(service, 'GET', '/v1/frameworks', { key })).status);
  t.same(statuses.slice(0, 60), Array(60).fill(200), 'requests are served');
  t.equal(statuses[60], 429, "the node's own limiter still applies the limit");
  await service.services.pool.ready;
  const ready = await call(service, 'GET', '/readyz');
  t.equal(ready.status, 503, 'not ready while Redis does not answer: a balancer sends work to nodes that share counts (docs/cluster.md)');
  t.equal(ready.body.status, 'unavailable');
  t.same(ready.body.rate_limits, { store: 'redis', shared: false, fallbacks: 61 }, '/readyz shows the fallback and counts it');
  t.equal((await call(service, 'GET', '/healthz')).status, 200, 'the process is alive: /healthz stays 200');
});
