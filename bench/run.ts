/**
 * npm run bench: starts the service (and a bare uWS baseline) as child processes on loopback,
 * checks that every scenario answers as expected, loads each for a bounded time (wrk for
 * throughput and for analyses, autocannon for the mixed scenarios), and writes p50/p99 latency,
 * throughput and errors with the git sha to bench/results/.
 */
import type autocannon from 'autocannon';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { projectRoot, defaultRegistryDir } from '../src/paths.js';
import { SERVER_ENTRY, SERVICE_NODE_FLAGS } from '../src/node-flags.js';
import { openStores } from '../src/store/open.js';
import { Registry } from '../src/registry/registry.js';
import { scenarios, type Scenario } from './scenarios/index.js';
import { LARGE_ACCOUNT, seedLargeAccount } from './scenarios/large-account.js';
import { SCOPE_ACCOUNT, seedScopeHistory } from './scenarios/scope-history.js';
import { load } from './load.js';
import { runWrk, wrkAvailable, writeKeyScript, type WrkResult } from './wrk.js';
// The throwaway PostgreSQL and Redis the tests use: the cluster variant needs the same, no more.
import { startPostgres, startRedis, type ThrowawayServer } from '../test/helpers/servers.js';

/**
 * Enough Enterprise accounts (1,000 requests/minute each) that rate limits never shape the load:
 * wrk reaches 140,000 req/s here, and the registry scenarios share each minute's windows. Fewer
 * than the verified-key cache holds, so that no key is verified twice.
 */
const ACCOUNTS = 8000;

interface Result {
  name: string;
  requests: number;
  throughput_rps: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  errors: number;
  non_2xx: number;
  /** Mean bytes of an answer on the wire (body and headers), compressed ones compressed. */
  bytes_per_answer: number;
  /** wrk scenarios: the bare server's throughput for the same bytes, measured just before. */
  baseline_rps?: number;
  target_p99_ms?: number;
  target_ratio?: number;
  meets_target?: boolean;
  /** Analyses: the JSON floor of this request and answer (ms, median of 7), p50 against it, and the target. */
  json_floor_ms?: number;
  p50_vs_floor?: number;
  target_floor_ratio?: number;
  meets_floor_target?: boolean;
  generator: 'autocannon' | 'wrk';
}

/**
 * The JSON floor of an analysis: what any JSON service must spend on it in one thread, parsing
 * the request and the answer and writing the answer again, in this process. Seven rounds just
 * before the scenario and seven just after it, median of the fourteen: this machine's speed drifts
 * within a run (a floor taken minutes earlier differed from one taken beside the scenario by up
 * to half, docs/benchmarks.md), and a ratio is only as good as the two figures being from the
 * same minutes.
 */
function aroundJsonFloor<T>(request: string | undefined, answer: string | undefined, measure: () => T): { measured: T; floorMs?: number } {
  if (request === undefined || answer === undefined) return { measured: measure() };
  const rounds: number[] = [];
  const floorRounds = () => {
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      JSON.parse(request);
      JSON.stringify(JSON.parse(answer));
      rounds.push(performance.now() - started);
    }
  };
  floorRounds();
  const measured = measure();
  floorRounds();
  rounds.sort((a, b) => a - b);
  return { measured, floorMs: (rounds[6] + rounds[7]) / 2 };
}

async function startChild(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, port: Number(chunk.toString().trim().split('\n')[0]) };
}

async function waitForHealth(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('service did not become ready');
}

/** A latency scenario's targets: its p99, and its p50 against the JSON floor where it has one. */
function latencyVerdicts(scenario: Scenario, p50: number, p99: number, floorMs: number | undefined): Partial<Result> {
  const p50VsFloor = floorMs ? Math.round((100 * p50) / floorMs) / 100 : undefined;
  return {
    ...(scenario.targetP99Ms !== undefined && { target_p99_ms: scenario.targetP99Ms, meets_target: p99 <= scenario.targetP99Ms }),
    ...(floorMs !== undefined && { json_floor_ms: Math.round(floorMs * 10) / 10, p50_vs_floor: p50VsFloor }),
    ...(floorMs !== undefined &&
      scenario.targetFloorRatio !== undefined && {
        target_floor_ratio: scenario.targetFloorRatio,
        meets_floor_target: (p50VsFloor ?? Infinity) <= scenario.targetFloorRatio,
      }),
  };
}

