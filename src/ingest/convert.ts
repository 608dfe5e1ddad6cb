/**
 * Normalised results → findings (spec 2.6 plus `source`), through the registry: a rule resolves
 * by its tool's mappings (or those of the same condition under another id or tool), else by the
 * tool's own control claims, its vulnerability id, its CWE ids, a threat detection, the words of a
 * SAST rule id or the tool's category. One finding per rule, resource and signal; repeats fold into it.
 * docs/ingest.md has the rules (statuses, severities, duplicates, unmapped).
 */
import { createHash } from 'node:crypto';
import { SEVERITY_RANK, type FindingStatus } from '../core/vocabulary.js';
import type { ImportedFinding, ImportResult, ImportSummary, NormalisedResult, ReadOutcome, UnmappedRule } from './model.js';
import { resolveToolRule, type ToolRuleLookup } from './rule-resolution.js';
import { cweFromRuleWords, HARD_CODED_SECRET_CWE, threatSignals, vulnerabilitySignals, weaknessSignals } from './weakness-signals.js';

/** The registry reads conversion needs; src/registry's Registry provides them. */
export interface ConvertRegistry extends ToolRuleLookup {
  signal(id: string): unknown;
  tool(id: string): { category: string } | undefined;
  toolMappingIds(filter: { tool_id: string }): readonly string[];
  toolMapping(id: string): { rule_id: string; rule_name: string } | undefined;
  resolveArtifactType(provider: string, resourceType: string): { id: string } | undefined;
  signalIdsOfFramework(framework: string): readonly string[];
  mappingsOfSignal(signalId: string, framework?: string): ReadonlyArray<{ control_id: string; relationship: string }>;
}

export type ResolutionKind =
  | 'tool_mapping'
  | 'equivalent_rule'
  | 'rule_name'
  | 'tool_claims'
  | 'vulnerability_id'
  | 'cwe'
  | 'threat_detection'
  | 'rule_words'
  | 'tool_category';

interface Resolution {
  signals: readonly string[];
  via: ResolutionKind;
}

/** Categories of tools whose every finding is a hard-coded secret. */
const SECRET_TOOL_CATEGORIES = new Set(['secrets']);

/** Tools whose files name a rule by an id the registry does not list but by the same name as the rule it lists (Defender assessments and Azure Policy definitions). */
const RESOLVE_BY_NAME = new Set(['microsoft-defender-for-cloud']);

/**
 * NIST SP 800-53 claims land on the FedRAMP baseline's own signal of each control: the FedRAMP
 * signal (CSR-FEDRAMP-…) whose primary mapping is that control, as written (AC-6(9)) or, for an
 * enhancement without one, its base control (AC-6).
 */
const CLAIMS_FRAMEWORK = 'FEDRAMP';
const CLAIMS_SIGNAL_PREFIX = 'CSR-FEDRAMP-';

const STATUS_OF_OUTCOME: Record<Exclude<NormalisedResult['outcome'], 'other'>, FindingStatus> = { fail: 'open', pass: 'resolved', accepted: 'accepted' };
/** When results fold into one finding, the more adverse status stands. */
const STATUS_WEIGHT: Record<FindingStatus, number> = { open: 3, in_progress: 3, accepted: 2, resolved: 1, false_positive: 0 };

/** Spec limits of a finding's fields (src/schemas/gap.ts): longer values are cut, marked with an ellipsis. */
const ARTIFACT_ID_MAX = 1024;
const ARTIFACT_TYPE_MAX = 256;
const PROVIDER_MAX = 64;

