/**
 * Maintainer command `csr registry facts --from <reference dir>`: reads the scanner fact tables of
 * ../shared/reference/tools and writes the compact fact tables under registry/facts that the
 * generators read. Only facts are kept (ids, titles, severities, which rule claims which
 * requirement); no descriptions or remediation text. The build and the generators never read
 * the reference folder itself, so a fresh clone builds without it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkovName, looksCut } from './checkov-names.js';

interface SourceInfo {
  repo: string;
  commit: string;
  commit_date?: string;
  license?: string;
}

/** Prowler compliance files whose requirements canonicalise to one of our catalogs (see claims.ts). */
export const PROWLER_CLAIM_FRAMEWORK =
  /^(hipaa_|fedramp_(low|moderate)_revision_4_aws$|soc2_|iso27001_2022_|pci_4\.0_|gdpr_aws$|nist_csf_2\.0_aws$|nist_800_53_revision_5_aws$|cis_controls_8\.1$|cmmc_2\.0$|nist_800_171_revision_2_aws$)/;
/** Prowler CIS benchmark files used only to join Prowler checks with kube-bench and Trivy rules of the same benchmark. */
export const PROWLER_BENCHMARK_FRAMEWORK = /^cis_[0-9.]+_(aws|kubernetes)$/;
/** Requirement titles are kept only where the canonical id is read from the title. */
const TITLE_NEEDED = /^(hipaa_|soc2_)/;

/** The Azure Policy regulatory-compliance initiatives whose groups canonicalise to our catalogs. */
export const AZURE_INITIATIVES = [
  'CIS Controls v8.1',
  'CMMC 2.0 Level 2',
  'EU General Data Protection Regulation (GDPR) 2016/679',
  'HITRUST CSF v11.3',
  'HITRUST/HIPAA',
  'ISO/IEC 27001 2022',
  'NIST CSF v2.0',
  'NIST SP 800-53 Rev. 5',
  'PCI DSS v4.0.1',
  'SOC 2 Type 2',
] as const;

function readJson<T>(dir: string, name: string): T {
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as T;
}

const sourceOf = (s: SourceInfo): SourceInfo => ({ repo: s.repo, commit: s.commit, commit_date: s.commit_date, license: s.license });

/** One record per line: small diffs when a tool adds a rule, still plain JSON. */
export function factJson(value: Record<string, unknown>): string {
  const parts = Object.entries(value).map(([key, v]) => {
    if (Array.isArray(v)) return `${JSON.stringify(key)}: [\n${v.map((row) => `  ${JSON.stringify(row)}`).join(',\n')}\n]`;
    return `${JSON.stringify(key)}: ${JSON.stringify(v)}`;
  });
  return `{\n${parts.join(',\n')}\n}\n`;
}