function summarise(scenario: Scenario, result: autocannon.Result): Result {
  return {
    name: scenario.name,
    requests: result.requests.total,
    throughput_rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p90_ms: result.latency.p90,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
    errors: result.errors + result.timeouts,
    non_2xx: result.non2xx,
    bytes_per_answer: result.requests.total ? Math.round(result.throughput.total / result.requests.total) : 0,
    generator: 'autocannon',
    ...latencyVerdicts(scenario, result.latency.p50, result.latency.p99, undefined),
  };
}

async function main(): Promise<void> {
  // `--cluster`: the same scenarios against the PostgreSQL store and Redis rate limits (docs/cluster.md),
  // each on a throwaway server started here; scenario names say which store served them.
  const cluster = process.argv.includes('--cluster');
  const args = process.argv.slice(2).filter((arg) => arg !== '--cluster');
  const servers: ThrowawayServer[] = [];
  const clusterEnv: Record<string, string> = {};
  if (cluster) {
    for (const [name, start] of [
      ['DATABASE_URL', startPostgres],
      ['REDIS_URL', startRedis],
    ] as const) {
      const started = await start();
      if ('skip' in started) throw new Error(`--cluster needs PostgreSQL and Redis: ${started.skip}`);
      servers.push(started.server);
      clusterEnv[name] = started.server.url;
    }
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-bench-'));
  const stores = await openStores({ dataDir, databaseUrl: clusterEnv.DATABASE_URL });
  const keys: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) keys.push((await stores.accounts.createKey(`bench-${i}`, 'enterprise')).key);
  await stores.close();
  const keysFile = join(dataDir, 'bench-keys.txt');
  writeFileSync(keysFile, `${keys.join('\n')}\n`);

  const registry = Registry.open(defaultRegistryDir);
  // `npm run bench -- <text>` runs only the scenarios whose name contains the text (plus the baseline).
  const only = args[0];
  const store = cluster ? ' [postgres+redis]' : '';
  const plan = scenarios(registry)
    .filter((s, i) => !only || i === 0 || s.name.includes(only) || (s.alongside?.includes(only) ?? false))
    // A scenario of the large account needs PostgreSQL to seed it (and its companions run beside it).
    .filter((s, _i, all) => cluster || !(s.account === LARGE_ACCOUNT || all.find((o) => o.name === s.alongside)?.account === LARGE_ACCOUNT))
    .map((s) => (s.baseline ? s : { ...s, name: `${s.name}${store}`, alongside: s.alongside && `${s.alongside}${store}` }));
  const large = plan.some((s) => s.account === LARGE_ACCOUNT) ? await seedLargeAccount(clusterEnv.DATABASE_URL, dataDir) : undefined;
  const scoped = plan.some((s) => s.account === SCOPE_ACCOUNT) ? await seedScopeHistory({ dataDir, databaseUrl: clusterEnv.DATABASE_URL }) : undefined;
  const keysOf = (s: Scenario) => (s.account === LARGE_ACCOUNT && large ? large.keys : s.account === SCOPE_ACCOUNT && scoped ? scoped.keys : keys);
  const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', HOST: '127.0.0.1', ...clusterEnv };
  // The service logs (an access line per request) to a file, as it would to journald or a
  // collector: read through a pipe, they would cost this process, the load generator, its speed.
  const logFile = join(dataDir, 'service.log');
  const logFd = openSync(logFile, 'w');
  const service = spawn(process.execPath, [...SERVICE_NODE_FLAGS, SERVER_ENTRY], { env: { ...env, PORT: '0' }, stdio: ['ignore', logFd, 'inherit'] });
  closeSync(logFd);
  const port = await portFromLog(service, logFile);
  await waitForHealth(port);

  const baseline = await startChild(join(projectRoot, 'dist/bench/baseline.js'), await sampleAnswer(port, plan[0].path, keys[0], dataDir, 'baseline'), env);

  /** The answers of the scenarios with a floor target, for their JSON floor. */
  const floorAnswers = new Map<Scenario, string>();
  for (const scenario of plan) {
    const target = scenario.baseline ? baseline.port : port;
    const probe = await fetch(`http://127.0.0.1:${target}${scenario.path}`, {
      method: scenario.method,
      body: scenario.body,
      headers: { authorization: `Bearer ${keysOf(scenario)[1]}`, 'content-type': 'application/json', ...scenario.headers },
    });
    const answer = await probe.text();
    if (probe.status !== scenario.expectStatus) throw new Error(`${scenario.name}: expected ${scenario.expectStatus}, got ${probe.status}`);
    if (scenario.targetFloorRatio !== undefined) floorAnswers.set(scenario, answer);
  }

  const results: Result[] = [];
  const withWrk = wrkAvailable();
  if (!withWrk) process.stderr.write('wrk not found (Debian package wrk: apt install wrk): the throughput scenarios are skipped\n');
  const keyScript = join(dataDir, 'keys.lua');
  writeKeyScript(keyScript, keys);
  for (const scenario of plan) {
    const target = scenario.baseline ? baseline.port : port;
    if (scenario.generator === 'wrk') {
      if (withWrk) results.push(await throughput(scenario, port, keys[0], keyScript, dataDir, env));
      continue;
    }
    if (scenario.generator === 'wrk-latency') {
      if (withWrk) results.push(latency(scenario, port, keysOf(scenario), dataDir, floorAnswers.get(scenario)));
      continue;
    }
    process.stderr.write(`running: ${scenario.name} (${scenario.durationSeconds} s)\n`);
    if (scenario.alongside) {
      const other = plan.find((s) => s.name === scenario.alongside)!;
      const [main, background] = await Promise.all([
        load(target, scenario, keysOf(scenario)),
        loadInChild(port, { ...other, durationSeconds: scenario.durationSeconds }, other.account === LARGE_ACCOUNT && large ? large.keysFile : keysFile),
      ]);
      // The background analyses are there to load the service; their own target applies when they run alone.
      results.push(summarise(scenario, main), summarise({ ...other, name: `${other.name} (alongside)`, targetP99Ms: undefined }, background));
    } else {
      results.push(summarise(scenario, await load(target, scenario, keysOf(scenario))));
    }
  }

  service.kill('SIGTERM');
  baseline.child.kill('SIGTERM');
  await once(service, 'exit');
  rmSync(dataDir, { recursive: true, force: true });
  for (const server of servers) await server.stop();

  const sha = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const baselineRps = results[0].throughput_rps;
  const report = {
    git_sha: sha,
    run_at: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
    registry: registry.manifest.counts,
    results: results.map((r) => {
      const reference = r.baseline_rps ?? baselineRps;
      return { ...r, throughput_vs_baseline: reference ? Math.round((1000 * r.throughput_rps) / reference) / 1000 : null };
    }),
  };
  await registry.close();
  mkdirSync(join(projectRoot, 'bench', 'results'), { recursive: true });
  const file = join(projectRoot, 'bench', 'results', `${report.run_at.replace(/[:.]/g, '-')}-${sha}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n| scenario | req/s | × baseline | p50 ms | p99 ms | max ms | errors | non-2xx | bytes/answer | target |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of report.results) {
    const p99Target =
      r.target_ratio !== undefined
        ? `${r.target_ratio} × bare ${r.throughput_vs_baseline !== null && r.throughput_vs_baseline >= r.target_ratio ? 'met' : 'MISSED'}`
        : r.target_p99_ms === undefined
          ? ''
          : `${r.target_p99_ms} ms ${r.meets_target ? 'met' : 'MISSED'}`;
    const floorTarget =
      r.target_floor_ratio === undefined
        ? ''
        : `; p50 ${r.p50_vs_floor} × JSON floor ${r.json_floor_ms} ms, ≤ ${r.target_floor_ratio} × ${r.meets_floor_target ? 'met' : 'MISSED'}`;
    const target = p99Target + floorTarget;
    console.log(
      `| ${r.name} | ${r.throughput_rps} | ${r.throughput_vs_baseline} | ${r.p50_ms} | ${r.p99_ms} | ${r.max_ms} | ${r.errors} | ${r.non_2xx} | ${r.bytes_per_answer} | ${target} |`,
    );
  }
  console.log(`\nsha ${sha}; results written to ${file}`);
}

/** Headers uWS writes itself, for the baseline as for the service. */
const SOCKET_LAYER_HEADERS = new Set(['date', 'content-length', 'uwebsockets']);

/**
 * One answer of the service to `path`, written to files for the bare baseline to send: its body,
 * and its header lines (those of this one request: the same bytes, not fresh values).
 */
async function sampleAnswer(port: number, path: string, key: string, dataDir: string, name: string): Promise<[string, string]> {
  const answer = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' } });
  const bodyFile = join(dataDir, `${name}-body`);
  const headersFile = join(dataDir, `${name}-headers.json`);
  writeFileSync(bodyFile, Buffer.from(await answer.arrayBuffer()));
  const headers = [...answer.headers].filter(([header]) => !SOCKET_LAYER_HEADERS.has(header));
  writeFileSync(headersFile, JSON.stringify(headers));
  return [bodyFile, headersFile];
}

/**
 * A throughput scenario with wrk: this route's bytes served by a bare uWS server and by the
 * service, in alternating rounds of the same run (the ratio is the figure to trust).
 */
async function throughput(scenario: Scenario, port: number, key: string, keyScript: string, dataDir: string, env: NodeJS.ProcessEnv): Promise<Result> {
  const bare = await startChild(join(projectRoot, 'dist/bench/baseline.js'), await sampleAnswer(port, scenario.path, key, dataDir, 'wrk-baseline'), env);
  try {
    // Two rounds of bare uWS then the service, half the duration each, and each side's faster
    // round kept: on this shared machine one side of a single pair could land in a slow spell of
    // several seconds (bare uWS measured 93,000 to 140,000 req/s within one run). Errors of
    // either round count.
    const half = Math.max(1, Math.round(scenario.durationSeconds / 2));
    process.stderr.write(`running: ${scenario.name}, bare uWS then the service, twice (wrk, 4 × ${half} s)\n`);
    const rounds = [1, 2].map(() => ({
      bare: runWrk(`http://127.0.0.1:${bare.port}${scenario.path}`, keyScript, half, scenario.connections),
      service: runWrk(`http://127.0.0.1:${port}${scenario.path}`, keyScript, half, scenario.connections),
    }));
    const faster = (a: WrkResult, b: WrkResult) => (b.throughput_rps > a.throughput_rps ? b : a);
    const reference = faster(rounds[0].bare, rounds[1].bare);
    const measured = {
      ...faster(rounds[0].service, rounds[1].service),
      errors: rounds[0].service.errors + rounds[1].service.errors,
      non_2xx: rounds[0].service.non_2xx + rounds[1].service.non_2xx,
    };
    const ratio = reference.throughput_rps ? measured.throughput_rps / reference.throughput_rps : 0;
    return {
      name: `${scenario.name} (wrk; bare uWS ${reference.throughput_rps} req/s)`,
      ...measured,
      baseline_rps: reference.throughput_rps,
      generator: 'wrk',
      ...(scenario.targetRatio !== undefined && { target_ratio: scenario.targetRatio, meets_target: ratio >= scenario.targetRatio }),
    };
  } finally {
    bare.child.kill('SIGTERM');
    await once(bare.child, 'exit');
  }
}

