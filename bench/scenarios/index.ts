import type { Registry } from '../../src/registry/registry.js';
import { LARGE_ACCOUNT, LARGE_ACCOUNT_ANALYSES, largeAccountCursor } from './large-account.js';
import { SCOPE, SCOPE_ACCOUNT, SCOPE_ANALYSES } from './scope-history.js';

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
  /** Request headers beyond content-type and the key (e.g. accept-encoding). */
  headers?: Record<string, string>;
  /**
   * `wrk`: a throughput scenario (GET, identity) measured with wrk, 64 connections, against a
   * bare uWS server sending this route's own bytes in the same run (bench/wrk.ts).
   * `wrk-latency`: latency of this route alone with wrk on the scenario's connections (analyses:
   * a load generator in JavaScript spends as long parsing a 1.8 MB answer as the service takes to
   * make it).
   */
  generator?: 'wrk' | 'wrk-latency';
  /** Published target for throughput relative to the bare server (wrk scenarios). */
  targetRatio?: number;
  /**
   * The requests go with keys of this account, which the runner seeds first (bench/scenarios/large-account.ts),
   * instead of the bench's 8,000 accounts in turn. Such scenarios run with `--cluster` only.
   */
  account?: typeof LARGE_ACCOUNT | typeof SCOPE_ACCOUNT;
  /**
   * Published target for p50 relative to the JSON floor: in one thread of the bench
   * process, JSON.parse of the request plus JSON.parse and JSON.stringify of the service's answer.
   */
  targetFloorRatio?: number;
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

/**
 * A Prowler JSON-OCSF file of about `megabytes` MB, as Prowler writes one for a large AWS
 * estate: every mapped Prowler check, each on many resources, two failures for three passes, and
 * the descriptive fields (message, remediation, compliance) that make up most of a real file's size.
 */
export function prowlerOcsfScan(registry: Registry, megabytes: number): string {
  const checks = registry.toolMappings({ tool_id: 'prowler' }).items.map((m) => ({ id: m.rule_id, title: m.rule_name }));
  const events: string[] = [];
  let size = 2;
  for (let i = 0; size < megabytes * 1024 * 1024; i++) {
    const check = checks[(i * 7919) % checks.length];
    const failed = i % 5 < 2;
    const bucket = `arn:aws:s3:::estate-${String(i % 4000).padStart(5, '0')}`;
    const event = JSON.stringify({
      message: `${check.title}: ${failed ? 'not met' : 'met'} for ${bucket}.`,
      metadata: {
        event_code: check.id,
        product: { name: 'Prowler', uid: 'prowler', vendor_name: 'Prowler', version: '5.4.0' },
        profiles: ['cloud', 'datetime'],
        version: '1.4.0',
      },
      severity_id: 1 + (i % 5),
      severity: ['Informational', 'Low', 'Medium', 'High', 'Critical'][i % 5],
      status: 'New',
      status_code: failed ? 'FAIL' : 'PASS',
      status_detail: `${check.title} evaluated on ${bucket}.`,
      status_id: 1,
      unmapped: {
        related_url: 'https://docs.aws.amazon.com/',
        categories: ['encryption'],
        compliance: { 'CIS-3.0': ['2.1.1'], 'ISO27001-2013': ['A.10.1'], SOC2: ['cc_6_1'] },
      },
      activity_name: 'Create',
      activity_id: 1,
      finding_info: {
        created_time: 1795161600,
        created_time_dt: '2026-11-20T08:00:00.000000',
        desc: check.title,
        title: check.title,
        types: ['Data Protection'],
        uid: `prowler-aws-${check.id}-111122223333-eu-west-1-${i}`,
      },
      resources: [
        {
          cloud_partition: 'aws',
          region: 'eu-west-1',
          data: { details: '', metadata: { arn: bucket, name: bucket.slice(13) } },
          group: { name: 's3' },
          labels: [],
          name: bucket.slice(13),
          type: 'AwsS3Bucket',
          uid: bucket,
        },
      ],
      category_name: 'Findings',
      category_uid: 2,
      class_name: 'Detection Finding',
      class_uid: 2004,
      cloud: { account: { name: 'production', type: 'AWS Account', type_id: 10, uid: '111122223333' }, provider: 'aws', region: 'eu-west-1' },
      remediation: { desc: 'Apply the provider-recommended setting to the resource and re-run the check.', references: ['https://docs.aws.amazon.com/'] },
      risk_details: 'Resources left in this state widen the exposure of the data they hold.',
      time: 1795161600,
      time_dt: '2026-11-20T08:00:00.000000',
      type_uid: 200401,
      type_name: 'Detection Finding: Create',
    });
    events.push(event);
    size += event.length + 2;
  }
  return `[\n${events.join(',\n')}\n]`;
}

