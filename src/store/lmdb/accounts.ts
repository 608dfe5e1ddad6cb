import { performance } from 'node:perf_hooks';
import { isTier, type Tier } from '../../tiers.js';
import { accountExistsError, keyIdOf, newKey, noAccountError, parseKey, secretMatches } from '../accounts.js';
import type { Account, AccountDirectory, AccountRecord, ApiKeyRecord, CreatedKey } from '../types.js';
import type { DataStore } from './database.js';

/**
 * How often the HTTP thread reads the directory's generation, the counter every revocation and
 * tier change raises (by this process or another: the CLI). Until it moves, a verified key stays
 * trusted, and a request with it skips the secret's hash, the key and account reads and their
 * decoding (about 8 % of the HTTP thread under wrk with 2,000 keys in turn, when keys were
 * re-verified every 500 ms). The check itself is a fresh read snapshot and one read, about
 * 2 µs: 400 a second cost nothing measurable, and a change made elsewhere applies to the first
 * request after this interval (measured: docs/architecture.md, "Keys"; it was 100 ms, and a
 * revoked key served up to 57 more requests).
 */
const GENERATION_CHECK_MS = 2.5;
/** Verified keys held at most; past it the table starts again (it refills with the keys in use). */
const VERIFIED_KEYS_MAX = 10_000;
const GENERATION = 'generation';

/**
 * Accounts and keys in the embedded LMDB. A key is verified against its record (a synchronous,
 * memory-mapped read of a few microseconds) and then trusted until a revocation or tier change
 * is recorded: at once when made through this directory, within GENERATION_CHECK_MS when made
 * by another process.
 */
export class LmdbAccountDirectory implements AccountDirectory {
  private readonly verified = new Map<string, Account>();
  private generation: number | undefined;
  private nextGenerationCheck = 0;

  constructor(
    private readonly store: DataStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private account(name: string): Account | undefined {
    const record = this.store.accounts.get(name);
    if (!record || !isTier(record.tier)) return undefined;
    return { name: record.name, tier: record.tier };
  }

  authenticate(presented: string): Account | undefined {
    // A monotonic clock: the check interval must not stretch when the wall clock is set back.
    const now = performance.now();
    if (now >= this.nextGenerationCheck) {
      this.nextGenerationCheck = now + GENERATION_CHECK_MS;
      // lmdb-js reads from the snapshot this turn began with: a commit by the CLI since is not in it.
      this.store.root.resetReadTxn();
      const generation = this.store.directory.get(GENERATION) ?? 0;
      if (generation !== this.generation) {
        this.generation = generation;
        this.verified.clear();
      }
    }
    const trusted = this.verified.get(presented);
    if (trusted) return trusted;
    const parsed = parseKey(presented);
    if (!parsed) return undefined;
    let record = this.store.apiKeys.get(parsed.id);
    if (!record) {
      // lmdb-js keeps one read snapshot per event-loop turn, so a key another process (the CLI)
      // committed during this turn is not in it: a key created and used at once was refused 401.
      // Only an unknown key pays for the fresh snapshot.
      this.store.root.resetReadTxn();
      record = this.store.apiKeys.get(parsed.id);
    }
    if (!record || record.revoked_at) return undefined;
    if (!secretMatches(parsed.secret, record.secret_sha256)) return undefined;
    const account = this.account(record.account);
    if (account) {
      if (this.verified.size >= VERIFIED_KEYS_MAX) this.verified.clear();
      this.verified.set(presented, account);
    }
    return account;
  }

  /** Inside a write transaction: tells every process that verified keys may have changed. */
  private raiseGeneration(): void {
    this.store.directory.put(GENERATION, (this.store.directory.get(GENERATION) ?? 0) + 1);
  }

  async createKey(accountName: string, tier?: Tier): Promise<CreatedKey> {
    const timestamp = this.now().toISOString();
    const { id, key, secretSha256 } = newKey();
    const record: ApiKeyRecord = { id, account: accountName, secret_sha256: secretSha256, created_at: timestamp, revoked_at: null };
    let accountCreated = false;
    await this.store.root.transaction(() => {
      const existing = this.store.accounts.get(accountName);
      if (!existing) {
        if (!tier) throw noAccountError(accountName);
        accountCreated = true;
        this.store.accounts.put(accountName, { name: accountName, tier, created_at: timestamp, updated_at: timestamp });
      } else if (tier && existing.tier !== tier) {
        throw accountExistsError(accountName, existing.tier, tier);
      }
      this.store.apiKeys.put(id, record);
    });
    return { key, record, accountCreated };
  }

  async listKeys(accountName?: string): Promise<ApiKeyRecord[]> {
    const keys: ApiKeyRecord[] = [];
    for (const { value } of this.store.apiKeys.getRange()) {
      if (!accountName || value.account === accountName) keys.push(value);
    }
    return keys.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  async revokeKey(idOrKey: string): Promise<ApiKeyRecord | undefined> {
    const id = keyIdOf(idOrKey);
    let revoked: ApiKeyRecord | undefined;
    await this.store.root.transaction(() => {
      const record = this.store.apiKeys.get(id);
      if (!record) return;
      revoked = { ...record, revoked_at: record.revoked_at ?? this.now().toISOString() };
      this.store.apiKeys.put(id, revoked);
      this.raiseGeneration();
    });
    this.verified.clear();
    return revoked;
  }

  async setTier(accountName: string, tier: Tier): Promise<AccountRecord | undefined> {
    let updated: AccountRecord | undefined;
    await this.store.root.transaction(() => {
      const record = this.store.accounts.get(accountName);
      if (!record) return;
      updated = { ...record, tier, updated_at: this.now().toISOString() };
      this.store.accounts.put(accountName, updated);
      this.raiseGeneration();
    });
    this.verified.clear();
    return updated;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    return [...this.store.accounts.getRange()].map((entry) => entry.value);
  }
}
