import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { isTier, TIERS, type Tier } from '../tiers.js';
import { openStores } from '../store/open.js';
import type { AccountDirectory } from '../store/types.js';
import { defaultRegistryDir, defaultSourcesDir } from '../paths.js';
import { SERVER_ENTRY, SERVICE_NODE_FLAGS } from '../node-flags.js';

const USAGE = `csr: Compliance Signal Registry command line

  csr keys create --account NAME [--tier TIER]   create a key (and the account, given --tier); prints the key last
  csr keys list [--account NAME]                  list keys (ids only; keys are never stored)
  csr keys revoke KEY_ID                          revoke a key (id or whole key)
  csr accounts list                               list accounts and tiers
  csr accounts set-tier NAME TIER                 change an account's tier
  csr registry build [--if-stale]                 compile registry/sources into the LMDB index
  csr registry report [--json]                    registry depth figures against their targets (docs/registry-report.md)
  csr analyze FILE|- [--frameworks A,B] [--tier T] gap analysis offline: FILE holds a request body or a findings array;
                                                  prints the result (as POST /v1/gap-analysis would, nothing stored)
  csr serve                                       start the HTTP service (same as npm start)

Tiers: ${TIERS.join(', ')}. Key and account commands work on PostgreSQL when DATABASE_URL is set, otherwise on
LMDB under DATA_DIR (default ./data); registry commands honour REGISTRY_DIR.`;

class UsageError extends Error {}

function dataDir(): string {
  return resolve(process.env.DATA_DIR ?? './data');
}

/** The same store the service uses: PostgreSQL when DATABASE_URL is set, else LMDB under DATA_DIR. */
async function withAccounts<T>(work: (accounts: AccountDirectory) => Promise<T> | T): Promise<T> {
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  const stores = await openStores({ dataDir: dataDir(), databaseUrl });
  try {
    return await work(stores.accounts);
  } finally {
    await stores.close();
  }
}

function tierArgument(value: string | undefined): Tier | undefined {
  if (value === undefined) return undefined;
  if (!isTier(value)) throw new UsageError(`Unknown tier ${JSON.stringify(value)}; expected one of ${TIERS.join(', ')}`);
  return value;
}

async function run(argv: string[]): Promise<void> {
  const [group, action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { account: { type: 'string' }, tier: { type: 'string' }, 'if-stale': { type: 'boolean' }, json: { type: 'boolean' }, frameworks: { type: 'string' } },
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
      out(JSON.stringify(keys.map(({ secret_sha256: _hash, ...visible }) => visible), null, 2));
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
    const result = await compileRegistry({ sourcesDir: defaultSourcesDir, outDir: resolve(process.env.REGISTRY_DIR ?? defaultRegistryDir), ifStale: !!values['if-stale'] });
    if (!result.stale && values['if-stale']) out(`registry ${result.manifest.registry_version} is up to date (${result.manifest.content_hash.slice(0, 12)})`);
    else out(`registry ${result.manifest.registry_version} built in ${result.durationMs} ms: ${JSON.stringify(result.manifest.counts)}`);
    return;
  }
  if (group === 'registry' && action === 'report') {
    const { computeReport, formatReportText, loadReportInput } = await import('../../registry/report.js');
    const report = computeReport(await loadReportInput(defaultSourcesDir));
    out(values.json ? JSON.stringify(report, null, 2) : formatReportText(report));
    return;
  }
  if (group === 'analyze') {
    if (!action) throw new UsageError('analyze needs a FILE (or - for standard input)');
    const tier = tierArgument(values.tier) ?? 'enterprise';
    const text = action === '-' ? readFileSync(0, 'utf8') : readFileSync(action, 'utf8');
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`${action} is not JSON: ${(error as Error).message}`);
    }
    const body = Array.isArray(input) ? { findings: input } : (input as Record<string, unknown>);
    if (values.frameworks) body.frameworks = values.frameworks.split(',').map((code) => code.trim()).filter(Boolean);
    const { Registry } = await import('../registry/registry.js');
    const { analyze } = await import('../gap/analyze.js');
    const { newAnalysisId } = await import('../store/analyses.js');
    const registry = Registry.open(resolve(process.env.REGISTRY_DIR ?? defaultRegistryDir));
    const now = new Date();
    const output = analyze(registry, { body: new TextEncoder().encode(JSON.stringify(body)), tier, id: newAnalysisId(now), createdAt: now.toISOString() });
    await registry.close();
    if (!output.ok) {
      process.stderr.write(`${JSON.stringify({ error: output.error })}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(Buffer.from(output.payload));
    process.stdout.write('\n');
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