export function scenarios(registry: Registry): Scenario[] {
  const signalId = registry.signalIds({ domain: 'HIPAA' })[0];
  return [
    {
      name: 'baseline: bare uWS, same bytes as signal detail',
      method: 'GET',
      path: `/v1/signals/${signalId}`,
      expectStatus: 200,
      connections: 32,
      durationSeconds: 8,
      baseline: true,
    },
    // Throughput at saturation, with wrk against a bare server sending each route's own bytes
    // (target: at least 0.70 of it). Latency here is mostly queueing, so no latency target.
    {
      name: 'registry: GET /v1/signals/:id',
      method: 'GET',
      path: `/v1/signals/${signalId}`,
      expectStatus: 200,
      connections: 64,
      durationSeconds: 8,
      generator: 'wrk',
      targetRatio: 0.7,
    },
    {
      name: 'registry: GET /v1/signals?domain=HIPAA&severity=high',
      method: 'GET',
      path: '/v1/signals?domain=HIPAA&severity=high&per_page=20',
      expectStatus: 200,
      connections: 64,
      durationSeconds: 8,
      generator: 'wrk',
      targetRatio: 0.7,
    },
    {
      name: 'registry: GET /v1/search?q=encryption',
      method: 'GET',
      path: '/v1/search?q=encryption%20at%20rest',
      expectStatus: 200,
      connections: 64,
      durationSeconds: 8,
      generator: 'wrk',
      targetRatio: 0.7,
    },
    {
      name: 'registry: GET /v1/frameworks/HIPAA/controls',
      method: 'GET',
      path: '/v1/frameworks/HIPAA/controls?per_page=20',
      expectStatus: 200,
      connections: 64,
      durationSeconds: 8,
      generator: 'wrk',
      targetRatio: 0.7,
    },
    // Reads the store on every request: the LMDB index range, or one PostgreSQL query (two: count and page).
    {
      name: 'stored: GET /v1/gap-analysis/summary',
      method: 'GET',
      path: '/v1/gap-analysis/summary?per_page=20',
      expectStatus: 200,
      connections: 64,
      durationSeconds: 8,
      generator: 'wrk',
    },
    // A scope's posture history of 1,000 analyses (docs/posture.md), on either store: the runner seeds it (bench/scenarios/scope-history.ts).
    {
      name: `posture: GET /v1/posture/history, ${SCOPE_ANALYSES.toLocaleString('en')} analyses in one scope`,
      method: 'GET',
      path: `/v1/posture/history?scope=${SCOPE}`,
      expectStatus: 200,
      connections: 1,
      durationSeconds: 8,
      targetP99Ms: 50,
      account: SCOPE_ACCOUNT,
    },
    // Cluster only: a deep page of a large account by cursor (the keyset index), 12 lists of that
    // account at once (at most half the pool is theirs), and another account's lists beside them.
    {
      name: `stored: page 10,000 of a ${LARGE_ACCOUNT_ANALYSES.toLocaleString('en')}-analysis account, by cursor`,
      method: 'GET',
      path: `/v1/gap-analysis/summary?per_page=20&cursor=${largeAccountCursor(10_000, 20)}`,
      expectStatus: 200,
      connections: 1,
      durationSeconds: 8,
      targetP99Ms: 50,
      account: LARGE_ACCOUNT,
    },
    {
      name: 'stored: 12 lists at once of the large account',
      method: 'GET',
      path: '/v1/gap-analysis/summary?per_page=20',
      expectStatus: 200,
      connections: 12,
      durationSeconds: 8,
      account: LARGE_ACCOUNT,
    },
    {
      name: "stored: another account's list while 12 lists of the large account run",
      method: 'GET',
      path: '/v1/gap-analysis/summary?per_page=20',
      expectStatus: 200,
      connections: 4,
      durationSeconds: 8,
      alongside: 'stored: 12 lists at once of the large account',
    },
    // Latency targets are per request: one connection, requests back to back. 25 ms is the target.
    {
      name: 'gap analysis: 500 findings × 11 frameworks',
      method: 'POST',
      path: '/v1/gap-analysis',
      body: analysisBody(registry, 500),
      expectStatus: 200,
      connections: 1,
      durationSeconds: 15,
      targetP99Ms: 25,
      targetFloorRatio: 2,
      generator: 'wrk-latency',
    },
    {
      name: 'gap analysis: 500 findings × 11 frameworks, 4 connections',
      method: 'POST',
      path: '/v1/gap-analysis',
      body: analysisBody(registry, 500),
      expectStatus: 200,
      connections: 4,
      durationSeconds: 10,
      generator: 'wrk-latency',
    },
    // The same analysis with a compressed answer (bytes per answer in the table).
    {
      name: 'gap analysis: 500 findings × 11 frameworks, accept-encoding br',
      method: 'POST',
      path: '/v1/gap-analysis',
      body: analysisBody(registry, 500),
      expectStatus: 200,
      connections: 1,
      durationSeconds: 10,
      headers: { 'accept-encoding': 'br' },
      generator: 'wrk-latency',
    },
    {
      name: 'gap analysis: 500 findings × 11 frameworks, accept-encoding gzip',
      method: 'POST',
      path: '/v1/gap-analysis',
      body: analysisBody(registry, 500),
      expectStatus: 200,
      connections: 1,
      durationSeconds: 10,
      headers: { 'accept-encoding': 'gzip' },
      generator: 'wrk-latency',
    },
    // One spec variant alone (?variant=a, a third of the bytes): what a client of one variant saves.
    {
      name: 'gap analysis: 500 findings × 11 frameworks, ?variant=a',
      method: 'POST',
      path: '/v1/gap-analysis?variant=a',
      body: analysisBody(registry, 500),
      expectStatus: 200,
      connections: 1,
      durationSeconds: 10,
      generator: 'wrk-latency',
    },
    {
      name: 'registry: GET /v1/signals?domain=HIPAA&severity=high, accept-encoding br',
      method: 'GET',
      path: '/v1/signals?domain=HIPAA&severity=high&per_page=20',
      expectStatus: 200,
      connections: 32,
      durationSeconds: 8,
      headers: { 'accept-encoding': 'br' },
    },
    {
      name: 'gap analysis: 10,000 findings × 11 frameworks',
      method: 'POST',
      path: '/v1/gap-analysis',
      body: analysisBody(registry, 10_000),
      expectStatus: 200,
      connections: 1,
      durationSeconds: 20,
      targetP99Ms: 500,
      targetFloorRatio: 2,
      generator: 'wrk-latency',
    },
    // A scanner's 10 MB file straight into an analysis: parse, convert and analyse in a worker.
    {
      name: 'scanner import: 10 MB Prowler OCSF × 11 frameworks',
      method: 'POST',
      path: `/v1/gap-analysis/import?format=auto&frameworks=${ALL_FRAMEWORKS.join(',')}`,
      body: prowlerOcsfScan(registry, 10),
      expectStatus: 200,
      connections: 1,
      durationSeconds: 20,
      targetP99Ms: 1000,
      generator: 'wrk-latency',
    },
    {
      name: 'registry GETs while 500-finding analyses run',
      method: 'GET',
      path: `/v1/signals/${signalId}`,
      expectStatus: 200,
      connections: 8,
      durationSeconds: 12,
      alongside: 'gap analysis: 500 findings × 11 frameworks',
      // The target beside analyses (during the flood, below, it is 10 ms).
      targetP99Ms: 5,
    },
    // 96 clients flood 10,000-finding analyses (about 2 MB each). The queue fills, and
    // the rest are refused with 503 service_busy at their headers, before their bodies are read,
    // so the HTTP thread stays free for reads.
    {
      name: 'flood: 10,000-finding analyses from 96 clients',
      method: 'POST',
      path: '/v1/gap-analysis',
      body: analysisBody(registry, 10_000),
      // Alone it answers 200; in the flood most answers are 503 (the non-2xx column).
      expectStatus: 200,
      connections: 96,
      durationSeconds: 12,
    },
    {
      name: 'registry GETs during the flood of 10,000-finding analyses',
      method: 'GET',
      path: `/v1/signals/${signalId}`,
      expectStatus: 200,
      connections: 8,
      durationSeconds: 12,
      alongside: 'flood: 10,000-finding analyses from 96 clients',
      targetP99Ms: 10,
    },
  ];
}
