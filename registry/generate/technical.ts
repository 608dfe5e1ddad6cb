/**
 * Technical signals at the grain of one checkable condition: one signal (and one finding
 * template) per group of rules from conditions.ts. They carry no mappings: their controls come
 * through the security objectives they evidence (registry/sources/objectives). What the tools
 * themselves claim is kept beside them as evidence to weigh (ToolClaim), never as a mapping.
 */
import { GAP_FRAMEWORK_CODES, SEVERITIES } from '../../src/core/vocabulary.js';
import type { FindingTemplateSource, Severity, SignalCategory, SignalSource, ToolConfidence } from '../../src/schemas/registry-source.js';
import { groupRules } from './conditions.js';
import type { Facts } from './inputs.js';
import { TOOL_NAMES, TOOLS, type Claim, type Rule, type ToolId } from './rules.js';

/** Creation date of the 2.0.0 technical layer (fixed: regenerating must give the same bytes). */
export const TECHNICAL_DATE = '2026-11-23';
/** Technical signal sequence numbers start here; 001-120 belong to the 1.0.0 topic signals. */
const FIRST_SEQUENCE = 1001;

export interface ToolMappingRow {
  rule_id: string;
  rule_name: string;
  template: string;
  confidence: ToolConfidence;
}

/** One framework requirement a tool's own framework map names for a rule of a signal. */
export interface ToolClaim {
  signal_id: string;
  framework: string;
  control: string;
  tool: ToolId;
  /** The tool's framework map and version the claim is read from. */
  map: string;
  rules: string[];
}

export interface TechnicalLayer {
  signals: SignalSource[];
  claims: ToolClaim[];
  templates: FindingTemplateSource[];
  toolMappings: Map<ToolId, ToolMappingRow[]>;
  /** 1.0.0 signal id → the technical signals that took over its rules. */
  supersededBy: Map<string, string[]>;
  /** anchor rule key → signal id, every id ever allocated (ids are never reused). */
  ledger: Record<string, string>;
}

// ---- corrections of the 1.0.0 keyword misfires, used for the topic fallback ----

const TOPIC_CORRECTIONS: Array<{ test: (r: Rule) => boolean; topic: string; why: string }> = [
  {
    test: (r) => /alwaysadmit/i.test(r.title),
    topic: 'CSR-GEN-CONFIG-K8S-ADMISSION-PLUGINS-003',
    why: 'AlwaysAdmit is an admission plugin, not an authorization mode',
  },
  {
    test: (r) => r.tool === 'kube-bench' && /(permissions?|ownership)\b/i.test(r.title),
    topic: 'CSR-GEN-CONFIG-K8S-FILE-PERMS-007',
    why: 'file permission and ownership checks are host hardening, not TLS',
  },
  { test: (r) => r.tool === 'trivy' && r.id === 'KSV-0001', topic: 'CSR-GEN-CONFIG-K8S-PRIVILEGED-CONTAINER-012', why: 'privilege escalation in a container' },
  { test: (r) => r.tool === 'trivy' && ['KSV-0011', 'KSV-0018'].includes(r.id), topic: 'CSR-GEN-CONFIG-K8S-RESOURCE-LIMITS-018', why: 'resource limits' },
  { test: (r) => r.tool === 'trivy' && r.id === 'KSV-0014', topic: 'CSR-GEN-CONFIG-K8S-READONLY-ROOTFS-017', why: 'read-only root file system' },
  {
    test: (r) => r.tool === 'trivy' && ['KSV-0032', 'KSV-0033'].includes(r.id),
    topic: 'CSR-GEN-DEV-K8S-IMAGE-PROVENANCE-020',
    why: 'image registry provenance',
  },
  { test: (r) => r.tool === 'trivy' && r.id === 'KSV-0007', topic: 'CSR-GEN-CONFIG-K8S-HOST-NAMESPACE-014', why: 'host files managed by the pod' },
  {
    test: (r) => r.tool === 'trivy' && ['KSV-0026', 'KSV-0027', 'KSV-0028', 'KSV-0117', 'KSV-0121'].includes(r.id),
    topic: 'CSR-GEN-CONFIG-K8S-PRIVILEGED-CONTAINER-012',
    why: 'pod security restrictions',
  },
  {
    test: (r) => r.tool === 'checkov' && ['CKV_AWS_1', 'CKV_AWS_62', 'CKV_AWS_63', 'CKV_AWS_355'].includes(r.id),
    topic: 'CSR-GEN-ACCESS-ADMIN-PRIVILEGES-070',
    why: 'IAM policies granting full administrative or wildcard rights',
  },
];

