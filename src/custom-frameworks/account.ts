/**
 * An account's own frameworks as the routes use them: only an Enterprise account has any (a
 * lower tier's stay stored, unseen and unused, until it is Enterprise again), and their evidence
 * resolved against this process's registry, kept per stored version.
 */
import type { CustomFrameworksOfTask } from '../gap/analyze.js';
import type { CustomFrameworkFacts } from '../gap/custom-frameworks.js';
import type { Account, CustomFrameworkStore } from '../store/types.js';
import { frameworkFacts, resolveControls, type InheritanceRegistry, type ResolvedControl } from './inheritance.js';
import type { CustomFrameworkSummary, StoredCustomFramework } from './model.js';

export function hasCustomFrameworks(account: Account): boolean {
  return account.tier === 'enterprise';
}

export async function ownFrameworks(store: CustomFrameworkStore, account: Account): Promise<CustomFrameworkSummary[]> {
  return hasCustomFrameworks(account) ? store.list(account.name) : [];
}

/** The account's framework of that code (any case), if the account may have one. */
export async function ownFramework(store: CustomFrameworkStore, account: Account, code: string): Promise<StoredCustomFramework | undefined> {
  return hasCustomFrameworks(account) ? store.get(account.name, code.toUpperCase()) : undefined;
}

export interface ResolvedFramework {
  facts: CustomFrameworkFacts;
  controls: ResolvedControl[];
}

/** Resolved frameworks by stored version; the registry cannot change while the process runs. */
const resolvedCache = new Map<string, ResolvedFramework>();
const RESOLVED_CACHE_ENTRIES = 64;

/** Which stored version: a framework deleted and made again starts at revision 1 again, with another updated_at. */
function versionKey(framework: CustomFrameworkSummary): string {
  return `${framework.account}\u0000${framework.code}\u0000${framework.revision}\u0000${framework.updated_at}`;
}

export function resolvedFramework(framework: StoredCustomFramework, registry: InheritanceRegistry): ResolvedFramework {
  const key = versionKey(framework);
  let resolved = resolvedCache.get(key);
  if (resolved) {
    resolvedCache.delete(key);
  } else {
    const controls = resolveControls(framework, registry);
    resolved = { facts: frameworkFacts(framework, controls), controls };
  }
  resolvedCache.set(key, resolved);
  for (const oldest of resolvedCache.keys()) {
    if (resolvedCache.size <= RESOLVED_CACHE_ENTRIES) break;
    resolvedCache.delete(oldest);
  }
  return resolved;
}

/** The facts of these of the account's frameworks (those still there), resolved. */
async function factsOf(
  store: CustomFrameworkStore,
  registry: InheritanceRegistry,
  frameworks: readonly CustomFrameworkSummary[],
): Promise<CustomFrameworkFacts[]> {
  const facts: CustomFrameworkFacts[] = [];
  for (const summary of frameworks) {
    const cached = resolvedCache.get(versionKey(summary));
    if (cached) {
      facts.push(cached.facts);
      continue;
    }
    const stored = await store.get(summary.account, summary.code);
    if (stored) facts.push(resolvedFramework(stored, registry).facts);
  }
  return facts;
}

/**
 * What an analysis needs of the account's frameworks, or undefined when it has none: every code,
 * and the facts of those `mayName` says the request may use.
 */
export async function customFrameworksOfTask(
  store: CustomFrameworkStore,
  registry: InheritanceRegistry,
  account: Account,
  mayName: (code: string) => boolean,
): Promise<CustomFrameworksOfTask | undefined> {
  const own = await ownFrameworks(store, account);
  if (!own.length) return undefined;
  return {
    codes: own.map((framework) => framework.code),
    frameworks: await factsOf(
      store,
      registry,
      own.filter((framework) => mayName(framework.code)),
    ),
  };
}

/** Adds the facts of `codes` to a task's custom frameworks (the request named them in a spelling the body scan missed). */
export async function addFacts(
  store: CustomFrameworkStore,
  registry: InheritanceRegistry,
  account: Account,
  custom: CustomFrameworksOfTask,
  codes: readonly string[],
): Promise<void> {
  const own = await ownFrameworks(store, account);
  custom.frameworks.push(
    ...(await factsOf(
      store,
      registry,
      own.filter((framework) => codes.includes(framework.code)),
    )),
  );
  custom.codes = own.map((framework) => framework.code);
}

/** How much of each end of a large body is looked at (see mayNameIn). */
const LOOKED_AT_BYTES = 64 * 1024;

/**
 * Whether the body may name a code: as stored (upper case) or in lower case. Other spellings are
 * sent for afterwards (src/api/gap-analysis.ts). In a large body only its two ends are looked at:
 * the request's members besides the findings (frameworks, options) are small and sit before or
 * after the findings array, and reading 16 MB once per code would hold the HTTP thread.
 */
export function mayNameIn(body: Uint8Array): (code: string) => boolean {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const ends = bytes.length <= 2 * LOOKED_AT_BYTES ? [bytes] : [bytes.subarray(0, LOOKED_AT_BYTES), bytes.subarray(bytes.length - LOOKED_AT_BYTES)];
  return (code) => ends.some((part) => part.includes(code) || part.includes(code.toLowerCase()));
}
