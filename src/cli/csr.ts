import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { dirname, resolve } from 'node:path';
import { isTier, TIERS, type Tier } from '../tiers.js';
import { jsonBytes } from '../core/json-body.js';
import { openStores } from '../store/open.js';
import type { AccountDirectory } from '../store/types.js';
import { defaultFactsDir, defaultRegistryDir, defaultSourcesDir, resolveDataDir } from '../paths.js';
import { SERVER_ENTRY, SERVICE_NODE_FLAGS } from '../node-flags.js';
import { SCAN_FORMATS } from '../schemas/ingest.js';
import type { FormatChoice } from '../ingest/read.js';
import { RESULT_VARIANTS, resultInVariant, type ResultVariant } from '../gap/variant.js';

const USAGE = `csr: Compliance Signal Registry command line

  csr keys create --account NAME [--tier TIER]   create a key (and the account, given --tier); prints the key last
  csr keys list [--account NAME]                  list keys (ids only; keys are never stored)
  csr keys revoke KEY_ID                          revoke a key (id or whole key)
  csr accounts list                               list accounts and tiers
  csr accounts set-tier NAME TIER                 change an account's tier
  csr registry build [--if-stale]                 compile registry/sources into the LMDB index
  csr registry report [--json|--markdown]         registry figures against their targets (docs/registry-report.md;
                                                  --markdown writes the page docs/registry-figures.md holds)
  csr registry generate [--out DIR] [--check]     rewrite the generated registry sources from registry/facts
                                                  (--check: compare instead, exit 1 when a file differs)
  csr registry review draw [--seed N] [--size N]  draw the release's precision sample (registry/review/precision-<version>.yaml)
  csr registry review seal                        record the mappings the finished review vouches for
  csr registry review check                       exit 1 unless the committed review vouches for the current mappings
  csr registry facts --from DIR                   maintainer: extract registry/facts from a reference folder (../shared/reference)
  csr analyze FILE|- [--frameworks A,B] [--tier T] [--format F] [--variant a|b]
                                                  gap analysis offline: FILE holds a request body, a findings array, or a
                                                  scanner's output file (detected, or --format); prints the result (as
                                                  POST /v1/gap-analysis or /v1/gap-analysis/import would, nothing stored;
                                                  --variant: one spec variant alone, as ?variant= does)
  csr import FILE|- [--format F]                  a scanner's output file as findings (as POST /v1/findings/import would)
  csr serve                                       start the HTTP service (same as npm start)
  csr help [COMMAND]                              this text, or one command's lines (also csr COMMAND --help)

Tiers: ${TIERS.join(', ')}. Key and account commands work on PostgreSQL when DATABASE_URL is set, otherwise on
LMDB under DATA_DIR (default data/ in the project; a relative one is taken from the project root, as the server
takes it), and name the store they used on standard error; registry commands honour REGISTRY_DIR.`;

class UsageError extends Error {}

/** The same store the service uses: PostgreSQL when DATABASE_URL is set, else LMDB under DATA_DIR. */
async function withAccounts<T>(work: (accounts: AccountDirectory) => Promise<T> | T): Promise<T> {
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  // The server resolves DATA_DIR with the same function; saying which store was used (on stderr,
  // so `keys create | tail -n 1` still yields the key) explains a key the server refuses.
  const dataDir = resolveDataDir();
  if (databaseUrl) process.stderr.write('csr: store PostgreSQL (from DATABASE_URL)\n');
  else process.stderr.write(`csr: data directory ${dataDir.path} (${dataDir.source === 'DATA_DIR' ? 'from DATA_DIR' : 'default; set DATA_DIR to choose'})\n`);
  const stores = await openStores({ dataDir: dataDir.path, databaseUrl });
  try {
    return await work(stores.accounts);
  } finally {
    await stores.close();
  }
}

function formatArgument(value: string | undefined): FormatChoice {
  if (value === undefined) return 'auto';
  if (value !== 'auto' && !(SCAN_FORMATS as readonly string[]).includes(value))
    throw new UsageError(`Unknown format ${JSON.stringify(value)}; expected auto or one of ${SCAN_FORMATS.join(', ')}`);
  return value as FormatChoice;
}