// ---- naming ----

/** kube-bench marks a recommendation that does not apply to a managed platform's benchmark this way. */
const NOT_APPLICABLE = /\s*\(Not Applicable\)$/i;
const isNotApplicable = (r: Rule) => NOT_APPLICABLE.test(r.title);

/** Rules whose reference title is a cut description, not a condition: the condition in our words. */
const TITLE_OF_RULE: Record<string, string> = {
  'trivy|AWS-0178': 'VPC has flow logs enabled',
};

const PLATFORM_LABEL: Record<string, string> = {
  aws: 'AWS',
  azure: 'Azure',
  gcp: 'Google Cloud',
  oci: 'Oracle Cloud',
  alibaba: 'Alibaba Cloud',
  kubernetes: 'Kubernetes',
  m365: 'Microsoft 365',
  googleworkspace: 'Google Workspace',
  github: 'GitHub',
  dockerfile: 'Dockerfile',
  'source-code': 'Source code',
  openapi: 'OpenAPI',
  'github-actions': 'GitHub Actions',
  'gitlab-ci': 'GitLab CI',
  'azure-pipelines': 'Azure Pipelines',
  mongodbatlas: 'MongoDB Atlas',
  digitalocean: 'DigitalOcean',
  nifcloud: 'NIFCLOUD',
  ibm: 'IBM Cloud',
  oraclecloud: 'Oracle Cloud',
};
const platformLabel = (p: string) =>
  PLATFORM_LABEL[p] ??
  p
    .split('-')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');

const STOP = new Set(
  'ensure that the is are a an be should set to of for in on with and or not if it its by as all any only has have been use uses using from at when which this than more no'.split(
    ' ',
  ),
);

function nameOf(anchor: Rule): string {
  const words =
    anchor.tool === 'prowler'
      ? anchor.id.split('_')
      : anchor.title
          .toLowerCase()
          .split(/[^a-z0-9]+/)
          .filter((w) => w && !STOP.has(w));
  const tokens = words.map((w) => w.toUpperCase().replace(/[^A-Z0-9]/g, '')).filter(Boolean);
  const prefix = anchor.tool === 'kube-bench' ? ['K8S'] : [];
  const out = [...prefix, ...tokens].slice(0, 4);
  return out.length ? out.join('-') : 'CONDITION';
}

const CATEGORY_OF_TOOL_CATEGORY: Record<string, SignalCategory> = {
  encryption: 'CRYPTO',
  logging: 'AUDIT',
  'forensics-ready': 'AUDIT',
  'threat-detection': 'AUDIT',
  'internet-exposed': 'NET',
  networking: 'NET',
  trustboundaries: 'NET',
  'identity-access': 'IDENTITY',
  iam: 'IDENTITY',
  secrets: 'DATA',
  vulnerabilities: 'VULN',
  resilience: 'BCP',
  redundancy: 'BCP',
  backup_and_recovery: 'BCP',
  'software-supply-chain': 'DEV',
  supply_chain: 'DEV',
  'ci-cd': 'DEV',
  application_security: 'DEV',
  'privilege-escalation': 'ACCESS',
  'email-security': 'COMMS',
  'cluster-security': 'CONFIG',
  'container-security': 'CONFIG',
  general_security: 'CONFIG',
  kubernetes: 'CONFIG',
  convention: 'ASSET',
};

const PLATFORM_ARTIFACT: Record<string, string> = {
  kubernetes: 'endpoint.container.kubernetes_workload',
  dockerfile: 'application.code.dockerfile',
  'source-code': 'application.code.source_repository',
  github: 'application.code.source_repository',
  'github-actions': 'application.code.build_pipeline',
  'gitlab-ci': 'application.code.build_pipeline',
  'azure-pipelines': 'application.code.build_pipeline',
  m365: 'identity.directory.directory_tenant',
  googleworkspace: 'identity.directory.directory_tenant',
};

