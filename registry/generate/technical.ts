/**
 * Technical signals at the grain of one checkable condition: one signal (and one finding
 * template) per group of rules from conditions.ts, mapped to controls from what the tools
 * themselves claim (docs/registry.md, "Scanner-claimed mappings"). A group no tool claims a
 * requirement for keeps the controls of the 1.0.0 topic its rules were filed under, at a
 * capped confidence, and says so in its rationale.
 */
import { GAP_FRAMEWORK_CODES, SEVERITIES } from '../../src/core/vocabulary.js';
import { type FindingTemplateSource, type Severity, type SignalCategory, type SignalMappingSource, type SignalSource, type ToolConfidence } from '../../src/schemas/registry-source.js';
import { groupRules } from './conditions.js';
import type { Catalogs, Facts } from './inputs.js';
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

export interface TechnicalLayer {
  signals: SignalSource[];
  templates: FindingTemplateSource[];
  toolMappings: Map<ToolId, ToolMappingRow[]>;
  /** 1.0.0 signal id → the technical signals that took over its rules. */
  supersededBy: Map<string, string[]>;
  /** anchor rule key → signal id, every id ever allocated (ids are never reused). */
  ledger: Record<string, string>;
}

// ---- confidence of a scanner-claimed mapping (docs/registry.md keeps the same formula) ----

/**
 * For a signal S, framework F and control C: the tools that claim any requirement of F for a rule
 * of S each give share_t = (their rules of S that claim C) / (their rules of S that claim anything
 * in F). share = mean of share_t over those tools, agree = tools with share_t > 0.
 * confidence = min(0.95, 0.5 + 0.4 × share + 0.05 × (agree − 1)).
 */
export function claimConfidence(shares: number[]): number {
  const agree = shares.filter((s) => s > 0).length;
  const share = shares.reduce((a, b) => a + b, 0) / shares.length;
  return Math.min(0.95, Math.round((0.5 + 0.4 * share + 0.05 * Math.max(0, agree - 1)) * 100) / 100);
}

// ---- corrections of the 1.0.0 keyword misfires (issue 11), used for the topic fallback ----

const TOPIC_CORRECTIONS: Array<{ test: (r: Rule) => boolean; topic: string; why: string }> = [
  { test: (r) => /alwaysadmit/i.test(r.title), topic: 'CSR-GEN-CONFIG-K8S-ADMISSION-PLUGINS-003', why: 'AlwaysAdmit is an admission plugin, not an authorization mode' },
  { test: (r) => r.tool === 'kube-bench' && /(permissions?|ownership)\b/i.test(r.title), topic: 'CSR-GEN-CONFIG-K8S-FILE-PERMS-007', why: 'file permission and ownership checks are host hardening, not TLS' },
  { test: (r) => r.tool === 'trivy' && r.id === 'KSV-0001', topic: 'CSR-GEN-CONFIG-K8S-PRIVILEGED-CONTAINER-012', why: 'privilege escalation in a container' },
  { test: (r) => r.tool === 'trivy' && ['KSV-0011', 'KSV-0018'].includes(r.id), topic: 'CSR-GEN-CONFIG-K8S-RESOURCE-LIMITS-018', why: 'resource limits' },
  { test: (r) => r.tool === 'trivy' && r.id === 'KSV-0014', topic: 'CSR-GEN-CONFIG-K8S-READONLY-ROOTFS-017', why: 'read-only root file system' },
  { test: (r) => r.tool === 'trivy' && ['KSV-0032', 'KSV-0033'].includes(r.id), topic: 'CSR-GEN-DEV-K8S-IMAGE-PROVENANCE-020', why: 'image registry provenance' },
  { test: (r) => r.tool === 'trivy' && r.id === 'KSV-0007', topic: 'CSR-GEN-CONFIG-K8S-HOST-NAMESPACE-014', why: 'host files managed by the pod' },
  { test: (r) => r.tool === 'trivy' && ['KSV-0026', 'KSV-0027', 'KSV-0028', 'KSV-0117', 'KSV-0121'].includes(r.id), topic: 'CSR-GEN-CONFIG-K8S-PRIVILEGED-CONTAINER-012', why: 'pod security restrictions' },
  { test: (r) => r.tool === 'checkov' && ['CKV_AWS_1', 'CKV_AWS_62', 'CKV_AWS_63', 'CKV_AWS_355'].includes(r.id), topic: 'CSR-GEN-ACCESS-ADMIN-PRIVILEGES-070', why: 'IAM policies granting full administrative or wildcard rights' },
];

// ---- naming ----

const PLATFORM_LABEL: Record<string, string> = {
  aws: 'AWS', azure: 'Azure', gcp: 'Google Cloud', oci: 'Oracle Cloud', alibaba: 'Alibaba Cloud', kubernetes: 'Kubernetes',
  m365: 'Microsoft 365', googleworkspace: 'Google Workspace', github: 'GitHub', dockerfile: 'Dockerfile', 'source-code': 'Source code',
  openapi: 'OpenAPI', 'github-actions': 'GitHub Actions', 'gitlab-ci': 'GitLab CI', 'azure-pipelines': 'Azure Pipelines',
  mongodbatlas: 'MongoDB Atlas', digitalocean: 'DigitalOcean', nifcloud: 'NIFCLOUD', ibm: 'IBM Cloud', oraclecloud: 'Oracle Cloud',
};
const platformLabel = (p: string) => PLATFORM_LABEL[p] ?? p.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');

