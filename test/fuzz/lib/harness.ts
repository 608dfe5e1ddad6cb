import { Agent, request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDataStore, type DataStore } from '../../../src/store/lmdb/database.js';
import { LmdbAccountDirectory } from '../../../src/store/lmdb/accounts.js';
import { GAP_ANALYSIS_LIMITS, type Tier } from '../../../src/tiers.js';
import { projectRoot } from '../../../src/paths.js';
import { startChildService, type ChildService } from '../../helpers/child-service.js';
import { Ref, toJsonText, type RefName } from './json-text.js';
import { brokenInvariant } from './invariants.js';
import { operationsOf, type FuzzCase, type Operation } from './operations.js';
import type { Vocabulary } from './schema.js';

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A broken invariant: the message says which, and carries the request and the answer. */
export class Violation extends Error {}

const REQUEST_TIMEOUT_MS = 30_000;
/** Operations that can hand work to the worker pool; after them the pool must still answer. */
const POOLED = new Set([
  'POST /v1/gap-analysis',
  'POST /v1/validate/batch',
  'POST /v1/gap-analysis/compare',
  'POST /v1/gap-analysis/{id}/export',
  'GET /v1/gap-analysis/{id}/export',
]);

/** The codes docs/errors.md lists, with their HTTP status. */
export function documentedErrorCodes(): Map<string, number> {
  const doc = readFileSync(join(projectRoot, 'docs', 'errors.md'), 'utf8');
  const codes = new Map<string, number>();
  for (const match of doc.matchAll(/^\| `(\w+)` \| (\d{3}) \|/gm)) codes.set(match[1], Number(match[2]));
  return codes;
}

interface KeyedAccount {
  name: string;
  tier: Tier;
  key: string;
  analyses: string[];
}

/**
 * The real service (a child process on port 0 over a temp DATA_DIR, real worker pool), the keys
 * that call it, and the checks every answer must pass. A crash does not end the session: the next
 * case starts the service again on the same data, so fast-check can shrink a crashing case.
 */
export class FuzzHarness {
  readonly statusCounts = new Map<number, number>();
  readonly codeCounts = new Map<string, number>();
  /** Per operation: how many cases, and how many of them answered 2xx. */
  readonly operationCounts = new Map<string, { cases: number; succeeded: number }>();
  cases = 0;
  restarts = 0;
  operations: Operation[] = [];
  vocabulary: Vocabulary = {};
  private service!: ChildService;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly documented = documentedErrorCodes();
  private readonly accounts = new Map<Tier, KeyedAccount>();
  private accountSerial = 0;
  /** An account no case calls with: its analyses are someone else's to every caller. */
  private foreign!: KeyedAccount;

  private constructor(
    readonly dataDir: string,
    private readonly store: DataStore,
    private readonly keys: LmdbAccountDirectory,
    private readonly env: Record<string, string>,
  ) {}

  static async start(env: Record<string, string> = {}): Promise<FuzzHarness> {
    const dataDir = mkdtempSync(join(tmpdir(), 'csr-fuzz-'));
    // The harness writes keys into the same LMDB the service reads, as the csr CLI does.
    const store = openDataStore(dataDir);
    const harness = new FuzzHarness(dataDir, store, new LmdbAccountDirectory(store), { DATA_DIR: dataDir, WORKERS: '1', ...env });
    harness.service = await startChildService(harness.env);
    const document = await harness.json('GET', '/v1/openapi.json', await harness.keyOf('community'));
    harness.operations = operationsOf(document as Parameters<typeof operationsOf>[0]);
    harness.vocabulary = await harness.readVocabulary();
    harness.foreign = await harness.newAccount('enterprise');
    return harness;
  }

  get url(): string {
    return this.service.url;
  }

