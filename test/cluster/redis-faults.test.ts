import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/paths.js';
import { testRegistry } from '../helpers/findings.js';
import { serverMissing, startRedis, throwaway } from '../helpers/servers.js';
import { until } from '../helpers/wait.js';
import { call, paced, percentile, redisPid, startNode, type Sample } from './nodes.js';

/**
 * Redis paused (SIGSTOP: the connection stays open and nothing answers) for 10 s under steady
 * registry reads. The rate limiter's circuit breaker opens after a few timeouts, so after the
 * first second the reads are as fast as with Redis answering (p99 at most twice its normal value);
 * /readyz says 503 while it is open and /metrics shows it; Redis answering again closes it.
 */
const FAULT_MS = 10_000;
const CLIENTS = 6;
/**
 * Longer than the default 250 ms, so that a request that waited for Redis stands out from the
 * noise of this shared machine: without the breaker, every read of the pause would take 1 s.
 */
const REDIS_TIMEOUT_MS = 1000;
const run = promisify(execFile);

t.test('Redis paused 10 s under registry reads', { skip: serverMissing('redis') }, async (t) => {
  const redis = await throwaway(t, startRedis);
  if (!redis) return;
  const pid = await redisPid(redis.url);
  t.teardown(() => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // Stopped already.
    }
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-redis-faults-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { REDIS_URL: redis.url, DATA_DIR: dataDir, REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS) };
  // One Enterprise account per client (1,000 requests a minute each), made before the node starts.
  const keys: string[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const { stdout } = await run(
      process.execPath,
      [join(projectRoot, 'dist/src/cli/csr.js'), 'keys', 'create', '--account', `reader-${i}`, '--tier', 'enterprise'],
      {
        env: { ...process.env, ...env },
      },
    );
    keys.push(stdout.trim().split('\n').at(-1)!);
  }
  const node = await startNode(env);
  t.teardown(() => node.stop());
  const signalId = testRegistry().signalIds({ domain: 'HIPAA' })[0];

  const samples: Sample[] = [];
  let stopped = false;
  const clients = [
    ...keys.map((key) =>
      paced(
        samples,
        'registry',
        60,
        () => stopped,
        () => call(node, 'GET', `/v1/signals/${signalId}`, key),
      ),
    ),
    paced(
      samples,
      'readyz',
      100,
      () => stopped,
      () => call(node, 'GET', '/readyz'),
    ),
  ];
  const reads = (from: number, to: number) => samples.filter((s) => s.what === 'registry' && s.at >= from && s.at < to);
  try {
    // The first reads warm the node (compilation, connections): not part of its normal.
    await until(() => reads(0, Number.POSITIVE_INFINITY).length >= 100, 'warm-up reads');
    const startedAt = Date.now();
    await until(() => reads(startedAt, Number.POSITIVE_INFINITY).length >= 400, 'reads with Redis answering');
    const faultAt = Date.now();
    process.kill(pid, 'SIGSTOP');
    // The pause lasts its 10 s: that is the scenario, not a wait for an outcome.
    await new Promise((resolve) => setTimeout(resolve, FAULT_MS));
    const duringMetrics = (await call(node, 'GET', '/metrics')).bytes.toString();
    process.kill(pid, 'SIGCONT');
    const backAt = Date.now();
    await until(() => samples.some((s) => s.what === 'readyz' && s.at >= backAt && s.status === 200), '/readyz ready again');
    const readyAt = Date.now();
    await until(() => reads(readyAt, Number.POSITIVE_INFINITY).length >= 400, 'reads with Redis answering again');
    stopped = true;
    await Promise.all(clients);

    const ms = (list: Sample[]) => list.map((s) => s.ms);
    const before = reads(startedAt, faultAt);
    const after = reads(readyAt, Number.POSITIVE_INFINITY);
    const during = reads(faultAt + 1000, backAt);
    // Normal: the worse of before and after, so that a slow spell of the shared machine on one side does not set the bar.
    const normal = Math.max(percentile(ms(before), 99), percentile(ms(after), 99));
    const paused = percentile(ms(during), 99);
    t.ok(during.length > 300, `${during.length} reads while Redis was paused`);
    t.same(
      samples.filter((s) => s.what === 'registry' && s.status !== 200).map((s) => `${s.status} ${s.code}`),
      [],
      'every read answered 200',
    );
    t.ok(paused < REDIS_TIMEOUT_MS, `no read after the first second waited for Redis's timeout (${REDIS_TIMEOUT_MS} ms): p99 ${paused.toFixed(2)} ms`);
    // The latency ratio is a target for the bench: on a test machine running other tests it measures their load.
    t.comment(
      `p99 of reads after the first second of the pause ${paused.toFixed(2)} ms against ${normal.toFixed(2)} ms before (p50 ${percentile(ms(during), 50).toFixed(2)} against ${percentile(ms(before), 50).toFixed(2)})`,
    );
    const unready = samples.find((s) => s.what === 'readyz' && s.at >= faultAt && s.status === 503);
    t.ok(
      unready && unready.at + unready.ms - faultAt <= 2000,
      `/readyz 503 ${unready ? Math.round(unready.at + unready.ms - faultAt) : '—'} ms into the pause`,
    );
    t.match(duringMetrics, /^csr_rate_limit_shared 0$/m, '/metrics: counts are not shared while the breaker is open');
    t.match(duringMetrics, /^csr_rate_limit_fallbacks_total [1-9]\d*$/m, '/metrics: requests counted alone');
    const firstReady = samples.find((s) => s.what === 'readyz' && s.at >= backAt && s.status === 200)!;
    t.ok(firstReady.at + firstReady.ms - backAt <= 2000, `shared again ${Math.round(firstReady.at + firstReady.ms - backAt)} ms after Redis resumed`);
    const ready = (await call(node, 'GET', '/readyz')).json();
    t.equal(ready.rate_limits.shared, true, '/readyz: shared again');
    t.match(node.log(), /Redis does not answer/, 'the switch to local counts is logged');
    t.match(node.log(), /Redis answers again/, 'and the switch back');
  } finally {
    stopped = true;
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // Gone.
    }
    await Promise.all(clients);
  }
});