/** A gap-analysis request (an object with findings) or a bare findings array; undefined for anything else (a scanner file). */
function findingsRequest(bytes: Buffer): Record<string, unknown> | undefined {
  let input: unknown;
  try {
    input = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (Array.isArray(input)) {
    const first = input[0] as Record<string, unknown> | undefined;
    return input.length === 0 || (first && typeof first === 'object' && 'signal_id' in first) ? { findings: input } : undefined;
  }
  return input && typeof input === 'object' && 'findings' in input && Array.isArray((input as { findings: unknown }).findings)
    ? (input as Record<string, unknown>)
    : undefined;
}

/** A worker-style result: the JSON on stdout, or the error envelope on stderr with exit code 1. */
function writeOutput(output: { ok: true; payload: Uint8Array } | { ok: false; error: unknown }): void {
  if (!output.ok) {
    process.stderr.write(`${JSON.stringify({ error: output.error })}\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(Buffer.from(output.payload));
  process.stdout.write('\n');
}

function variantArgument(value: string | undefined): ResultVariant | undefined {
  if (value === undefined) return undefined;
  if (!(RESULT_VARIANTS as readonly string[]).includes(value))
    throw new UsageError(`Unknown variant ${JSON.stringify(value)}; expected one of ${RESULT_VARIANTS.join(', ')}`);
  return value as ResultVariant;
}

function tierArgument(value: string | undefined): Tier | undefined {
  if (value === undefined) return undefined;
  if (!isTier(value)) throw new UsageError(`Unknown tier ${JSON.stringify(value)}; expected one of ${TIERS.join(', ')}`);
  return value;
}

/** The usage lines of one command group (`csr analyze --help`), or all of them. */
function usageOf(group: string | undefined): string {
  if (!group) return USAGE;
  const lines = USAGE.split('\n');
  const picked: string[] = [];
  let inGroup = false;
  for (const line of lines) {
    // A command's line, and the indented lines that continue it.
    if (line.startsWith('  csr ')) inGroup = line.startsWith(`  csr ${group} `) || line.trimEnd() === `  csr ${group}`;
    else if (!/^ {10,}\S/.test(line)) inGroup = false;
    if (inGroup) picked.push(line);
  }
  return picked.length ? `${lines[0]}\n\n${picked.join('\n')}` : USAGE;
}

async function run(argv: string[]): Promise<void> {
  const [group, action, ...rest] = argv;
  // `csr --help`, `csr help [command]`, `csr <command> --help`: usage on standard output, exit 0.
  if (group === undefined || group === 'help' || argv.includes('--help') || argv.includes('-h')) {
    if (group === undefined) throw new UsageError('No command given');
    const named = group === 'help' ? action : group.startsWith('-') ? undefined : group;
    process.stdout.write(`${usageOf(named)}\n`);
    return;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      tier: { type: 'string' },
      'if-stale': { type: 'boolean' },
      json: { type: 'boolean' },
      frameworks: { type: 'string' },
      format: { type: 'string' },
      variant: { type: 'string' },
      out: { type: 'string' },
      from: { type: 'string' },
      check: { type: 'boolean' },
      markdown: { type: 'boolean' },
      seed: { type: 'string' },
      size: { type: 'string' },
    },
  });
  const out = (line: string) => process.stdout.write(`${line}\n`);

  if (group === 'keys' && action === 'create') {
    if (!values.account) throw new UsageError('keys create needs --account NAME');
    const tier = tierArgument(values.tier);
    const created = await withAccounts((accounts) => accounts.createKey(values.account!, tier));
    if (created.accountCreated) out(`created account ${values.account} (tier ${tier})`);
    out(`created key ${created.record.id} for account ${values.account}; it is shown once, store it now:`);
    out(created.key);
    return;
  }
  if (group === 'keys' && action === 'list') {
    const keys = await withAccounts((accounts) => accounts.listKeys(values.account));
    if (values.json) {
      out(
        JSON.stringify(
          keys.map(({ secret_sha256: _hash, ...visible }) => visible),
          null,
          2,
        ),
      );
      return;
    }
    for (const key of keys) out(`${key.id}  ${key.account}  created ${key.created_at}  ${key.revoked_at ? `revoked ${key.revoked_at}` : 'active'}`);
    if (!keys.length) out('no keys');
    return;
  }
  if (group === 'keys' && action === 'revoke') {
    const id = positionals[0];
    if (!id) throw new UsageError('keys revoke needs KEY_ID');
    const revoked = await withAccounts((accounts) => accounts.revokeKey(id));
    if (!revoked) throw new UsageError(`No key with id ${id}`);
    out(`revoked key ${revoked.id} of account ${revoked.account}`);
    return;
  }
  if (group === 'accounts' && action === 'list') {
    const accounts = await withAccounts((store) => store.listAccounts());
    for (const account of accounts) out(`${account.name}  ${account.tier}`);
    if (!accounts.length) out('no accounts');
    return;
  }
  if (group === 'accounts' && action === 'set-tier') {
    const [name, tierName] = positionals;
    if (!name || !tierName) throw new UsageError('accounts set-tier needs NAME TIER');
    const tier = tierArgument(tierName);
    const updated = await withAccounts((accounts) => accounts.setTier(name, tier!));
    if (!updated) throw new UsageError(`No account named ${name}`);
    out(`account ${name} is now ${updated.tier}`);
    return;
  }
  if (group === 'registry' && action === 'build') {
    const { compileRegistry } = await import('../../registry/compile.js');
    const result = await compileRegistry({
      sourcesDir: defaultSourcesDir,
      outDir: resolve(process.env.REGISTRY_DIR ?? defaultRegistryDir),
      ifStale: !!values['if-stale'],
    });
    if (!result.stale && values['if-stale']) out(`registry ${result.manifest.registry_version} is up to date (${result.manifest.content_hash.slice(0, 12)})`);
    else out(`registry ${result.manifest.registry_version} built in ${result.durationMs} ms: ${JSON.stringify(result.manifest.counts)}`);
    return;
  }
  if (group === 'registry' && action === 'report') {
    const { computeReport, formatReportMarkdown, formatReportText, loadReportInput } = await import('../../registry/report.js');
    const report = computeReport(await loadReportInput(defaultSourcesDir));
    // The Markdown page ends in its own newline: written as is, so the committed file matches it byte for byte.
    if (values.markdown) process.stdout.write(formatReportMarkdown(report));
    else out(values.json ? JSON.stringify(report, null, 2) : formatReportText(report));
    return;
  }
  if (group === 'registry' && action === 'review') {
    const review = await import('../../registry/review.js');
    const { model, mappings, errors } = review.loadModel(defaultSourcesDir);
    if (errors.length) throw new UsageError(`registry sources have ${errors.length} errors (csr registry build lists them)`);
    const path = review.reviewPath(dirname(defaultSourcesDir), model.meta.registry_version);
    const step = positionals[0];
    if (step === 'draw') {
      const seed = Number(values.seed ?? Date.now() % 2147483647);
      const size = Number(values.size ?? review.DEFAULT_SAMPLE_SIZE);
      if (!Number.isInteger(seed) || !Number.isInteger(size) || size < 200)
        throw new UsageError('--seed must be an integer and --size an integer of at least 200');
      const drawn = review.drawSample(model, mappings, seed, size);
      review.writeReview(path, drawn);
      out(`${drawn.sample.length} mappings drawn (seed ${seed}) into ${path}`);
      return;
    }
    const current = review.readReview(path);
    if (!current) throw new UsageError(`no review at ${path}: csr registry review draw`);
    if (step === 'seal') {
      const open = current.sample.filter((e) => !e.verdict).length;
      if (open) throw new UsageError(`${open} sampled mappings have no verdict yet`);
      review.writeReview(path, { ...current, mappings_hash: review.mappingsHash(mappings) });
      out(`review of registry ${current.registry_version} sealed`);
      return;
    }
    if (step === 'check') {
      const problems = review.reviewProblems(current, model, mappings);
      const f = review.reviewFigures(current);
      out(
        `precision review of registry ${current.registry_version}: ${f.judged} judged; exact ${f.exact.pct}% [${f.exact.low}, ${f.exact.high}], partial ${f.partial.pct}%, wrong ${f.wrong.pct}% [${f.wrong.low}, ${f.wrong.high}]`,
      );
      if (problems.length)
        throw new UsageError(
          `the review does not vouch for the current mappings:\n  ${problems.slice(0, 20).join('\n  ')}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ''}`,
        );
      return;
    }
    throw new UsageError('registry review needs draw, seal or check');
  }
  if (group === 'registry' && action === 'facts') {
    if (!values.from) throw new UsageError('registry facts needs --from DIR (the reference folder, e.g. ../shared/reference)');
    const { extractFacts } = await import('../../registry/generate/facts.js');
    out(`facts written to registry/facts: ${JSON.stringify(extractFacts(resolve(values.from), defaultFactsDir))}`);
    return;
  }
  if (group === 'registry' && action === 'generate') {
    const { generateSources, writeGenerated, compareGenerated } = await import('../../registry/generate/generate.js');
    const files = generateSources(defaultFactsDir, defaultSourcesDir);
    if (values.check) {
      const differing = compareGenerated(files, dirname(defaultSourcesDir));
      if (differing.length) throw new UsageError(`generated sources differ from registry/generate (run csr registry generate): ${differing.join(', ')}`);
      out(`${files.length} generated files match their generators`);
      return;
    }
    const outDir = values.out ? resolve(values.out) : dirname(defaultSourcesDir);
    writeGenerated(files, outDir);
    out(`${files.length} generated files written to ${outDir}`);
    return;
  }
  if (group === 'import') {
    if (!action) throw new UsageError('import needs a FILE (or - for standard input)');
    const format = formatArgument(values.format);
    const bytes = action === '-' ? readFileSync(0) : readFileSync(action);
    const { Registry } = await import('../registry/registry.js');
    const { importFindings } = await import('../ingest/import.js');
    const registry = Registry.open(resolve(process.env.REGISTRY_DIR ?? defaultRegistryDir), { searchIndex: 'lazy' });
    const output = importFindings(registry, { body: bytes, format });
    await registry.close();
    writeOutput(output);
    return;
  }
  if (group === 'analyze') {
    if (!action) throw new UsageError('analyze needs a FILE (or - for standard input)');
    const tier = tierArgument(values.tier) ?? 'enterprise';
    const variant = variantArgument(values.variant);
    const bytes = action === '-' ? readFileSync(0) : readFileSync(action);
    const frameworks = values.frameworks
      ?.split(',')
      .map((code) => code.trim())
      .filter(Boolean);
    const { Registry } = await import('../registry/registry.js');
    const { analyze } = await import('../gap/analyze.js');
    const { importAnalysis } = await import('../ingest/import.js');
    const { newAnalysisId } = await import('../store/analyses.js');
    const registry = Registry.open(resolve(process.env.REGISTRY_DIR ?? defaultRegistryDir), { searchIndex: 'lazy' });
    const now = new Date();
    const task = { tier, id: newAnalysisId(now), createdAt: now.toISOString() };
    const request = values.format ? undefined : findingsRequest(bytes);
    let output;
    if (request) {
      if (frameworks) request.frameworks = frameworks;
      output = analyze(registry, { ...task, body: jsonBytes(request) });
    } else {
      // Not a request of findings: a scanner's own file, converted as POST /v1/gap-analysis/import does.
      if (!frameworks) throw new UsageError('analyze of a scanner file needs --frameworks A,B');
      output = importAnalysis(registry, { ...task, body: bytes, format: formatArgument(values.format), frameworks, options: { include_resolved: true } });
    }
    await registry.close();
    if (output.ok && variant) output = { ...output, payload: resultInVariant(Buffer.from(output.payload), output.dataMembers, variant) };
    writeOutput(output);
    return;
  }
  if (group === 'serve') {
    // A child process, because the service's V8 flags can only be given at start (src/node-flags.ts).
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, SERVER_ENTRY], { stdio: 'inherit' });
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => child.kill(signal));
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    process.exitCode = code ?? (signal ? 1 : 0);
    return;
  }
  throw new UsageError(group ? `Unknown command: ${[group, action].filter(Boolean).join(' ')}` : 'No command given');
}

// A reader that stops early (`csr analyze … | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

run(process.argv.slice(2)).catch((error) => {
  if (error instanceof UsageError) {
    process.stderr.write(`csr: ${error.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`csr: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
