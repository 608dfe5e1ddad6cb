import type { Registry } from '../../src/registry/registry.js';

/** A benchmark scenario is data: what to send, what must come back, how hard to push. */
export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  expectStatus: number;
  connections: number;
  durationSeconds: number;
  /** Runs against the bare uWS baseline server instead of the service. */
  baseline?: boolean;
  /** Another scenario loaded at the same time (its figures are reported separately). */
  alongside?: string;
  /** Published target, checked and reported (ms). */
  targetP99Ms?: number;
}

const ALL_FRAMEWORKS = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA'];
const STATUSES = ['open', 'open', 'in_progress', 'accepted', 'false_positive', 'resolved'];

/** Findings spread over every signal of the registry, with a realistic mix of statuses. */
export function analysisBody(registry: Registry, count: number): string {
  const ids = registry.signalIds();
  const findings = Array.from({ length: count }, (_, i) => ({
    id: `finding-${i}`,
    signal_id: ids[(i * 7919) % ids.length],
    status: STATUSES[i % STATUSES.length],
    observed_at: '2026-11-20T10:00:00Z',
    artifact: { type: 'cloud.storage.object_bucket', id: `arn:aws:s3:::bucket-${i}`, provider: 'aws' },
  }));
  return JSON.stringify({ frameworks: ALL_FRAMEWORKS, findings });
}

export function scenarios(registry: Registry): Scenario[] {
  const signalId = registry.signalIds({ domain: 'HIPAA' })[0];
  return [
    { name: 'baseline: bare uWS, same bytes as signal detail', method: 'GET', path: `/v1/signals/${signalId}`, expectStatus: 200, connections: 32, durationSeconds: 8, baseline: true },
    // Throughput at saturation (32 connections): latency here is mostly queueing, so no target.
    { name: 'registry: GET /v1/signals/:id', method: 'GET', path: `/v1/signals/${signalId}`, expectStatus: 200, connections: 32, durationSeconds: 8 },
    { name: 'registry: GET /v1/signals?domain=HIPAA&severity=high', method: 'GET', path: '/v1/signals?domain=HIPAA&severity=high&per_page=20', expectStatus: 200, connections: 32, durationSeconds: 8 },
    { name: 'registry: GET /v1/search?q=encryption', method: 'GET', path: '/v1/search?q=encryption%20at%20rest', expectStatus: 200, connections: 32, durationSeconds: 8 },
    // Latency targets are per request: one connection, requests back to back.
    // Reads the store on every request: the LMDB index range, or one PostgreSQL query (two: count and page).
    { name: 'stored: GET /v1/gap-analysis/summary', method: 'GET', path: '/v1/gap-analysis/summary?per_page=20', expectStatus: 200, connections: 32, durationSeconds: 8 },
    { name: 'gap analysis: 500 findings × 11 frameworks', method: 'POST', path: '/v1/gap-analysis', body: analysisBody(registry, 500), expectStatus: 200, connections: 1, durationSeconds: 15, targetP99Ms: 50 },
    { name: 'gap analysis: 500 findings × 11 frameworks, 4 connections', method: 'POST', path: '/v1/gap-analysis', body: analysisBody(registry, 500), expectStatus: 200, connections: 4, durationSeconds: 10 },
    { name: 'gap analysis: 10,000 findings × 11 frameworks', method: 'POST', path: '/v1/gap-analysis', body: analysisBody(registry, 10_000), expectStatus: 200, connections: 1, durationSeconds: 20, targetP99Ms: 500 },
    {
      name: 'registry GETs while 500-finding analyses run',
      method: 'GET',
      path: `/v1/signals/${signalId}`,
      expectStatus: 200,
      connections: 8,
      durationSeconds: 12,
      alongside: 'gap analysis: 500 findings × 11 frameworks',
      targetP99Ms: 10,
    },
  ];
}
