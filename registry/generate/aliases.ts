/**
 * Rule-id alias tables: the other spellings under which a scanner reports a rule that the
 * registry knows by one canonical id. Regular forms (Trivy `KSV001` / `AVD-KSV-0001`, Security
 * Hub per-standard ids, kube-bench benchmark prefixes) are normalised in code
 * (src/registry/rule-ids.ts); these tables hold the irregular ones the facts name:
 *
 * - Trivy: the AVD id and the tfsec-era long ids of each check (an alias two checks share is dropped);
 * - Prowler: checks that left Prowler under one name and came back under another, recognised when
 *   Prowler's own compliance maps still cite the old name for a requirement that the new check
 *   claims, and the two names share most of their words.
 */
import type { Facts } from './inputs.js';
import type { Rule } from './rules.js';

export interface AliasTable {
  tool_id: string;
  aliases: Array<{ alias: string; rule_id: string; basis: string }>;
}

/** Share of words two Prowler check ids must have in common to be read as one check renamed. */
const RENAME_SIMILARITY = 0.5;

const words = (id: string) => new Set(id.split('_'));
function similarity(a: string, b: string): number {
  const x = words(a);
  const y = words(b);
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / (x.size + y.size - shared);
}

export function aliasTables(facts: Facts, rules: Rule[]): AliasTable[] {
  // ---- Trivy ----
  const trivyTargets = new Map<string, Set<string>>();
  const ids = new Set(facts.trivy.checks.map((c) => c[0].toLowerCase()));
  for (const [id, , , , , aliases] of facts.trivy.checks) {
    for (const alias of aliases) {
      if (ids.has(alias.toLowerCase())) continue;
      trivyTargets.set(alias, (trivyTargets.get(alias) ?? new Set()).add(id));
    }
  }
  const trivy: AliasTable = {
    tool_id: 'trivy',
    aliases: [...trivyTargets.entries()]
      .filter(([, targets]) => targets.size === 1)
      .map(([alias, targets]) => ({ alias, rule_id: [...targets][0], basis: 'alias listed in the check metadata' }))
      .sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0)),
  };

  // ---- Prowler renames ----
  const current = new Map<string, Set<string>>(); // provider|fk|requirement → current checks
  for (const [provider, check, fk, requirement] of facts.prowlerClaims.claims) {
    const k = `${provider}|${fk}|${requirement}`;
    current.set(k, (current.get(k) ?? new Set()).add(check));
  }
  const existing = new Set(rules.filter((r) => r.tool === 'prowler').map((r) => r.id));
  const candidates = new Map<string, Map<string, string>>(); // removed → candidate → framework key seen
  for (const [provider, removed, fk, requirement] of facts.prowlerClaims.claims_of_removed_checks) {
    if (existing.has(removed)) continue;
    for (const check of current.get(`${provider}|${fk}|${requirement}`) ?? []) {
      const map = candidates.get(removed) ?? new Map<string, string>();
      if (!map.has(check)) map.set(check, fk);
      candidates.set(removed, map);
    }
  }
  const prowler: AliasTable = { tool_id: 'prowler', aliases: [] };
  for (const removed of [...candidates.keys()].sort()) {
    const ranked = [...candidates.get(removed)!.entries()]
      .map(([check, fk]) => ({ check, fk, score: similarity(removed, check) }))
      .filter((c) => c.score >= RENAME_SIMILARITY)
      .sort((a, b) => b.score - a.score || (a.check < b.check ? -1 : 1));
    // Two equally close successors: no single rename to record.
    if (!ranked.length || (ranked[1] && ranked[1].score === ranked[0].score)) continue;
    prowler.aliases.push({
      alias: removed,
      rule_id: ranked[0].check,
      basis: `renamed: ${ranked[0].fk} cites the old id for a requirement the new check claims`,
    });
  }
  return [prowler, trivy];
}
