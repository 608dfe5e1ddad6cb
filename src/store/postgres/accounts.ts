import type { Sql, TransactionSql } from 'postgres';
import { isTier, type Tier } from '../../tiers.js';
import { accountExistsError, keyIdOf, newKey, noAccountError, parseKey, secretMatches } from '../accounts.js';
import type { Account, AccountDirectory, AccountRecord, ApiKeyRecord, CreatedKey } from '../types.js';
import { LOCKS } from './migrations.js';

/** Channel on which every directory write announces itself (delivered at commit). */
export const DIRECTORY_CHANNEL = 'csr_directory';
/**
 * The replica also polls at this interval, so a lost notification (a LISTEN connection being
 * re-established) still reaches it well within the one-second promise.
 */
export const DIRECTORY_POLL_MS = 250;

interface KeyRow {
  id: string;
  account: string;
  secret_sha256: string;
  created_at: Date;
  revoked_at: Date | null;
  change_seq: string;
}

interface AccountRow {
  name: string;
  tier: string;
  created_at: Date;
  updated_at: Date;
  change_seq: string;
}

const keyRecord = (row: KeyRow): ApiKeyRecord => ({
  id: row.id,
  account: row.account,
  secret_sha256: row.secret_sha256,
  created_at: row.created_at.toISOString(),
  revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
});

