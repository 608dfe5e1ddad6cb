/**
 * The scanner rules of every mapped tool, read from the fact tables, each with the framework
 * requirements its own tool claims for it (canonicalised to our controls).
 */
import type { Severity } from '../../src/schemas/registry-source.js';
import { azureGroup, checkovNist, prowlerRequirement, type ControlRef } from './canonical.js';
import type { Catalogs, Facts } from './inputs.js';
import { plainTypography } from '../lib/read-sources.js';

export const TOOLS = ['prowler', 'aws-security-hub', 'microsoft-defender-for-cloud', 'trivy', 'kube-bench', 'checkov'] as const;
export type ToolId = (typeof TOOLS)[number];

export const TOOL_NAMES: Record<ToolId, string> = {
  prowler: 'Prowler',
  'aws-security-hub': 'AWS Security Hub',
  'microsoft-defender-for-cloud': 'Azure Policy (Defender for Cloud)',
  trivy: 'Trivy',
  'kube-bench': 'kube-bench',
  checkov: 'Checkov',
};

/** A tool's claim that one of its rules evidences a framework requirement. */
export interface Claim extends ControlRef {
  tool: ToolId;
  /** The tool's name for the framework map, with its version (e.g. `hipaa_aws`, `PCI DSS v4.0.1 (initiative 1.0.0)`). */
  map: string;
}

export interface Rule {
  tool: ToolId;
  id: string;
  /** Union-find key: unique per rule (Prowler ids repeat across providers). */
  key: string;
  title: string;
  /** Platform the rule inspects: aws, azure, gcp, kubernetes, dockerfile, … */
  platform: string;
  severity: Severity | undefined;
  deprecated: boolean;
  /** Tool categories (Prowler categories, Checkov CheckCategories), lower case. */
  categories: string[];
  claims: Claim[];
}

const SEVERITY: Record<string, Severity> = {
  critical: 'critical',
  high: 'high',
  medium: 'medium',
  low: 'low',
  informational: 'info',
  info: 'info',
};

const PROWLER_PLATFORM: Record<string, string> = { oraclecloud: 'oci', alibabacloud: 'alibaba' };
const TRIVY_PLATFORM: Record<string, string> = { google: 'gcp', oracle: 'oci', docker: 'dockerfile' };
const CHECKOV_PLATFORM: Record<string, string> = { docker: 'dockerfile', secrets: 'source-code' };

/** Commit short form, for the provenance of a claim. */
const short = (commit: string) => commit.slice(0, 12);