function cut(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

class Resolver {
  private readonly byRule = new Map<string, Resolution | null>();
  private readonly knownSignals = new Map<string, boolean>();
  private readonly mappedTools = new Map<string, boolean>();
  private readonly namesByTool = new Map<string, Map<string, string>>();
  private claimsIndex: Map<string, string[]> | undefined;

  constructor(private readonly registry: ConvertRegistry) {}

  private exists(signal: string): boolean {
    let known = this.knownSignals.get(signal);
    if (known === undefined) this.knownSignals.set(signal, (known = this.registry.signal(signal) !== undefined));
    return known;
  }

  private hasMappings(tool: string): boolean {
    let mapped = this.mappedTools.get(tool);
    if (mapped === undefined) this.mappedTools.set(tool, (mapped = this.registry.toolMappingIds({ tool_id: tool }).length > 0));
    return mapped;
  }

  private found(signals: readonly string[], via: ResolutionKind): Resolution | null {
    const present = [...new Set(signals)].filter((signal) => this.exists(signal));
    return present.length ? { signals: present, via } : null;
  }

  /** A tool's rules by lower-cased name → rule id, built the first time a file needs it. */
  private ruleByName(tool: string, name: string): string | undefined {
    let names = this.namesByTool.get(tool);
    if (!names) {
      names = new Map();
      for (const id of this.registry.toolMappingIds({ tool_id: tool })) {
        const mapping = this.registry.toolMapping(id);
        if (mapping && !names.has(mapping.rule_name.toLowerCase())) names.set(mapping.rule_name.toLowerCase(), mapping.rule_id);
      }
      this.namesByTool.set(tool, names);
    }
    return names.get(name.trim().toLowerCase());
  }

  /** The FedRAMP signals of NIST SP 800-53 controls (see CLAIMS_FRAMEWORK). */
  private claimSignals(controls: readonly string[]): string[] {
    if (!this.claimsIndex) {
      this.claimsIndex = new Map();
      for (const id of this.registry.signalIdsOfFramework(CLAIMS_FRAMEWORK)) {
        if (!id.startsWith(CLAIMS_SIGNAL_PREFIX)) continue;
        for (const mapping of this.registry.mappingsOfSignal(id, CLAIMS_FRAMEWORK)) {
          if (mapping.relationship !== 'primary') continue;
          const list = this.claimsIndex.get(mapping.control_id) ?? [];
          if (!list.includes(id)) list.push(id);
          this.claimsIndex.set(mapping.control_id, list);
        }
      }
    }
    return controls.flatMap((control) => this.claimsIndex!.get(control) ?? this.claimsIndex!.get(control.replace(/\(\d+\)$/, '')) ?? []);
  }

  resolve(result: NormalisedResult): Resolution | null {
    const key = [
      result.tool,
      result.rule_id,
      (result.rule_alternates ?? []).join('\u0001'),
      result.cwe.join(','),
      (result.nist_controls ?? []).join(','),
      result.threat ? 't' : '',
      RESOLVE_BY_NAME.has(result.tool) ? result.rule_title : '',
    ].join('\u0000');
    let rule = this.byRule.get(key);
    if (rule === undefined) {
      rule = this.resolveRule(result);
      this.byRule.set(key, rule);
    }
    if (rule) return rule;
    // Vulnerability signals depend on each result's kind and severity, so they are not cached per rule.
    return result.cve ? this.found(vulnerabilitySignals(result.vulnerability_kind, result.severity), 'vulnerability_id') : null;
  }

  private resolveRule(result: NormalisedResult): Resolution | null {
    const resolved = resolveToolRule(this.registry, result.tool, result.rule_id, result.rule_alternates);
    if (resolved)
      return this.found(
        resolved.matches.map((m) => m.finding_template.signal_id),
        resolved.equivalent ? 'equivalent_rule' : 'tool_mapping',
      );
    if (RESOLVE_BY_NAME.has(result.tool) && result.rule_title) {
      const byName = this.ruleByName(result.tool, result.rule_title);
      const named = byName ? resolveToolRule(this.registry, result.tool, byName) : null;
      if (named)
        return this.found(
          named.matches.map((m) => m.finding_template.signal_id),
          'rule_name',
        );
    }
    if (result.nist_controls?.length) {
      const claimed = this.found(this.claimSignals(result.nist_controls), 'tool_claims');
      if (claimed) return claimed;
    }
    if (result.cve) return null;
    if (result.cwe.length) {
      const byCwe = this.found(weaknessSignals(result.cwe), 'cwe');
      if (byCwe) return byCwe;
    }
    if (result.threat) return this.found(threatSignals(), 'threat_detection');
    const category = this.registry.tool(result.tool)?.category;
    if (category && SECRET_TOOL_CATEGORIES.has(category)) return this.found(weaknessSignals([HARD_CODED_SECRET_CWE]), 'tool_category');
    // A mapped tool's rule ids are its own vocabulary, not descriptions: their words say nothing reliable.
    if (!this.hasMappings(result.tool)) {
      const cwe = cweFromRuleWords(result.rule_id);
      if (cwe) return this.found(weaknessSignals([cwe]), 'rule_words');
    }
    return null;
  }
}

function findingId(key: string): string {
  return `imp-${createHash('sha1').update(key).digest('hex').slice(0, 20)}`;
}

export function convertResults(registry: ConvertRegistry, read: ReadOutcome): ImportResult {
  const resolver = new Resolver(registry);
  const summary: ImportSummary = {
    results: read.results.length,
    findings: 0,
    failed: 0,
    passed: 0,
    accepted: 0,
    other: 0,
    other_statuses: {},
    unmapped: 0,
    unmapped_rules: 0,
    duplicates: 0,
    resolved_by: {},
  };
  let statusWords = 0;
  const findings = new Map<string, ImportedFinding>();
  const unmapped = new Map<string, UnmappedRule>();
  const artifactTypes = new Map<string, string | undefined>();

  for (const result of read.results) {
    if (result.outcome === 'fail') summary.failed++;
    else if (result.outcome === 'pass') summary.passed++;
    else if (result.outcome === 'accepted') summary.accepted++;
    else {
      summary.other++;
      // A file may hold any number of status words: the first few are named, the rest counted together.
      let word = result.raw_status;
      if (summary.other_statuses[word] === undefined && ++statusWords > OTHER_STATUSES_NAMED) word = OTHER_STATUS_WORDS;
      summary.other_statuses[word] = (summary.other_statuses[word] ?? 0) + 1;
    }

    const resolution = resolver.resolve(result);
    if (!resolution) {
      summary.unmapped++;
      const key = `${result.tool}\u0000${result.rule_id}`;
      let rule = unmapped.get(key);
      if (!rule) unmapped.set(key, (rule = { tool: result.tool, rule_id: result.rule_id, title: result.rule_title, results: 0, failed: 0 }));
      rule.results++;
      if (result.outcome === 'fail') rule.failed++;
      continue;
    }
    summary.resolved_by[resolution.via] = (summary.resolved_by[resolution.via] ?? 0) + 1;
    if (result.outcome === 'other') continue;

    const status = STATUS_OF_OUTCOME[result.outcome];
    let folded = 0;
    for (const signal of resolution.signals) {
      const key = `${result.tool}\u0000${result.rule_id}\u0000${result.resource}\u0000${signal}`;
      const existing = findings.get(key);
      if (existing) {
        folded++;
        fold(existing, result, status);
        continue;
      }
      const finding: ImportedFinding = {
        id: findingId(key),
        signal_id: signal,
        status,
        source: { tool: result.tool, rule_id: result.rule_id, rule_title: result.rule_title, resource: result.resource, raw_status: result.raw_status },
      };
      if (result.observed_at) finding.observed_at = result.observed_at;
      if (result.severity) finding.severity = severityOf(result);
      const artifact = artifactOf(registry, result, artifactTypes);
      if (artifact) finding.artifact = artifact;
      findings.set(key, finding);
    }
    if (folded === resolution.signals.length) summary.duplicates++;
  }
  summary.findings = findings.size;
  summary.unmapped_rules = unmapped.size;
  return {
    format: read.format,
    tool: read.tool,
    tool_version: read.tool_version,
    findings: [...findings.values()],
    unmapped: firstUnmappedRules(unmapped.values(), UNMAPPED_RULES_LISTED),
    summary,
  };
}

/** How many unrecognised rules an answer lists (most failures first); `summary.unmapped_rules` counts them all. */
export const UNMAPPED_RULES_LISTED = 100;
/** How many status words of results that make no finding `summary.other_statuses` names. */
export const OTHER_STATUSES_NAMED = 20;
/** The key under which the results of the status words past those are counted. */
export const OTHER_STATUS_WORDS = '(other status words)';

const collator = new Intl.Collator();

function unmappedOrder(a: UnmappedRule, b: UnmappedRule): number {
  return b.failed - a.failed || b.results - a.results || collator.compare(a.rule_id, b.rule_id);
}

/**
 * The first `limit` rules in answer order, without sorting them all: a file of a million distinct
 * unknown checks listed every one (a 73 MB answer) after a sort of a million.
 */
function firstUnmappedRules(rules: Iterable<UnmappedRule>, limit: number): UnmappedRule[] {
  const kept: UnmappedRule[] = [];
  for (const rule of rules) {
    if (kept.length === limit && unmappedOrder(rule, kept[limit - 1]) >= 0) continue;
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (unmappedOrder(kept[middle], rule) <= 0) low = middle + 1;
      else high = middle;
    }
    kept.splice(low, 0, rule);
    if (kept.length > limit) kept.pop();
  }
  return kept;
}