const accountRecord = (row: AccountRow): AccountRecord => ({
  name: row.name,
  tier: row.tier,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/**
 * Accounts and keys in PostgreSQL. Authentication runs on every request before its body is read
 * and must stay synchronous, so each node keeps a replica of the directory in memory (key ids,
 * hashes, revocations, tiers: about 200 bytes a key) and answers from it. The replica follows the
 * table through `change_seq`: a NOTIFY at each commit wakes it at once, and a poll every 250 ms
 * covers a notification lost while the listening connection reconnects. A revocation or tier
 * change therefore reaches every node in milliseconds, and within 250 ms plus one query at worst.
 * Writes made through this object refresh its own replica before they return.
 */
export class PostgresAccountDirectory implements AccountDirectory {
  private readonly keys = new Map<string, { account: string; secretSha256: string; revoked: boolean }>();
  private readonly tiers = new Map<string, string>();
  private seenSeq = 0;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private following = false;

  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date = () => new Date(),
    private readonly onRefreshError: (error: unknown) => void = () => {},
  ) {}

  /** Loads the replica and keeps it current until `stop`. The CLI, which never authenticates, skips this. */
  async follow(): Promise<void> {
    await this.refresh();
    const listening = await this.sql.listen(
      DIRECTORY_CHANNEL,
      () => void this.refresh().catch(this.onRefreshError),
      () => void this.refresh().catch(this.onRefreshError),
    );
    this.unlisten = listening.unlisten;
    this.timer = setInterval(() => void this.refresh().catch(this.onRefreshError), DIRECTORY_POLL_MS);
    this.timer.unref();
    this.following = true;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.following = false;
    await this.unlisten?.().catch(() => {});
  }

  authenticate(presented: string): Account | undefined {
    if (!this.following) throw new Error('The PostgreSQL account directory authenticates only while it follows the database');
    const parsed = parseKey(presented);
    if (!parsed) return undefined;
    const key = this.keys.get(parsed.id);
    if (!key || key.revoked || !secretMatches(parsed.secret, key.secretSha256)) return undefined;
    const tier = this.tiers.get(key.account);
    return tier && isTier(tier) ? { name: key.account, tier } : undefined;
  }

  /** Brings the replica up to the newest committed change; concurrent calls share one query. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      try {
        do {
          this.refreshAgain = false;
          await this.applyChanges();
        } while (this.refreshAgain);
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  private async applyChanges(): Promise<void> {
    const since = this.seenSeq;
    // One snapshot for both tables, so a key never arrives before its account.
    const [accounts, keys] = await this.sql.begin('isolation level repeatable read read only', async (tx) => [
      await tx<AccountRow[]>`SELECT name, tier, created_at, updated_at, change_seq FROM accounts WHERE change_seq > ${since}`,
      await tx<KeyRow[]>`SELECT id, account, secret_sha256, created_at, revoked_at, change_seq FROM api_keys WHERE change_seq > ${since}`,
    ]);
    let newest = since;
    for (const row of accounts) {
      this.tiers.set(row.name, row.tier);
      newest = Math.max(newest, Number(row.change_seq));
    }
    for (const row of keys) {
      this.keys.set(row.id, { account: row.account, secretSha256: row.secret_sha256, revoked: row.revoked_at !== null });
      newest = Math.max(newest, Number(row.change_seq));
    }
    this.seenSeq = newest;
  }

  /** A directory write: serialised with every other, one change number for all its rows, announced at commit. */
  private async write<T>(work: (tx: TransactionSql, changeSeq: number) => Promise<T>): Promise<T> {
    const result = await this.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${LOCKS.directory})`;
      const [{ seq }] = await tx<{ seq: string }[]>`SELECT nextval('directory_change_seq') AS seq`;
      const value = await work(tx, Number(seq));
      await tx`SELECT pg_notify(${DIRECTORY_CHANNEL}, ${seq})`;
      return value;
    });
    if (this.following) await this.refresh();
    return result as T;
  }

  async createKey(accountName: string, tier?: Tier): Promise<CreatedKey> {
    const timestamp = this.now();
    const { id, key, secretSha256 } = newKey();
    return this.write(async (tx, seq) => {
      const [existing] = await tx<{ tier: string }[]>`SELECT tier FROM accounts WHERE name = ${accountName} FOR UPDATE`;
      let accountCreated = false;
      if (!existing) {
        if (!tier) throw noAccountError(accountName);
        await tx`INSERT INTO accounts (name, tier, created_at, updated_at, change_seq) VALUES (${accountName}, ${tier}, ${timestamp}, ${timestamp}, ${seq})`;
        accountCreated = true;
      } else if (tier && existing.tier !== tier) {
        throw accountExistsError(accountName, existing.tier, tier);
      }
      await tx`INSERT INTO api_keys (id, account, secret_sha256, created_at, revoked_at, change_seq) VALUES (${id}, ${accountName}, ${secretSha256}, ${timestamp}, NULL, ${seq})`;
      const record: ApiKeyRecord = { id, account: accountName, secret_sha256: secretSha256, created_at: timestamp.toISOString(), revoked_at: null };
      return { key, record, accountCreated };
    });
  }

  async listKeys(accountName?: string): Promise<ApiKeyRecord[]> {
    const rows = await this.sql<KeyRow[]>`
      SELECT id, account, secret_sha256, created_at, revoked_at, change_seq FROM api_keys
      ${accountName ? this.sql`WHERE account = ${accountName}` : this.sql``}
      ORDER BY created_at, id COLLATE "C"`;
    return rows.map(keyRecord);
  }

  async revokeKey(idOrKey: string): Promise<ApiKeyRecord | undefined> {
    const id = keyIdOf(idOrKey);
    const revokedAt = this.now();
    return this.write(async (tx, seq) => {
      const [row] = await tx<KeyRow[]>`
        UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${revokedAt}), change_seq = ${seq} WHERE id = ${id}
        RETURNING id, account, secret_sha256, created_at, revoked_at, change_seq`;
      return row ? keyRecord(row) : undefined;
    });
  }

  async setTier(accountName: string, tier: Tier): Promise<AccountRecord | undefined> {
    const updatedAt = this.now();
    return this.write(async (tx, seq) => {
      const [row] = await tx<AccountRow[]>`
        UPDATE accounts SET tier = ${tier}, updated_at = ${updatedAt}, change_seq = ${seq} WHERE name = ${accountName}
        RETURNING name, tier, created_at, updated_at, change_seq`;
      return row ? accountRecord(row) : undefined;
    });
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const rows = await this.sql<AccountRow[]>`SELECT name, tier, created_at, updated_at, change_seq FROM accounts ORDER BY name COLLATE "C"`;
    return rows.map(accountRecord);
  }
}