const STOP = new Set('ensure that the is are a an be should set to of for in on with and or not if it its by as all any only has have been use uses using from at when which this than more no'.split(' '));

function nameOf(anchor: Rule): string {
  const words = anchor.tool === 'prowler' ? anchor.id.split('_') : anchor.title.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w && !STOP.has(w));
  const tokens = words.map((w) => w.toUpperCase().replace(/[^A-Z0-9]/g, '')).filter(Boolean);
  const prefix = anchor.tool === 'kube-bench' ? ['K8S'] : [];
  const out = [...prefix, ...tokens].slice(0, 4);
  return out.length ? out.join('-') : 'CONDITION';
}

const CATEGORY_OF_TOOL_CATEGORY: Record<string, SignalCategory> = {
  encryption: 'CRYPTO', logging: 'AUDIT', 'forensics-ready': 'AUDIT', 'threat-detection': 'AUDIT', 'internet-exposed': 'NET',
  networking: 'NET', trustboundaries: 'NET', 'identity-access': 'IDENTITY', iam: 'IDENTITY', secrets: 'DATA', vulnerabilities: 'VULN',
  resilience: 'BCP', redundancy: 'BCP', backup_and_recovery: 'BCP', 'software-supply-chain': 'DEV', supply_chain: 'DEV',
  'ci-cd': 'DEV', application_security: 'DEV', 'privilege-escalation': 'ACCESS', 'email-security': 'COMMS',
  'cluster-security': 'CONFIG', 'container-security': 'CONFIG', general_security: 'CONFIG', kubernetes: 'CONFIG', convention: 'ASSET',
};

