import { performance } from 'node:perf_hooks';
import { isTier, type Tier } from '../../tiers.js';
import { accountExistsError, keyIdOf, newKey, noAccountError, parseKey, secretMatches } from '../accounts.js';
import type { Account, AccountDirectory, AccountRecord, ApiKeyRecord, CreatedKey } from '../types.js';
import type { DataStore } from './database.js';

/**
 * How long a verified key is taken on trust. A request with such a key skips the secret's hash,
 * the key and account reads and their decoding (about 13 % of a cached registry read's time on
 * the HTTP thread, measured under wrk); a revocation or tier change by another process (the CLI)
 * is seen once the entry ages out, within the 1 s the docs promise.
 */
const VERIFIED_KEY_TTL_MS = 500;
/** Verified keys held at most; past it the table starts again (it refills with the keys in use). */
const VERIFIED_KEYS_MAX = 10_000;

/**
 * Accounts and keys in the embedded LMDB. A key is verified against its record (a synchronous,
 * memory-mapped read of a few microseconds) and then trusted for VERIFIED_KEY_TTL_MS, so a
 * revocation by the CLI applies within half a second; one made through this directory, at once.
 */
export class LmdbAccountDirectory implements AccountDirectory {
  private readonly verified = new Map<string, { account: Account; until: number }>();

  constructor(private readonly store: DataStore, private readonly now: () => Date = () => new Date()) {}

  private account(name: string): Account | undefined {
    const record = this.store.accounts.get(name);
    if (!record || !isTier(record.tier)) return undefined;
    return { name: record.name, tier: record.tier };
  }

  authenticate(presented: string): Account | undefined {
    // A monotonic clock: the trust window must not stretch when the wall clock is set back.
    const now = performance.now();
    const trusted = this.verified.get(presented);
    if (trusted && trusted.until > now) return trusted.account;
    const parsed = parseKey(presented);
    if (!parsed) return undefined;
    const record = this.store.apiKeys.get(parsed.id);
    if (!record || record.revoked_at) return undefined;
    if (!secretMatches(parsed.secret, record.secret_sha256)) return undefined;
    const account = this.account(record.account);
    if (account) {
      if (this.verified.size >= VERIFIED_KEYS_MAX) this.verified.clear();
      this.verified.set(presented, { account, until: now + VERIFIED_KEY_TTL_MS });
    }
    return account;
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
    });
    this.verified.clear();
    return updated;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    return [...this.store.accounts.getRange()].map((entry) => entry.value);
  }
}
