/**
 * A rule id as a scanner wrote it → the registry's tool mappings. The registry resolves the
 * regular spellings and its alias table (Registry.resolveToolRule: Trivy KSV001 / AVD-KSV-0001,
 * Security Hub per-standard ids, Azure definition paths, kube-bench benchmark/number, renamed
 * Prowler checks). What stays here are the spellings only scanner files produce: Prowler's
 * `prowler-` and `prowler-<provider>-` prefixes (ASFF GeneratorId, finding uids), Trivy's policy
 * namespaces (`builtin.aws.s3.aws0089`), kube-bench versions with a patch level (`1.6.0`), and the
 * alternates a reader found in the file (an AVDID beside the ID, a file's other benchmark versions).
 * Rules of the same condition under other ids or tools (Prowler 2 ids, renamed and split checks,
 * Security Hub's CIS 1.2.0 ids, tfsec and Kubescape) come from legacy-rules.ts.
 */
import type { ToolRuleMatch } from '../schemas/registry.js';
import { equivalentRules } from './legacy-rules.js';

export interface ToolRuleLookup {
  resolveToolRule(toolId: string, ruleId: string): { rule_id: string; mappings: ToolRuleMatch[] } | undefined;
}

export interface ResolvedRule {
  /** The registry's canonical id of the rule (tool:id of each successor, for an equivalent). */
  rule_id: string;
  matches: ToolRuleMatch[];
  /** Resolved through rules of the same condition under other ids or tools (legacy-rules.ts). */
  equivalent?: true;
}

/** Prowler check ids carry a `prowler-` (ASFF GeneratorId) or `prowler-<provider>-` prefix in some outputs. */
function prowlerForms(id: string): string[] {
  const bare = id.trim().replace(/^prowler-/i, '');
  const withoutProvider = bare.replace(
    /^(aws|azure|gcp|kubernetes|m365|microsoft365|github|oci|alibaba|googleworkspace|mongodbatlas|cloudflare|openstack)-/i,
    '',
  );
  return [bare, withoutProvider];
}

/** Trivy policy namespaces and queries (builtin.kubernetes.KSV001, data.builtin.aws.s3.aws0089.deny): the id is the segment with digits. */
function trivyForms(id: string): string[] {
  // A rule id has letters and at least three digits (aws0089, KSV001); a service name like s3 has not.
  const segment = id
    .trim()
    .split('.')
    .filter((part) => /^[a-z]{2,}-?\d{3,}$/i.test(part))
    .pop();
  return segment ? [segment] : [];
}

/** kube-bench versions with a patch level the benchmark names leave out: 1.6.0/1.1.1 → 1.6/1.1.1. */
function kubeBenchForms(id: string): string[] {
  const slash = id.lastIndexOf('/');
  if (slash < 0) return [];
  const version = id.slice(0, slash).trim();
  const shorter = version.replace(/(\.0)+$/, '');
  return shorter !== version && /^\d/.test(version) ? [`${shorter}/${id.slice(slash + 1).trim()}`] : [];
}

const FORMS: Record<string, (id: string) => string[]> = {
  prowler: prowlerForms,
  trivy: trivyForms,
  tfsec: trivyForms,
  'kube-bench': kubeBenchForms,
};

/** The spellings to hand the registry, the id as written first, without repeats. */
export function ruleIdCandidates(tool: string, ruleId: string, alternates: readonly string[] = []): string[] {
  const forms = FORMS[tool];
  const candidates = [ruleId, ...alternates].flatMap((id) => [id, ...(forms ? forms(id) : [])]);
  return [...new Set(candidates.filter((id) => id !== ''))];
}

/**
 * The first spelling of the rule that the registry resolves, with its finding templates; else
 * the rules of the same condition under other ids or tools (legacy-rules.ts), every one that
 * resolves; null when none does.
 */
export function resolveToolRule(registry: ToolRuleLookup, tool: string, ruleId: string, alternates: readonly string[] = []): ResolvedRule | null {
  for (const candidate of ruleIdCandidates(tool, ruleId, alternates)) {
    const resolved = registry.resolveToolRule(tool, candidate);
    if (resolved?.mappings.length) return { rule_id: resolved.rule_id, matches: resolved.mappings };
  }
  const matches: ToolRuleMatch[] = [];
  const successors: string[] = [];
  for (const id of [ruleId, ...alternates]) {
    for (const ref of equivalentRules(tool, id)) {
      for (const candidate of ruleIdCandidates(ref.tool, ref.rule_id)) {
        const resolved = registry.resolveToolRule(ref.tool, candidate);
        if (!resolved?.mappings.length) continue;
        const name = `${ref.tool}:${resolved.rule_id}`;
        if (!successors.includes(name)) {
          successors.push(name);
          matches.push(...resolved.mappings);
        }
        break;
      }
    }
    if (matches.length) break;
  }
  return matches.length ? { rule_id: successors.join(' '), matches, equivalent: true } : null;
}