const byKey = (a: unknown[], b: unknown[]) => {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

interface ProwlerCheck {
  check_id: string;
  provider: string;
  service: string;
  title: string;
  severity: string;
  resource_type: string;
  deprecated: boolean;
  categories: string[];
}
interface ProwlerCompliance {
  source: SourceInfo;
  frameworks: Array<{ framework_key: string; framework: string; version: string; provider: string }>;
  requirements: Array<{ framework_key: string; requirement_id: string; title?: string }>;
  mappings: Array<[string, string, string, string, boolean]>;
}
interface TrivyCheck {
  id: string;
  avd_id: string;
  long_id: string | null;
  aliases?: string[];
  title: string;
  provider: string;
  service: string | null;
  severity: string;
  deprecated: boolean;
}
interface TrivySpec {
  spec_id: string;
  version: string;
  controls: Array<{ id: string; checks: string[] }>;
}

export function extractFacts(referenceDir: string, factsDir: string): Record<string, number> {
  const tools = join(referenceDir, 'tools');
  mkdirSync(factsDir, { recursive: true });
  const counts: Record<string, number> = {};
  const write = (name: string, value: Record<string, unknown>) => writeFileSync(join(factsDir, name), factJson(value));

  // ---- Prowler checks and their compliance claims ----
  const checks = readJson<{ source: SourceInfo; checks: ProwlerCheck[] }>(tools, 'prowler_checks.json');
  const compliance = readJson<ProwlerCompliance>(tools, 'prowler_compliance.json');
  const keep = (fk: string) => PROWLER_CLAIM_FRAMEWORK.test(fk) || PROWLER_BENCHMARK_FRAMEWORK.test(fk);
  const checkRows = checks.checks
    .map((c) => [c.provider, c.check_id, c.service, c.resource_type, c.severity, c.deprecated ? 1 : 0, c.categories.join(' '), c.title])
    .sort(byKey);
  const claimRows = compliance.mappings
    .filter(([, , fk, , exists]) => keep(fk) && exists)
    .map(([check, provider, fk, requirement]) => [provider, check, fk, requirement])
    .sort(byKey);
  const legacyRows = compliance.mappings
    .filter(([, , fk, , exists]) => keep(fk) && !exists)
    .map(([check, provider, fk, requirement]) => [provider, check, fk, requirement])
    .sort(byKey);
  write('prowler.json', {
    source: sourceOf(checks.source),
    columns: ['provider', 'check_id', 'service', 'resource_type', 'severity', 'deprecated', 'categories', 'title'],
    checks: checkRows,
  });
  write('prowler-claims.json', {
    source: sourceOf(compliance.source),
    frameworks: compliance.frameworks
      .filter((f) => keep(f.framework_key))
      .map((f) => [f.framework_key, f.framework, f.version, f.provider])
      .sort(byKey),
    requirement_titles: compliance.requirements
      .filter((r) => TITLE_NEEDED.test(r.framework_key) && r.title)
      .map((r) => [r.framework_key, r.requirement_id, r.title!.slice(0, 40)])
      .sort(byKey),
    columns: ['provider', 'check_id', 'framework_key', 'requirement_id'],
    claims: claimRows,
    /** Rows naming checks that no longer exist in Prowler: the input of the rename table. */
    claims_of_removed_checks: legacyRows,
  });
  counts.prowler_checks = checkRows.length;
  counts.prowler_claims = claimRows.length;

  // ---- Security Hub FSBP controls ----
  const fsbp = readJson<{
    source: SourceInfo;
    controls: Array<{ control_id: string; title: string; severity: string; service: string; prowler_checks?: string[] }>;
  }>(tools, 'aws_securityhub_fsbp.json');
  write('aws-security-hub.json', {
    source: sourceOf(fsbp.source),
    columns: ['control_id', 'severity', 'prowler_checks', 'title'],
    controls: fsbp.controls.map((c) => [c.control_id, c.severity, [...(c.prowler_checks ?? [])].sort(), c.title]).sort(byKey),
  });
  counts.securityhub_controls = fsbp.controls.length;

  // ---- Checkov ----
  const checkov = readJson<{
    source: SourceInfo;
    checks: Array<{ check_id: string; name: string; provider: string; categories: string[]; nist_800_53_r5: string[] }>;
  }>(tools, 'checkov_checks.json');
  // The reference cuts some names at a quote mark; checkov-names.ts holds the full names, and a
  // cut name it does not correct stops the extraction (a cut name would join unrelated checks).
  const checkovNames = new Map(checkov.checks.map((c) => [c.check_id, checkovName(c.check_id, c.name)]));
  const stillCut = [...checkovNames].filter(([, name]) => looksCut(name)).map(([id, name]) => `${id} '${name}'`);
  if (stillCut.length) throw new Error(`checkov_checks.json: names cut short, add them to CHECKOV_NAME_CORRECTIONS: ${stillCut.join(', ')}`);
  write('checkov.json', {
    source: sourceOf(checkov.source),
    columns: ['check_id', 'provider', 'categories', 'nist_800_53_r5', 'name'],
    checks: checkov.checks.map((c) => [c.check_id, c.provider, c.categories.join(' '), c.nist_800_53_r5 ?? [], checkovNames.get(c.check_id)!]).sort(byKey),
  });
  counts.checkov_checks = checkov.checks.length;

  // ---- Trivy ----
  const trivy = readJson<{ source: SourceInfo; checks: TrivyCheck[]; compliance_specs: TrivySpec[] }>(tools, 'trivy_checks.json');
  write('trivy.json', {
    source: sourceOf(trivy.source),
    columns: ['id', 'provider', 'service', 'severity', 'deprecated', 'aliases', 'title'],
    checks: trivy.checks
      .map((c) => [
        c.id,
        c.provider,
        c.service ?? '',
        c.severity,
        c.deprecated ? 1 : 0,
        [...new Set([c.avd_id, c.long_id, ...(c.aliases ?? [])].filter((a): a is string => !!a && a !== c.id))].sort(),
        c.title,
      ])
      .sort(byKey),
    spec_columns: ['spec_id', 'control_id', 'checks'],
    spec_controls: trivy.compliance_specs
      .flatMap((s) => s.controls.filter((c) => c.checks.length).map((c) => [s.spec_id, c.id, [...c.checks].sort()]))
      .sort(byKey),
  });
  counts.trivy_checks = trivy.checks.length;

  // ---- kube-bench ----
  const kubeBench = readJson<{ source: SourceInfo; checks: Array<{ benchmark: string; id: string; node_type: string; group: string; title: string }> }>(
    tools,
    'kube_bench_checks.json',
  );
  write('kube-bench.json', {
    source: sourceOf(kubeBench.source),
    columns: ['benchmark', 'id', 'node_type', 'group', 'title'],
    checks: kubeBench.checks.map((c) => [c.benchmark, c.id, c.node_type, c.group ?? '', c.title]).sort(byKey),
  });
  counts.kube_bench_checks = kubeBench.checks.length;

  // ---- Azure Policy (Microsoft Defender for Cloud) ----
  const azure = readJson<{
    source: SourceInfo;
    definitions: Array<{ policy_id: string; display_name: string; category: string; deprecated: boolean }>;
    initiatives: Array<{ initiative_id: string; display_name: string; version: string }>;
    initiative_mappings: Array<[string, string, string, boolean]>;
  }>(tools, 'azure_policy.json');
  const initiatives = AZURE_INITIATIVES.map((name) => {
    const found = azure.initiatives.find((i) => i.display_name === name);
    if (!found) throw new Error(`azure_policy.json has no initiative named '${name}'`);
    return found;
  });
  const initiativeIndex = new Map(initiatives.map((i, n) => [i.initiative_id, n]));
  // Policies of the Regulatory Compliance category are manual attestations ("Microsoft managed
  // control"), not checks of a resource: the registry maps none of them, so their claims are dropped.
  const checking = new Set(azure.definitions.filter((d) => d.category !== 'Regulatory Compliance' && !d.deprecated).map((d) => d.policy_id));
  write('azure-policy.json', {
    source: sourceOf(azure.source),
    columns: ['policy_id', 'category', 'deprecated', 'display_name'],
    definitions: azure.definitions.map((d) => [d.policy_id, d.category, d.deprecated ? 1 : 0, d.display_name]).sort(byKey),
    initiative_columns: ['initiative_id', 'display_name', 'version'],
    initiatives: initiatives.map((i) => [i.initiative_id, i.display_name, i.version]),
    claim_columns: ['policy_id', 'initiative (index above)', 'group_name'],
    claims: [
      ...new Set(
        azure.initiative_mappings
          .filter(([policy, id]) => initiativeIndex.has(id) && checking.has(policy))
          .map(([policy, id, group]) => JSON.stringify([policy, initiativeIndex.get(id), group])),
      ),
    ]
      .map((s) => JSON.parse(s) as unknown[])
      .sort(byKey),
  });
  counts.azure_definitions = azure.definitions.length;
  return counts;
}