/** Another result of the same rule on the same resource: the adverse status, the higher severity and the later time stand. */
function fold(finding: ImportedFinding, result: NormalisedResult, status: FindingStatus): void {
  if (STATUS_WEIGHT[status] > STATUS_WEIGHT[finding.status]) {
    finding.status = status;
    finding.source.raw_status = result.raw_status;
  }
  if (result.severity && (!finding.severity || SEVERITY_RANK[result.severity] > SEVERITY_RANK[finding.severity.level])) {
    finding.severity = severityOf(result);
  }
  if (result.observed_at && (!finding.observed_at || result.observed_at > finding.observed_at)) finding.observed_at = result.observed_at;
}

function severityOf(result: NormalisedResult): ImportedFinding['severity'] {
  const level = result.severity!;
  return result.severity_score === null ? { level } : { level, score: Math.min(100, Math.max(0, result.severity_score)) };
}

function artifactOf(registry: ConvertRegistry, result: NormalisedResult, cache: Map<string, string | undefined>): ImportedFinding['artifact'] | undefined {
  const artifact: NonNullable<ImportedFinding['artifact']> = {};
  if (result.resource_type) {
    const key = `${result.provider ?? ''}\u0000${result.resource_type}`;
    if (!cache.has(key)) cache.set(key, result.provider ? registry.resolveArtifactType(result.provider, result.resource_type)?.id : undefined);
    artifact.type = cut(cache.get(key) ?? result.resource_type, ARTIFACT_TYPE_MAX);
  }
  if (result.resource) artifact.id = cut(result.resource, ARTIFACT_ID_MAX);
  if (result.provider) artifact.provider = cut(result.provider, PROVIDER_MAX);
  return Object.keys(artifact).length ? artifact : undefined;
}
