import { openStores, type StoreOptions } from '../../src/store/open.js';
import { expiryOf } from '../../src/store/analyses.js';
import type { PostureFacts } from '../../src/gap/posture-facts.js';

/**
 * One account whose scope holds 1,000 analyses of three frameworks, a night apart: what
 * GET /v1/posture/history answers when a team has scanned every night for three years (target
 * 50 ms, docs/posture.md). Seeded through the store, on LMDB or PostgreSQL alike, with small
 * payloads: the history reads posture records, never the results.
 */
export const SCOPE_ACCOUNT = 'bench-scope';
export const SCOPE = 'aws-prod';
export const SCOPE_ANALYSES = 1000;
const DAY = 86_400_000;
const FRAMEWORKS = ['HIPAA', 'SOC2', 'PCIDSS'];

function factsOf(n: number): PostureFacts {
  const score = 40 + ((n * 37) % 60);
  const point = {
    score,
    status: score >= 90 ? 'compliant' : score >= 60 ? 'at_risk' : 'non_compliant',
    coverage: 0.2,
    controls_assessed: 20,
    controls_total: 100,
  } as const;
  return {
    scope: SCOPE,
    overall: { score, status: point.status, coverage: 0.2 },
    frameworks: Object.fromEntries(FRAMEWORKS.map((code) => [code, point])),
    controls: Object.fromEntries(FRAMEWORKS.map((code) => [code, { compliant: ['c-1', 'c-2'], partially_compliant: [], non_compliant: ['c-3'] }])),
  };
}

/** Seeds the scope (once) and makes `keys` Enterprise keys for the account. */
export async function seedScopeHistory(options: Pick<StoreOptions, 'dataDir' | 'databaseUrl'>, keys = 8): Promise<{ keys: string[] }> {
  const stores = await openStores({ ...options, timeoutMs: 600_000 });
  try {
    const made: string[] = [];
    for (let i = 0; i < keys; i++) made.push((await stores.accounts.createKey(SCOPE_ACCOUNT, i === 0 ? 'enterprise' : undefined)).key);
    const now = new Date();
    const { total } = await stores.posture.history(SCOPE_ACCOUNT, SCOPE, { limit: 1 }, now);
    for (let n = total; n < SCOPE_ANALYSES; n++) {
      const createdAt = new Date(now.getTime() - (SCOPE_ANALYSES - n) * DAY + 60_000);
      const id = `GAP-${createdAt.toISOString().slice(0, 10)}-BENCH${String(n).padStart(5, '0')}`;
      const facts = factsOf(n);
      await stores.analyses.save(
        {
          id,
          account: SCOPE_ACCOUNT,
          created_at: createdAt.toISOString(),
          expires_at: expiryOf(createdAt, 3650).toISOString(),
          frameworks: FRAMEWORKS,
          posture_status: facts.overall.status,
          posture_score: facts.overall.score,
          critical_gaps: 0,
          high_gaps: 0,
          status: 'completed',
        },
        Buffer.from('{}'),
        undefined,
        { facts, events: () => [] },
      );
    }
    return { keys: made };
  } finally {
    await stores.close();
  }
}