const PLATFORM_ARTIFACT: Record<string, string> = {
  kubernetes: 'endpoint.container.kubernetes_workload', dockerfile: 'application.code.dockerfile', 'source-code': 'application.code.source_repository',
  github: 'application.code.source_repository', 'github-actions': 'application.code.build_pipeline', 'gitlab-ci': 'application.code.build_pipeline',
  'azure-pipelines': 'application.code.build_pipeline', m365: 'identity.directory.directory_tenant', googleworkspace: 'identity.directory.directory_tenant',
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
  const words = platform.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
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

export function buildTechnicalLayer(facts: Facts, catalogs: Catalogs, rules: Rule[], legacy: Map<string, SignalSource>, previousLedger: Record<string, string>): TechnicalLayer {
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
    // A group with neither a tool claim nor a 1.0.0 topic has nothing to map to: its rules stay unmapped.
    if (!hasClaims && !topicId) continue;
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
  const templates: FindingTemplateSource[] = [];
  const toolMappings = new Map<ToolId, ToolMappingRow[]>(TOOLS.map((t) => [t, []]));
  const successors = new Map<string, Set<string>>();
  const titles = new Set<string>();
  const frameworkRank = new Map<string, number>(GAP_FRAMEWORK_CODES.map((f, i) => [f, i]));

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

    let title = `${platform}: ${clip(g.anchor.title.replace(/\s+/g, ' ').trim(), 100 - platform.length - 2)}`;
    // Titles must differ once case and punctuation are ignored (the report's duplicate check).
    const titleKey = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
    if (titles.has(titleKey(title))) title = `${clip(title, 100 - g.anchor.id.length - 3)} (${g.anchor.id})`;
    title = clip(title, 100);
    titles.add(titleKey(title));

    const severities = g.rules.map((r) => r.severity).filter((s): s is Severity => !!s);
    const severity = severities.sort((a, b) => SEVERITY_RANK.get(a)! - SEVERITY_RANK.get(b)!)[0] ?? g.topic?.severity ?? 'medium';
    const examples = g.rules.slice(0, 3).map(ruleLabel);
    const artifactTypes = g.topic?.detection.artifact_types.slice(0, 3) ?? [
      g.anchor.tool === 'checkov' && !PLATFORM_ARTIFACT[g.anchor.platform] ? 'application.code.iac_template' : PLATFORM_ARTIFACT[g.anchor.platform] ?? 'cloud.management.account',
    ];

    const mappings = claimMappings(g, catalogs, frameworkRank);
    // No tool claims a requirement: the compiler gives the signal its 1.0.0 topic's primary controls (derive.ts).
    const inherits = mappings.length ? undefined : g.topic?.id;

    const description =
      `One checkable condition on ${platform} resources, as ${g.rules.length === 1 ? `the ${TOOL_NAMES[g.anchor.tool]} rule ${g.anchor.id} states it` : `${g.rules.length} rules of ${toolList} test it (for example ${examples.join(', ')})`}: "${g.anchor.title.trim()}". ` +
      `A failing result means the resource does not meet that condition.`;
    const remediation = `Bring the affected ${platform} resource in line with the condition the rule checks ("${clip(g.anchor.title.trim(), 120)}"), in its infrastructure code as well as in the running configuration.`;
    const conditions = sortRules(g.rules)
      .filter((r, i, all) => all.findIndex((x) => x.tool === r.tool) === i)
      .slice(0, 3)
      .map((r) => `${TOOL_NAMES[r.tool]} ${r.id} reports a failing result`);
    const tags = [...new Set([g.anchor.platform.replace(/[^a-z0-9-]/g, ''), ...tools, category.toLowerCase(), 'technical'])].filter(Boolean).slice(0, 6);

    signals.push({
      id, category, title, description, severity, tags, version: '1.0.0', created: TECHNICAL_DATE, updated: TECHNICAL_DATE,
      effort: g.anchor.tool === 'kube-bench' ? 'medium' : 'low',
      detection: { artifact_types: artifactTypes, conditions },
      remediation_hint: remediation,
      ...(inherits ? { inherits_topic: inherits } : {}),
      mappings,
    });
    const templateId = `FT-${id.slice(4)}-001`;
    templates.push({
      id: templateId, signal_id: id, version: '1.0.0', status: 'ACTIVE', title,
      description: `Raised for each resource on which a mapped rule (${examples.join(', ')}${g.rules.length > 3 ? ', …' : ''}) fails: "${g.anchor.title.trim()}" does not hold.`,
      severity, category: templateCategory(g.anchor.platform), applicable_artifacts: artifactTypes,
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
    for (const r of g.rules) {
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
  return { signals, templates, toolMappings, supersededBy, ledger: Object.fromEntries(Object.entries(ledger).sort((a, b) => (a[0] < b[0] ? -1 : 1))) };
}

function claimMappings(g: Group, catalogs: Catalogs, frameworkRank: Map<string, number>): SignalMappingSource[] {
  // framework → tool → { scope: rules claiming anything in F, byControl: control → claiming rules }
  const table = new Map<string, Map<ToolId, { scope: Set<string>; byControl: Map<string, Rule[]>; maps: Set<string> }>>();
  for (const r of g.rules) {
    for (const c of r.claims) {
      const byTool = table.get(c.framework) ?? new Map();
      table.set(c.framework, byTool);
      const entry = byTool.get(c.tool) ?? { scope: new Set<string>(), byControl: new Map<string, Rule[]>(), maps: new Set<string>() };
      byTool.set(c.tool, entry);
      entry.scope.add(r.key);
      entry.maps.add(c.map);
      const list = entry.byControl.get(c.control) ?? [];
      if (!list.includes(r)) list.push(r);
      entry.byControl.set(c.control, list);
    }
  }
  const out: SignalMappingSource[] = [];
  for (const framework of [...table.keys()].sort((a, b) => (frameworkRank.get(a) ?? 99) - (frameworkRank.get(b) ?? 99))) {
    const byTool = table.get(framework)!;
    const controls = new Set<string>();
    for (const e of byTool.values()) for (const c of e.byControl.keys()) controls.add(c);
    for (const control of [...controls].sort()) {
      const perTool = [...byTool.entries()].map(([tool, e]) => ({ tool, claiming: e.byControl.get(control) ?? [], scope: e.scope.size, maps: [...e.maps].sort() }));
      const shares = perTool.map((t) => t.claiming.length / t.scope);
      const confidence = claimConfidence(shares);
      const share = shares.reduce((a, b) => a + b, 0) / shares.length;
      const agreeing = perTool.filter((t) => t.claiming.length).sort((a, b) => b.claiming.length / b.scope - a.claiming.length / a.scope || TOOLS.indexOf(a.tool) - TOOLS.indexOf(b.tool));
      const lead = agreeing[0];
      const dissent = perTool.filter((t) => !t.claiming.length).map((t) => TOOL_NAMES[t.tool]);
      const claimText = agreeing
        .map((t) => `${TOOL_NAMES[t.tool]} maps ${t.claiming.slice(0, 3).map((r) => r.id).join(', ')}${t.claiming.length > 3 ? ' and others' : ''} (${t.claiming.length} of its ${t.scope} rule${t.scope === 1 ? '' : 's'} here) to this requirement in ${t.maps.join('; ')}`)
        .join('; ');
      out.push({
        framework: framework as SignalMappingSource['framework'],
        control,
        relationship: share >= 0.75 ? 'primary' : share >= 0.5 ? 'supporting' : 'partial',
        confidence,
        rationale: `${claimText}.${dissent.length ? ` ${dissent.join(', ')} map${dissent.length === 1 ? 's' : ''} them to other ${framework} requirements only.` : ''}`,
        provenance: { kind: 'scanner_rule', source: lead.tool, rules: lead.claiming.map((r) => r.id).slice(0, 20), framework_version: lead.maps.join('; ') },
      });
    }
  }
  return out;
}

export type { Claim };
