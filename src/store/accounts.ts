import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isTier, type Tier } from '../tiers.js';
import type { AccountRecord, ApiKeyRecord, DataStore } from './database.js';

export interface Account {
  name: string;
  tier: Tier;
}

export interface CreatedKey {
  key: string;
  record: ApiKeyRecord;
  accountCreated: boolean;
}

/**
 * API keys look like `csr_<key id>_<secret>`: the id (64 bits, hex) names the stored record, the
 * secret (256 bits, base64url) is checked against its SHA-256. A fast hash is enough because the
 * secret is random and long; there is nothing to brute-force from a dictionary.
 */
const KEY_PATTERN = /^csr_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class AccountStore {
  constructor(private readonly store: DataStore, private readonly now: () => Date = () => new Date()) {}

  account(name: string): Account | undefined {
    const record = this.store.accounts.get(name);
    if (!record || !isTier(record.tier)) return undefined;
    return { name: record.name, tier: record.tier };
  }

  /** Resolves a presented key to its account, or undefined when it is malformed, unknown or revoked. */
  authenticate(presented: string): Account | undefined {
    const match = KEY_PATTERN.exec(presented);
    if (!match) return undefined;
    const record = this.store.apiKeys.get(match[1]);
    if (!record || record.revoked_at) return undefined;
    const expected = Buffer.from(record.secret_sha256, 'hex');
    const actual = Buffer.from(sha256(match[2]), 'hex');
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
    return this.account(record.account);
  }

  async createKey(accountName: string, tier?: Tier): Promise<CreatedKey> {
    const timestamp = this.now().toISOString();
    const id = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const record: ApiKeyRecord = { id, account: accountName, secret_sha256: sha256(secret), created_at: timestamp, revoked_at: null };
    let accountCreated = false;
    await this.store.root.transaction(() => {
      const existing = this.store.accounts.get(accountName);
      if (!existing) {
        if (!tier) throw new Error(`Account ${accountName} does not exist; give --tier to create it`);
        accountCreated = true;
        this.store.accounts.put(accountName, { name: accountName, tier, created_at: timestamp, updated_at: timestamp });
      } else if (tier && existing.tier !== tier) {
        throw new Error(`Account ${accountName} exists with tier ${existing.tier}; change it with: csr accounts set-tier ${accountName} ${tier}`);
      }
      this.store.apiKeys.put(id, record);
    });
    return { key: `csr_${id}_${secret}`, record, accountCreated };
  }

  listKeys(accountName?: string): ApiKeyRecord[] {
    const keys: ApiKeyRecord[] = [];
    for (const { value } of this.store.apiKeys.getRange()) {
      if (!accountName || value.account === accountName) keys.push(value);
    }
    return keys.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** Accepts the key id or the whole key. Returns the revoked record, or undefined when unknown. */
  async revokeKey(idOrKey: string): Promise<ApiKeyRecord | undefined> {
    const id = KEY_PATTERN.exec(idOrKey)?.[1] ?? idOrKey;
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

  listAccounts(): AccountRecord[] {
    return [...this.store.accounts.getRange()].map((entry) => entry.value);
  }
}