/**
 * A latency scenario with wrk: this route alone, requests back to back on the scenario's
 * connections. autocannon parses every answer in JavaScript on the cores the service uses, which
 * for a 1.8 MB analysis result doubled the measured p50 (docs/benchmarks.md).
 */
function latency(scenario: Scenario, port: number, keys: string[], dataDir: string, floorAnswer: string | undefined): Result {
  const bodyFile = join(dataDir, 'wrk-request-body');
  writeFileSync(bodyFile, scenario.body ?? '');
  const script = join(dataDir, 'wrk-request.lua');
  writeKeyScript(script, keys, scenario.headers, scenario.method === 'POST' ? { method: 'POST', bodyFile } : undefined);
  process.stderr.write(`running: ${scenario.name} (wrk, ${scenario.durationSeconds} s)\n`);
  const { measured, floorMs } = aroundJsonFloor(scenario.body, floorAnswer, () =>
    runWrk(`http://127.0.0.1:${port}${scenario.path}`, script, scenario.durationSeconds, scenario.connections),
  );
  return { name: `${scenario.name} (wrk)`, ...measured, generator: 'wrk', ...latencyVerdicts(scenario, measured.p50_ms, measured.p99_ms, floorMs) };
}

/** Runs a scenario's load in a child process (bench/background-load.ts) and returns its result. */
async function loadInChild(port: number, scenario: Scenario, keysFile: string): Promise<autocannon.Result> {
  // Bodies of megabytes do not fit in an argument: the child reads the scenario from a file.
  const planFile = join(dirname(keysFile), 'background-load.json');
  writeFileSync(planFile, JSON.stringify({ port, scenario, keysFile }));
  const child = spawn(process.execPath, [join(projectRoot, 'dist/bench/background-load.js'), planFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`background load of ${scenario.name} exited with ${code}`);
  return JSON.parse(Buffer.concat(chunks).toString()) as autocannon.Result;
}

/** The service logs its port in its first JSON line ("listening"). */
async function portFromLog(child: ChildProcess, logFile: string): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited before listening:\n${readFileSync(logFile, 'utf8')}`);
    const match = /"port":(\d+)/.exec(readFileSync(logFile, 'utf8'));
    if (match) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