const SEVERITY_RANK = new Map<Severity, number>(SEVERITIES.map((s, i) => [s, i]));

/** Shortens text to max characters at a word boundary, marking the cut with "..." (plain typography, as the compiler reads it). */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 3);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max - 23)).replace(/[\s,;:.-]+$/, '')}...`;
}

/** Template category: the platform as a lower-case word ("google-cloud" style), letters first. */
function templateCategory(platform: string): string {
  const words = platform
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const category = words.join('-');
  return /^[a-z]+([_-][a-z0-9]+)*$/.test(category) ? category : `platform-${words.join('')}`.replace(/[^a-z0-9-]/g, '');
}

function sortRules(rules: Rule[]): Rule[] {
  const rank = (r: Rule) => TOOLS.indexOf(r.tool);
  return [...rules].sort((a, b) => rank(a) - rank(b) || Number(a.deprecated) - Number(b.deprecated) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

const ruleLabel = (r: Rule) => (r.tool === 'prowler' ? r.id : r.id);

// ---- the layer ----

interface Group {
  rules: Rule[];
  anchor: Rule;
  topic: SignalSource | undefined;
}

/** Authored reader text for a technical signal, keyed by its anchor rule (registry/generate/prose). */
export interface SignalProse {
  /** What the condition is and why it matters, for this kind of resource. */
  description: string;
  /** What to change on the resource so the condition holds. */
  remediation: string;
}

export function buildTechnicalLayer(
  facts: Facts,
  rules: Rule[],
  legacy: Map<string, SignalSource>,
  previousLedger: Record<string, string>,
  prose: Map<string, SignalProse> = new Map(),
): TechnicalLayer {
  const legacyOf = new Map<string, string>();
  for (const [tool, rule, signal] of facts.legacy.assignments) if (!legacyOf.has(`${tool}|${rule}`)) legacyOf.set(`${tool}|${rule}`, signal);
  const topicOf = (r: Rule): string | undefined => TOPIC_CORRECTIONS.find((c) => c.test(r))?.topic ?? legacyOf.get(`${r.tool}|${r.id}`);

  const groups: Group[] = [];
  for (const members of groupRules(rules, facts)) {
    const sorted = sortRules(members);
    const votes = new Map<string, number>();
    for (const r of sorted) {
      const t = topicOf(r);
      if (t) votes.set(t, (votes.get(t) ?? 0) + 1);
    }
    const topicId = [...votes.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
    const hasClaims = sorted.some((r) => r.claims.length);
    // A group with neither a tool claim nor a 1.0.0 topic was never given a signal, and gets none now;
    // one whose anchor already has an id keeps it (served ids never disappear).
    if (!hasClaims && !topicId && !previousLedger[sorted[0].key]) continue;
    groups.push({ rules: sorted, anchor: sorted[0], topic: topicId ? legacy.get(topicId) : undefined });
  }
  groups.sort((a, b) => (a.anchor.key < b.anchor.key ? -1 : 1));

  // Ids: kept from the ledger, new anchors get the next free sequence number.
  const ledger: Record<string, string> = { ...previousLedger };
  let next = Math.max(FIRST_SEQUENCE - 1, ...Object.values(ledger).map((id) => Number(/-(\d+)$/.exec(id)![1]))) + 1;
  const idOf = (g: Group, category: SignalCategory) => {
    const known = ledger[g.anchor.key];
    if (known) return known;
    const id = `CSR-GEN-${category}-${nameOf(g.anchor)}-${next++}`;
    ledger[g.anchor.key] = id;
    return id;
  };

  const signals: SignalSource[] = [];
  const claims: ToolClaim[] = [];
  const templates: FindingTemplateSource[] = [];
  const toolMappings = new Map<ToolId, ToolMappingRow[]>(TOOLS.map((t) => [t, []]));
  const successors = new Map<string, Set<string>>();
  const titles = new Set<string>();
  const frameworkRank = new Map<string, number>(GAP_FRAMEWORK_CODES.map((f, i) => [f, i]));

  // A recommendation its benchmark marks not applicable keeps its signal id, superseded by the signal of
  // the same recommendation where it applies; its rule maps nowhere (a result of it is not a finding).
  const applicableGroup = new Map<string, Group>();
  for (const g of groups) for (const r of g.rules) if (!isNotApplicable(r)) applicableGroup.set(`${r.tool}|${r.categories.join(' ')}|${r.title}`, g);
  const applicableOf = (g: Group) =>
    g.rules.every(isNotApplicable)
      ? applicableGroup.get(`${g.anchor.tool}|${g.anchor.categories.join(' ')}|${g.anchor.title.replace(NOT_APPLICABLE, '')}`)
      : undefined;

  for (const g of groups) {
    const category = ((): SignalCategory => {
      const known = g.anchor && ledger[g.anchor.key];
      if (known) return /^CSR-GEN-([A-Z]+)-/.exec(known)![1] as SignalCategory;
      for (const r of g.rules) for (const c of r.categories) if (CATEGORY_OF_TOOL_CATEGORY[c]) return CATEGORY_OF_TOOL_CATEGORY[c];
      return g.topic?.category ?? 'CONFIG';
    })();
    const id = idOf(g, category);
    const platform = platformLabel(g.anchor.platform);
    const tools = [...new Set(g.rules.map((r) => r.tool))];
    const toolList = tools.map((t) => TOOL_NAMES[t]).join(', ');

    const applicable = applicableOf(g);
    const benchmark = g.anchor.id.split('/')[0];
    let title = applicable
      ? `${platform}: ${g.anchor.title.replace(NOT_APPLICABLE, '')} (not applicable in ${benchmark})`
      : `${platform}: ${(TITLE_OF_RULE[g.anchor.key] ?? g.anchor.title).replace(/\s+/g, ' ').trim()}`;
    // Titles must differ once case and punctuation are ignored (the report's duplicate check).
    const titleKey = (text: string) =>
      text
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, ' ')
        .trim();
    if (titles.has(titleKey(title))) title = `${title} (${g.anchor.id})`;
    titles.add(titleKey(title));

    const severities = g.rules.map((r) => r.severity).filter((s): s is Severity => !!s);
    const severity = severities.sort((a, b) => SEVERITY_RANK.get(a)! - SEVERITY_RANK.get(b)!)[0] ?? g.topic?.severity ?? 'medium';
    const examples = g.rules.slice(0, 3).map(ruleLabel);
    const artifactTypes = g.topic?.detection.artifact_types.slice(0, 3) ?? [
      g.anchor.tool === 'checkov' && !PLATFORM_ARTIFACT[g.anchor.platform]
        ? 'application.code.iac_template'
        : (PLATFORM_ARTIFACT[g.anchor.platform] ?? 'cloud.management.account'),
    ];

    claims.push(...toolClaims(id, g, frameworkRank));

    const successor = applicable && idOf(applicable, category);
    if (successor) successors.set(id, new Set([successor]));
    const written = successor ? undefined : prose.get(g.anchor.key);
    const description = written
      ? written.description
      : successor
        ? `The ${benchmark} benchmark marks this recommendation not applicable to its platform, so a result of ${g.anchor.id} is not a finding. Where the recommendation applies, ${successor} is the condition.`
        : `One checkable condition on ${platform} resources, as ${g.rules.length === 1 ? `the ${TOOL_NAMES[g.anchor.tool]} rule ${g.anchor.id} states it` : `${g.rules.length} rules of ${toolList} test it (for example ${examples.join(', ')})`}: "${g.anchor.title.trim()}". ` +
          `A failing result means the resource does not meet that condition.`;
    const remediation = written
      ? written.remediation
      : successor
        ? `Nothing to change for ${benchmark}; follow ${successor} on platforms where the recommendation applies.`
        : `Bring the affected ${platform} resource in line with the condition the rule checks ("${clip(g.anchor.title.trim(), 120)}"), in its infrastructure code as well as in the running configuration.`;
    const conditions = successor
      ? [`${TOOL_NAMES[g.anchor.tool]} ${g.anchor.id} is not applicable in ${benchmark}`]
      : sortRules(g.rules)
          .filter((r, i, all) => all.findIndex((x) => x.tool === r.tool) === i)
          .slice(0, 3)
          .map((r) => `${TOOL_NAMES[r.tool]} ${r.id} reports a failing result`);
    const tags = [...new Set([g.anchor.platform.replace(/[^a-z0-9-]/g, ''), ...tools, category.toLowerCase(), successor ? 'not-applicable' : 'technical'])]
      .filter(Boolean)
      .slice(0, 6);

    signals.push({
      id,
      category,
      title,
      description,
      severity,
      tags,
      version: '1.0.0',
      created: TECHNICAL_DATE,
      updated: TECHNICAL_DATE,
      effort: g.anchor.tool === 'kube-bench' ? 'medium' : 'low',
      detection: { artifact_types: artifactTypes, conditions },
      remediation_hint: remediation,
      mappings: [],
    });
    const templateId = `FT-${id.slice(4)}-001`;
    templates.push({
      id: templateId,
      signal_id: id,
      version: '1.0.0',
      status: successor ? 'DEPRECATED' : 'ACTIVE',
      title,
      description: `Raised for each resource on which a mapped rule (${examples.join(', ')}${g.rules.length > 3 ? ', …' : ''}) fails: "${g.anchor.title.trim()}" does not hold.`,
      severity,
      category: templateCategory(g.anchor.platform),
      applicable_artifacts: artifactTypes,
      detection: {
        method: g.anchor.tool === 'kube-bench' ? 'host_benchmark' : g.anchor.tool === 'checkov' ? 'iac_scan' : 'config_check',
        criteria: conditions,
      },
      remediation: {
        description: remediation,
        steps: [
          'Open the failing result and note the resource and setting it names.',
          `Change that setting so the condition holds, preferably in the template or code the resource is deployed from.`,
          `Re-run ${toolList} and confirm the rules of this template pass for the resource.`,
        ],
      },
    });
    for (const r of successor ? [] : g.rules) {
      if (toolMappings.get(r.tool)!.some((m) => m.rule_id === r.id && m.template === templateId)) continue;
      toolMappings.get(r.tool)!.push({ rule_id: r.id, rule_name: r.title, template: templateId, confidence: r.deprecated ? 'MEDIUM' : 'HIGH' });
      const previous = legacyOf.get(`${r.tool}|${r.id}`);
      if (previous) successors.set(previous, (successors.get(previous) ?? new Set()).add(id));
    }
  }
  for (const rows of toolMappings.values()) rows.sort((a, b) => (a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : a.template < b.template ? -1 : 1));
  signals.sort((a, b) => (a.id < b.id ? -1 : 1));
  templates.sort((a, b) => (a.id < b.id ? -1 : 1));
  const supersededBy = new Map([...successors.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => [k, [...v].sort()]));
  return { signals, claims, templates, toolMappings, supersededBy, ledger: Object.fromEntries(Object.entries(ledger).sort((a, b) => (a[0] < b[0] ? -1 : 1))) };
}

/** What the tools' own framework maps claim for a signal's rules, one row per (framework, control, tool). */
function toolClaims(signalId: string, g: Group, frameworkRank: Map<string, number>): ToolClaim[] {
  const rows = new Map<string, ToolClaim>();
  for (const r of g.rules) {
    for (const c of r.claims) {
      const key = `${c.framework}|${c.control}|${c.tool}`;
      const row = rows.get(key) ?? { signal_id: signalId, framework: c.framework, control: c.control, tool: c.tool, map: c.map, rules: [] };
      if (!row.rules.includes(r.id)) row.rules.push(r.id);
      rows.set(key, row);
    }
  }
  const rank = (f: string) => frameworkRank.get(f) ?? 99;
  return [...rows.values()].sort(
    (a, b) =>
      rank(a.framework) - rank(b.framework) || (a.control < b.control ? -1 : a.control > b.control ? 1 : 0) || TOOLS.indexOf(a.tool) - TOOLS.indexOf(b.tool),
  );
}

export type { Claim };