export function readRules(facts: Facts, catalogs: Catalogs): Rule[] {
  const rules: Rule[] = [];

  // Prowler: claims from its compliance maps.
  const titles = new Map(facts.prowlerClaims.requirement_titles.map(([fk, rid, title]) => [`${fk}|${rid}`, title]));
  const claimsOf = new Map<string, Claim[]>();
  const prowlerCommit = short(facts.prowlerClaims.source.commit);
  for (const [provider, check, fk, requirement] of facts.prowlerClaims.claims) {
    const ref = prowlerRequirement(catalogs, fk, requirement, titles.get(`${fk}|${requirement}`) ?? '');
    if (!ref) continue;
    const key = `prowler|${provider}|${check}`;
    const list = claimsOf.get(key) ?? [];
    if (!list.some((c) => c.framework === ref.framework && c.control === ref.control)) list.push({ ...ref, tool: 'prowler', map: `${fk} @ ${prowlerCommit}` });
    claimsOf.set(key, list);
  }
  for (const [provider, check, , , severity, deprecated, categories, title] of facts.prowler.checks) {
    const key = `prowler|${provider}|${check}`;
    rules.push({
      tool: 'prowler',
      id: check,
      key,
      title: title.replace(/^\[DEPRECATED\]\s*/, ''),
      platform: PROWLER_PLATFORM[provider] ?? provider,
      severity: SEVERITY[severity],
      deprecated: deprecated === 1,
      categories: categories ? categories.split(' ') : [],
      claims: claimsOf.get(key) ?? [],
    });
  }

  // Security Hub: Prowler's copy of the FSBP standard carries no related requirements, only the checks behind each control.
  for (const [control, severity, , title] of facts.securityHub.controls) {
    rules.push({
      tool: 'aws-security-hub',
      id: control,
      key: `aws-security-hub|${control}`,
      title,
      platform: 'aws',
      severity: SEVERITY[severity],
      deprecated: false,
      categories: [],
      claims: [],
    });
  }

  // Azure Policy: claims from the regulatory-compliance initiatives.
  const azureClaims = new Map<string, Claim[]>();
  for (const [policy, index, group] of facts.azure.claims) {
    const [, name, version] = facts.azure.initiatives[index];
    const ref = azureGroup(catalogs, name, group);
    if (!ref) continue;
    const list = azureClaims.get(policy) ?? [];
    if (!list.some((c) => c.framework === ref.framework && c.control === ref.control))
      list.push({ ...ref, tool: 'microsoft-defender-for-cloud', map: `${name} ${version}` });
    azureClaims.set(policy, list);
  }
  for (const [policy, category, deprecated, name] of facts.azure.definitions) {
    // Regulatory Compliance policies are manual attestations, not checks of a resource.
    if (category === 'Regulatory Compliance' || deprecated === 1) continue;
    rules.push({
      tool: 'microsoft-defender-for-cloud',
      id: policy,
      key: `microsoft-defender-for-cloud|${policy}`,
      title: name,
      platform: 'azure',
      severity: undefined,
      deprecated: false,
      categories: [category.toLowerCase()],
      claims: azureClaims.get(policy) ?? [],
    });
  }

  for (const [id, provider, , severity, deprecated, , title] of facts.trivy.checks) {
    rules.push({
      tool: 'trivy',
      id,
      key: `trivy|${id}`,
      title,
      platform: TRIVY_PLATFORM[provider] ?? provider,
      severity: SEVERITY[severity.toLowerCase()],
      deprecated: deprecated === 1,
      categories: [],
      claims: [],
    });
  }

  for (const [benchmark, id, , group, title] of facts.kubeBench.checks) {
    const rule = `${benchmark}/${id}`;
    // The group (API Server, Scheduler, …) tells apart recommendations with one text for several components.
    rules.push({
      tool: 'kube-bench',
      id: rule,
      key: `kube-bench|${rule}`,
      title,
      platform: 'kubernetes',
      severity: undefined,
      deprecated: false,
      categories: [group.toLowerCase()],
      claims: [],
    });
  }

  const checkovCommit = short(facts.checkov.source.commit);
  for (const [id, provider, categories, nist, name] of facts.checkov.checks) {
    const claims: Claim[] = [];
    for (const control of nist) {
      const ref = checkovNist(catalogs, control);
      if (ref && !claims.some((c) => c.control === ref.control))
        claims.push({ ...ref, tool: 'checkov', map: `NIST SP 800-53 Rev 5 ids in the check @ ${checkovCommit}` });
    }
    rules.push({
      tool: 'checkov',
      id,
      key: `checkov|${id}`,
      title: name,
      platform: CHECKOV_PLATFORM[provider] ?? provider.replace(/_/g, '-'),
      severity: undefined,
      deprecated: false,
      categories: categories ? categories.toLowerCase().split(' ') : [],
      claims,
    });
  }
  // Titles are read as the compiler reads sources (plain quotes, dashes and dots), so lengths agree.
  for (const r of rules) r.title = plainTypography(r.title).replace(/\s+/g, ' ').trim();
  // kube-bench lists a few recommendations twice in one benchmark (once per node type): one rule each.
  const seen = new Set<string>();
  return rules.filter((r) => !seen.has(r.key) && !!seen.add(r.key));
}
