import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { openStores } from '../../src/store/open.js';
import { encodeCursor } from '../../src/store/list-cursor.js';

/**
 * One account with a million stored analyses (issue 39: page 10,000 of a 1 M-analysis account,
 * and another account's lists while 12 of its lists run). Seeded in one statement on PostgreSQL
 * only (`npm run bench:cluster`), about half a minute; the LMDB run leaves these scenarios out.
 * Analysis i (0 = newest) was made i seconds before LARGE_ACCOUNT_NEWEST, so the cursor of any
 * page is known without asking the service.
 */
export const LARGE_ACCOUNT = 'bench-large';
export const LARGE_ACCOUNT_ANALYSES = 1_000_000;
const LARGE_ACCOUNT_NEWEST = Date.parse('2026-11-01T00:00:00.000Z');

const idOf = (i: number) => `GAP-2026-11-01-${String(i).padStart(10, '0')}`;

/** The cursor a client holds after reading page `page - 1` of `perPage`: the position of its last analysis. */
export function largeAccountCursor(page: number, perPage: number): string {
  const last = (page - 1) * perPage - 1;
  return encodeCursor({ created_at: new Date(LARGE_ACCOUNT_NEWEST - last * 1000).toISOString(), id: idOf(last) });
}

/**
 * Seeds the account's analyses (unless already there) and makes `keys` Enterprise keys for it,
 * written one a line to a file beside the bench's own (for loads run in a child process).
 */
export async function seedLargeAccount(databaseUrl: string, dataDir: string, keys = 8): Promise<{ keys: string[]; keysFile: string }> {
  const stores = await openStores({ dataDir, databaseUrl, timeoutMs: 600_000 });
  const made: string[] = [];
  try {
    for (let i = 0; i < keys; i++) made.push((await stores.accounts.createKey(LARGE_ACCOUNT, i === 0 ? 'enterprise' : undefined)).key);
  } finally {
    await stores.close();
  }
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connection: { statement_timeout: '0' } as Record<string, string> });
  try {
    const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::integer AS n FROM analyses WHERE account = ${LARGE_ACCOUNT}`;
    if (n === 0)
      await sql`
        INSERT INTO analyses (id, account, created_at, expires_at, frameworks, posture_status, posture_score, critical_gaps, high_gaps, status, payload)
        SELECT 'GAP-2026-11-01-' || lpad(i::text, 10, '0'), ${LARGE_ACCOUNT}, ${new Date(LARGE_ACCOUNT_NEWEST)}::timestamptz - i * interval '1 second',
               now() + interval '365 days', ARRAY['HIPAA', 'SOC2'], 'at_risk', 50 + i % 50, i % 3, i % 7, 'completed', '\\x00'::bytea
        FROM generate_series(0, ${LARGE_ACCOUNT_ANALYSES - 1}) AS i`;
    await sql`ANALYZE analyses`;
  } finally {
    await sql.end();
  }
  const keysFile = join(dataDir, 'bench-large-keys.txt');
  writeFileSync(keysFile, `${made.join('\n')}\n`);
  return { keys: made, keysFile };
}
