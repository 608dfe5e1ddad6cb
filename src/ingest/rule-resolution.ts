/**
 * A rule id as a scanner wrote it → the registry's tool mappings. The registry keys each tool's
 * rules in one canonical spelling (prowler `s3_bucket_default_encryption`, trivy `KSV-0001`,
 * kube-bench `cis-1.6/1.1.1`, Security Hub `EC2.2`); scanners write the same rule in other forms.
 * This module holds the forms that follow a rule (prefixes, zero padding, ARN paths, benchmark
 * prefixes), not data: renamed checks and legacy control ids need an alias table, which belongs
 * in the registry's sources. `resolveToolRule` is the one entry point, so that a registry-side
 * resolver can take its place (docs/ingest.md, rule ids).
 */
import type { ToolRuleMatch } from '../schemas/registry.js';

export interface ToolRuleLookup {
  lookupToolRule(toolId: string, ruleId: string): ToolRuleMatch[];
}

export interface ResolvedRule {
  /** The spelling that matched the registry. */
  rule_id: string;
  matches: ToolRuleMatch[];
}

/** Trivy's ids: KSV001, KSV-0001, AVD-KSV-0001, aws0089 (policy namespace) → KSV-0001, AWS-0089. */
function trivyForms(id: string): string[] {
  const last = id.trim().split('.').pop()!.toUpperCase().replace(/^AVD-/, '');
  const match = /^([A-Z]+)-?0*(\d+)$/.exec(last);
  return match ? [`${match[1]}-${match[2].padStart(4, '0')}`] : [last];
}

/** Prowler check ids carry a `prowler-` (ASFF GeneratorId) or `prowler-<provider>-` prefix in some outputs. */
function prowlerForms(id: string): string[] {
  const bare = id.trim().replace(/^prowler-/i, '');
  const withoutProvider = bare.replace(/^(aws|azure|gcp|kubernetes|m365|microsoft365|github|oci|alibaba|googleworkspace|mongodbatlas|cloudflare|openstack)-/i, '');
  return [bare, withoutProvider];
}

/**
 * kube-bench rules are keyed `<benchmark>/<test>`: `cis-1.6/1.1.1`, `eks-1.0.1/3.1.1`. Files write
 * the version alone (1.6), sometimes with a patch level the benchmark ids leave out (1.6.0).
 */
function kubeBenchForms(id: string): string[] {
  const slash = id.lastIndexOf('/');
  if (slash < 0) return [id];
  const version = id.slice(0, slash).trim().toLowerCase();
  const test = id.slice(slash + 1).trim();
  const forms = [`${version}/${test}`];
  if (/^\d+(\.\d+)*$/.test(version)) {
    forms.push(`cis-${version}/${test}`);
    const shorter = version.replace(/(\.0)+$/, '');
    if (shorter !== version) forms.push(`cis-${shorter}/${test}`);
  }
  return forms;
}

/**
 * Security Hub control ids hide in ARNs and generator paths: `arn:…:control/aws-foundational-…/v/1.0.0/EC2.2`,
 * `aws-foundational-security-best-practices/v/1.0.0/EC2.2`, `security-control/EC2.2`. The control is the last segment.
 */
function securityHubForms(id: string): string[] {
  const trimmed = id.trim();
  const last = trimmed.split('/').pop()!;
  return [trimmed, last];
}

/** Azure Policy definitions are referred to by their full resource id or the GUID alone. */
function azurePolicyForms(id: string): string[] {
  return [id.trim().split('/').pop()!.toLowerCase()];
}

const FORMS: Record<string, (id: string) => string[]> = {
  trivy: trivyForms,
  tfsec: trivyForms,
  prowler: prowlerForms,
  'kube-bench': kubeBenchForms,
  'aws-security-hub': securityHubForms,
  'microsoft-defender-for-cloud': azurePolicyForms,
};

/** The spellings to try for a rule id, the id as written first, without repeats. */
export function ruleIdCandidates(tool: string, ruleId: string, alternates: readonly string[] = []): string[] {
  const forms = FORMS[tool];
  const candidates = [ruleId, ...alternates].flatMap((id) => [id, ...(forms ? forms(id) : [])]);
  return [...new Set(candidates.filter((id) => id !== ''))];
}

/** The first spelling of the rule that the registry maps, with its finding templates; null when none does. */
export function resolveToolRule(registry: ToolRuleLookup, tool: string, ruleId: string, alternates: readonly string[] = []): ResolvedRule | null {
  for (const candidate of ruleIdCandidates(tool, ruleId, alternates)) {
    const matches = registry.lookupToolRule(tool, candidate);
    if (matches.length) return { rule_id: candidate, matches };
  }
  return null;
}
