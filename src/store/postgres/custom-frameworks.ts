import type { JSONValue, Sql, TransactionSql } from 'postgres';
import type { CustomControl, CustomFrameworkSummary, CustomFrameworkVersion, StoredCustomFramework } from '../../custom-frameworks/model.js';
import { nextVersion } from '../custom-frameworks.js';
import type { CreateFrameworkOutcome, CustomFrameworkStore } from '../types.js';
import { LOCKS } from './migrations.js';

interface SummaryRow {
  account: string;
  code: string;
  name: string;
  version: string;
  description: string;
  revision: number;
  control_count: number;
  source_format: CustomFrameworkSummary['source_format'];
  created_at: Date;
  updated_at: Date;
  versions: CustomFrameworkVersion[];
}

const SUMMARY_COLUMNS = 'account, code, name, version, description, revision, control_count, source_format, created_at, updated_at, versions';

function summaryOf(row: SummaryRow): CustomFrameworkSummary {
  return {
    account: row.account,
    code: row.code,
    name: row.name,
    version: row.version,
    description: row.description,
    revision: row.revision,
    control_count: row.control_count,
    source_format: row.source_format,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    versions: row.versions,
  };
}

/**
 * Custom frameworks in PostgreSQL: one row per framework, its controls as jsonb beside the
 * columns listing reads. Writes take a transaction-scoped advisory lock on the account, so a
 * create's count check and insert cannot interleave with another node's.
 */
export class PostgresCustomFrameworkStore implements CustomFrameworkStore {
  constructor(private readonly sql: Sql) {}

  async list(account: string): Promise<CustomFrameworkSummary[]> {
    const rows = await this.sql<
      SummaryRow[]
    >`SELECT ${this.sql.unsafe(SUMMARY_COLUMNS)} FROM custom_frameworks WHERE account = ${account} ORDER BY code COLLATE "C"`;
    return rows.map(summaryOf);
  }

  async get(account: string, code: string): Promise<StoredCustomFramework | undefined> {
    const [row] = await this.sql<
      Array<SummaryRow & { controls: CustomControl[] }>
    >`SELECT ${this.sql.unsafe(SUMMARY_COLUMNS)}, controls FROM custom_frameworks WHERE account = ${account} AND code = ${code}`;
    return row && { ...summaryOf(row), controls: row.controls };
  }

  async create(framework: StoredCustomFramework, limit: number): Promise<CreateFrameworkOutcome> {
    return this.sql.begin(async (tx): Promise<CreateFrameworkOutcome> => {
      await lockAccount(tx, framework.account);
      const [{ count, taken }] = await tx<Array<{ count: number; taken: boolean }>>`
        SELECT count(*)::integer AS count, bool_or(code = ${framework.code}) AS taken FROM custom_frameworks WHERE account = ${framework.account}`;
      if (taken) return { created: false, reason: 'exists' };
      if (count >= limit) return { created: false, reason: 'limit', count };
      await tx`
        INSERT INTO custom_frameworks (account, code, name, version, description, revision, control_count, source_format, created_at, updated_at, versions, controls)
        VALUES (${framework.account}, ${framework.code}, ${framework.name}, ${framework.version}, ${framework.description}, ${framework.revision},
                ${framework.control_count}, ${framework.source_format}, ${new Date(framework.created_at)}, ${new Date(framework.updated_at)},
                ${tx.json(framework.versions as unknown as JSONValue)}, ${tx.json(framework.controls as unknown as JSONValue)})`;
      return { created: true };
    });
  }

  async replace(framework: StoredCustomFramework): Promise<StoredCustomFramework | undefined> {
    return this.sql.begin(async (tx) => {
      await lockAccount(tx, framework.account);
      const [row] = await tx<
        SummaryRow[]
      >`SELECT ${tx.unsafe(SUMMARY_COLUMNS)} FROM custom_frameworks WHERE account = ${framework.account} AND code = ${framework.code}`;
      if (!row) return undefined;
      const next = nextVersion(summaryOf(row), framework);
      await tx`
        UPDATE custom_frameworks SET name = ${next.name}, version = ${next.version}, description = ${next.description}, revision = ${next.revision},
               control_count = ${next.control_count}, source_format = ${next.source_format}, updated_at = ${new Date(next.updated_at)},
               versions = ${tx.json(next.versions as unknown as JSONValue)}, controls = ${tx.json(next.controls as unknown as JSONValue)}
        WHERE account = ${next.account} AND code = ${next.code}`;
      return next;
    });
  }

  async delete(account: string, code: string): Promise<CustomFrameworkSummary | undefined> {
    const [row] = await this.sql<
      SummaryRow[]
    >`DELETE FROM custom_frameworks WHERE account = ${account} AND code = ${code} RETURNING ${this.sql.unsafe(SUMMARY_COLUMNS)}`;
    return row && summaryOf(row);
  }
}

async function lockAccount(tx: TransactionSql, account: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${LOCKS.customFrameworks}::integer, hashtext(${account}))`;
}
