import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { projectRoot } from '../../src/paths.js';

/**
 * deploy/compose.cluster.yaml against what the service does (docs/cluster.md): Docker waits
 * longer than the node drains, the container's health is liveness (/healthz) rather than
 * readiness, and the balancer takes a node out for a connection that fails, never for a 503.
 * No container daemon runs here, so the file is read, not run.
 */
interface ComposeService {
  environment?: Record<string, string | number>;
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}

const compose = parse(readFileSync(join(projectRoot, 'deploy', 'compose.cluster.yaml'), 'utf8')) as {
  services: Record<string, ComposeService>;
  configs: { balancer: { content: string } };
};
const seconds = (duration: string) => {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!match) throw new Error(`not a compose duration: ${duration}`);
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60 }[match[2] as 's'];
};

for (const name of ['node1', 'node2']) {
  t.test(`${name}: stop grace, health, settings`, async (t) => {
    const node = compose.services[name];
    const env = Object.fromEntries(Object.entries(node.environment ?? {}).map(([k, v]) => [k, String(v)]));
    const config = loadConfig({ ...env, DATA_DIR: '/tmp' });
    t.ok(node.stop_grace_period, 'sets stop_grace_period (Docker waits 10 s by default)');
    const grace = seconds(node.stop_grace_period ?? '10s');
    t.ok(grace >= config.shutdownTimeoutMs / 1000 + 5, `stop grace ${grace} s ≥ the drain (SHUTDOWN_TIMEOUT_MS ${config.shutdownTimeoutMs} ms) + 5 s to close`);
    const probe = node.healthcheck?.test.join(' ') ?? '';
    t.match(probe, /\/healthz/, 'the health check is liveness');
    t.notMatch(probe, /\/readyz/, 'not readiness, which is 503 while PostgreSQL or Redis is away');
    t.ok(config.databaseUrl && config.redisUrl, 'cluster mode: DATABASE_URL and REDIS_URL');
  });
}

t.test('the balancer: a 503 is an answer, not a failed node', async (t) => {
  const nginx = compose.configs.balancer.content;
  const nextUpstream = /^\s*proxy_next_upstream\s+([^;]+);/m.exec(nginx)?.[1] ?? '';
  t.ok(nextUpstream.split(/\s+/).includes('error'), 'a connection that fails (a node stopping or dead) goes to the other node');
  t.notMatch(nextUpstream, /http_503/, 'a 503 (service_busy, store_unavailable) neither counts as a failure nor is resent');
  t.match(nginx, /^\s*proxy_connect_timeout\s+\d+s;/m, 'a node that does not accept is given up on in seconds, not 60');
  for (const server of nginx.matchAll(/^\s*server\s+(node\d):8080([^;]*);/gm)) t.match(server[2], /max_fails=\d+/, `${server[1]}: passive checks`);
});