  async close(): Promise<void> {
    this.agent.destroy();
    await this.service.stop();
    await this.store.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** Runs one case and checks the answer and the service after it; throws a Violation otherwise. */
  async run(fuzzCase: FuzzCase): Promise<WireResponse> {
    await this.ensureRunning();
    this.cases++;
    const caller = await this.callerKey(fuzzCase.caller);
    const account = caller.account;
    const resolve = (ref: Ref) => this.resolve(ref.name, account);
    const path = '/' + fuzzCase.segments.map((segment) => (segment instanceof Ref ? encodeURIComponent(resolve(segment)) : segment)).join('/');
    const target = fuzzCase.query.length ? `${path}?${fuzzCase.query.join('&')}` : path;
    const headers: Record<string, string> = {};
    if (caller.authorization) headers.authorization = caller.authorization;
    if (fuzzCase.contentType !== null) headers['content-type'] = fuzzCase.contentType;
    const body =
      fuzzCase.body === undefined ? undefined : fuzzCase.body.kind === 'bytes' ? fuzzCase.body.bytes : Buffer.from(toJsonText(fuzzCase.body.tree, resolve));
    const describe = () => describeRequest(fuzzCase, target, headers, body);

    let response: WireResponse;
    try {
      response = await this.send(fuzzCase.method, target, headers, body);
    } catch (error) {
      throw new Violation(`no answer (${(error as Error).message})\n${describe()}\n${await this.diagnose()}`);
    }
    this.count(fuzzCase.operation, response);
    if (account) this.noteRemaining(account, response);
    this.checkAnswer(fuzzCase, response, describe);
    await this.checkAlive(describe, POOLED.has(fuzzCase.operation));
    return response;
  }

  private count(operation: string, response: WireResponse): void {
    const counts = this.operationCounts.get(operation) ?? { cases: 0, succeeded: 0 };
    counts.cases++;
    if (response.status >= 200 && response.status < 300) counts.succeeded++;
    this.operationCounts.set(operation, counts);
    this.statusCounts.set(response.status, (this.statusCounts.get(response.status) ?? 0) + 1);
    const code = errorCodeOf(response);
    if (code) this.codeCounts.set(code, (this.codeCounts.get(code) ?? 0) + 1);
  }

  private checkAnswer(fuzzCase: FuzzCase, response: WireResponse, describe: () => string): void {
    const broken = brokenInvariant(fuzzCase, response, this.documented, this.operations.find((operation) => operation.name === fuzzCase.operation)?.errorCodes);
    if (!broken) return;
    const requestId = String(response.headers['x-request-id'] ?? '');
    const logged =
      response.status >= 500 && requestId
        ? this.service
            .output()
            .split('\n')
            .filter((line) => line.includes(requestId))
        : [];
    const log = logged.length ? `; the service logged:\n${logged.join('\n').slice(0, 3000)}` : '';
    throw new Violation(`${broken}${log}\n${describe()}\nanswer: ${response.status} ${response.body.subarray(0, 600).toString()}`);
  }

  /** The service must still answer, and after pooled work so must the pool. */
  private async checkAlive(describe: () => string, pooled: boolean): Promise<void> {
    let health: WireResponse | undefined;
    try {
      health = await this.send('GET', '/healthz', {}, undefined, 5_000);
    } catch {
      // Reported below with what the process printed.
    }
    if (health?.status !== 200) throw new Violation(`the service stopped answering /healthz after this request\n${describe()}\n${await this.diagnose()}`);
    if (!pooled) return;
    // Batches above 25 items go to the pool: a pool that takes no more work shows here.
    const probe = Buffer.from(JSON.stringify({ schema: 'signal', items: Array.from({ length: 26 }, () => ({})) }));
    const prober = this.accounts.get('enterprise') ?? (await this.rotate('enterprise'));
    let answer: WireResponse | undefined;
    try {
      answer = await this.send('POST', '/v1/validate/batch', { authorization: `Bearer ${prober.key}`, 'content-type': 'application/json' }, probe, 10_000);
      this.noteRemaining(prober, answer);
    } catch {
      // Reported below.
    }
    if (answer?.status !== 200)
      throw new Violation(
        `the worker pool stopped taking work after this request (probe answered ${answer?.status ?? 'nothing'})\n${describe()}\n${await this.diagnose()}`,
      );
  }

  private async diagnose(): Promise<string> {
    // A process that is going down has written its last words once it has ended.
    if (!this.service.ended) await Promise.race([this.service.exited, new Promise((resolve) => setTimeout(resolve, 200).unref())]);
    const state = this.service.ended ? `service exited (${await this.service.exited})` : 'service process still running';
    return `${state}; its last output:\n${this.service.output().split('\n').slice(-30).join('\n')}`;
  }

  /** After a crash or a stall, a fresh process on the same DATA_DIR for the next case. */
  private async ensureRunning(): Promise<void> {
    if (!this.service.ended) {
      const health = await this.send('GET', '/healthz', {}, undefined, 5_000).catch(() => undefined);
      if (health?.status === 200) return;
      await this.service.kill();
    }
    this.restarts++;
    this.service = await startChildService(this.env);
  }

  send(method: string, target: string, headers: Record<string, string>, body?: Buffer, timeoutMs = REQUEST_TIMEOUT_MS): Promise<WireResponse> {
    return new Promise((resolve, reject) => {
      // Node sends a GET body with neither Content-Length nor chunked framing unless told the length.
      const framed = body === undefined ? headers : { ...headers, 'content-length': String(body.length) };
      // The target as generated, dot segments included: a URL string would be normalised by the
      // client first (`/v1/frameworks/../controls` sent as `/v1/controls`), testing another operation.
      const { hostname, port } = new URL(this.service.url);
      // Characters a request line cannot carry are percent-encoded, as a URL string would have them.
      const path = target.replace(/[^\x21-\x7E]+/g, (run) => encodeURIComponent(run));
      const req = request({ hostname, port, path, method, headers: framed, agent: this.agent, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  private async json(method: string, target: string, key: string, body?: unknown): Promise<any> {
    const response = await this.send(
      method,
      target,
      { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    );
    if (response.status !== 200) throw new Error(`${method} ${target} answered ${response.status}: ${response.body.toString().slice(0, 300)}`);
    return JSON.parse(response.body.toString('utf8'));
  }

  /** Real values read through the API, by vocabulary name (see schema.ts). */
  private async readVocabulary(): Promise<Vocabulary> {
    const key = await this.keyOf('enterprise');
    const get = async (target: string) => (await this.json('GET', target, key)).data;
    const signals: Array<{ id: string; title: string; tags: string[] }> = [
      ...(await get('/v1/signals?per_page=100')),
      ...(await get('/v1/signals?per_page=100&page=3')),
    ];
    const frameworks: Array<{ code: string; listing_code: string; gap_analysis: boolean }> = await get('/v1/frameworks');
    const controls: Array<{ id: string; category: string }> = await get('/v1/controls?per_page=100');
    const domains: Array<{ id: string; categories: string[] }> = await get('/v1/domains');
    const artifactTypes: Array<{ id: string; subcategory: string; provider_mappings: Array<{ resource_type?: string }> }> =
      await get('/v1/artifact-types?per_page=100');
    const templates: Array<{ id: string; category: string }> = await get('/v1/finding-templates?per_page=100');
    const toolMappings: Array<{ tool_id: string; rule_id: string }> = await get('/v1/tool-mappings?per_page=100&page=7');
    const unique = (values: Array<string | undefined>) => [
      ...new Set(values.filter((value): value is string => typeof value === 'string' && value.length > 0)),
    ];
    return {
      signals: unique(signals.map((s) => s.id)),
      tags: unique(signals.flatMap((s) => s.tags)),
      words: unique(signals.flatMap((s) => s.title.split(/\s+/)).slice(0, 200)),
      frameworks: unique(frameworks.flatMap((f) => [f.code, f.listing_code])),
      gapFrameworks: unique(frameworks.filter((f) => f.gap_analysis).map((f) => f.code)),
      controls: unique(controls.map((c) => c.id)),
      categories: unique([...controls.map((c) => c.category), ...domains.flatMap((d) => d.categories), ...templates.map((t) => t.category)]),
      domains: unique(domains.map((d) => d.id)),
      artifactTypes: unique(artifactTypes.map((a) => a.id)),
      subcategories: unique(artifactTypes.map((a) => a.subcategory)),
      resourceTypes: unique(artifactTypes.flatMap((a) => a.provider_mappings.map((m) => m.resource_type))),
      providers: ['aws', 'azure', 'gcp', 'oci', 'alibaba', 'AWS'],
      findingTemplates: unique(templates.map((t) => t.id)),
      tools: unique(toolMappings.map((m) => m.tool_id)),
      rules: unique(toolMappings.map((m) => m.rule_id)),
    };
  }

  private resolve(name: RefName, account: KeyedAccount | undefined): string {
    if (name === 'foreign-analysis') return this.foreign.analyses[0];
    // A caller without analyses (Community, or no key) names one that is not its own either.
    return account?.analyses[this.cases % Math.max(1, account.analyses.length)] ?? this.foreign.analyses[1];
  }

  private async callerKey(caller: FuzzCase['caller']): Promise<{ authorization?: string; account?: KeyedAccount }> {
    switch (caller) {
      case 'none':
        return {};
      case 'malformed':
        return { authorization: 'Bearer not-a-key' };
      case 'unknown-key':
        return { authorization: `Bearer csr_0123456789abcdef_${'A'.repeat(43)}` };
      default: {
        const account = this.accounts.get(caller) ?? (await this.rotate(caller));
        return { authorization: `Bearer ${account.key}`, account };
      }
    }
  }

  private async keyOf(tier: Tier): Promise<string> {
    return (this.accounts.get(tier) ?? (await this.rotate(tier))).key;
  }

  /**
   * Each account has its own rate windows: when one is nearly used up the next cases go to a fresh
   * account of the same tier, so that cases reach the code behind the limiter.
   */
  private noteRemaining(account: KeyedAccount, response: WireResponse): void {
    const minute = Number(response.headers['x-ratelimit-remaining']);
    const day = Number(response.headers['x-ratelimit-daily-remaining']);
    if ((Number.isFinite(minute) && minute < 10) || (Number.isFinite(day) && day < 10)) {
      if (this.accounts.get(account.tier) === account) this.accounts.delete(account.tier);
    }
  }

  private async rotate(tier: Tier): Promise<KeyedAccount> {
    const account = await this.newAccount(tier);
    this.accounts.set(tier, account);
    return account;
  }

  /** A new account with a key and, where the tier allows, two stored analyses of its own. */
  private async newAccount(tier: Tier): Promise<KeyedAccount> {
    const name = `fuzz-${tier}-${++this.accountSerial}`;
    const { key } = await this.keys.createKey(name, tier);
    const account: KeyedAccount = { name, tier, key, analyses: [] };
    const limits = GAP_ANALYSIS_LIMITS[tier];
    if (limits.allowed && this.vocabulary.signals) {
      // Over every framework the tier allows, so that an export's framework filter often matches.
      const all = this.vocabulary.gapFrameworks;
      for (const frameworks of limits.maxFrameworks >= all.length ? [all, all] : [['HIPAA'], ['SOC2']]) {
        const findings = this.vocabulary.signals
          .slice(0, 3)
          .map((signal_id, index) => ({ id: `f-${index}`, signal_id, status: index === 0 ? 'resolved' : 'open' }));
        const created = await this.json('POST', '/v1/gap-analysis', key, { frameworks, findings });
        account.analyses.push(created.data.analysis_id ?? created.data.id);
      }
    }
    return account;
  }
}

export function errorCodeOf(response: WireResponse): string | undefined {
  if (response.status < 400) return undefined;
  try {
    const code = (JSON.parse(response.body.toString('utf8')) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The request as text a person can replay: method, target, headers, and the body (or its start). */
export function describeRequest(fuzzCase: FuzzCase, target: string, headers: Record<string, string>, body: Buffer | undefined): string {
  const shown = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
  const lines = [`${fuzzCase.method} ${shown(target)}  [operation ${fuzzCase.operation}, caller ${fuzzCase.caller}]`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${name === 'authorization' ? value.replace(/_[^_]+$/, '_…') : shown(value)}`);
  if (body !== undefined) lines.push(`body (${fuzzCase.body?.label}, ${body.length} bytes): ${shown(body.toString('utf8'))}`);
  return lines.join('\n');
}
