import { isTier, type Tier } from '../../tiers.js';
import { accountExistsError, keyIdOf, newKey, noAccountError, parseKey, secretMatches } from '../accounts.js';
import type { Account, AccountDirectory, AccountRecord, ApiKeyRecord, CreatedKey } from '../types.js';
import type { DataStore } from './database.js';

/**
 * Accounts and keys in the embedded LMDB. Every request reads the key record (a synchronous,
 * in-memory-mapped read of a few microseconds), so a revocation by the CLI applies at once.
 */
export class LmdbAccountDirectory implements AccountDirectory {
  constructor(private readonly store: DataStore, private readonly now: () => Date = () => new Date()) {}

  private account(name: string): Account | undefined {
    const record = this.store.accounts.get(name);
    if (!record || !isTier(record.tier)) return undefined;
    return { name: record.name, tier: record.tier };
  }

  authenticate(presented: string): Account | undefined {
    const parsed = parseKey(presented);
    if (!parsed) return undefined;
    const record = this.store.apiKeys.get(parsed.id);
    if (!record || record.revoked_at) return undefined;
    if (!secretMatches(parsed.secret, record.secret_sha256)) return undefined;
    return this.account(record.account);
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
    return updated;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    return [...this.store.accounts.getRange()].map((entry) => entry.value);
  }
}
