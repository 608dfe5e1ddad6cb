/**
 * SARIF 2.1.0 from any tool: one result per SARIF result. The rule's CWE ids come from its tags,
 * its relationships to a CWE taxonomy, its properties, or the result's taxa; `security-severity`
 * (a CVSS-style score) gives the severity, else the SARIF level.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import type { Severity } from '../../core/vocabulary.js';
import { cweIdsFrom, numberFrom, severityFromCvss, severityFromWord, timestampFrom, vulnerabilityId, vulnerabilityIdsIn } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { toolIdOf } from '../tools.js';
import { result } from './common.js';

const shape = new Shape('sarif');

/** CWE references of a rule or result: tags, a `cwe` property, and relationships or taxa that point into a CWE taxonomy. */
function cwesOf(holder: JsonObject, taxonomyNames: Map<number, string>): string[] {
  const properties = isObject(holder.properties) ? holder.properties : {};
  const values: unknown[] = [];
  if (Array.isArray(properties.tags)) values.push(...properties.tags);
  if (Array.isArray(properties.cwe)) values.push(...properties.cwe);
  else values.push(properties.cwe);
  const references = [
    ...(Array.isArray(holder.relationships) ? holder.relationships.filter(isObject).map((r) => r.target) : []),
    ...(Array.isArray(holder.taxa) ? holder.taxa : []),
  ].filter(isObject);
  for (const reference of references) {
    const component = isObject(reference.toolComponent) ? reference.toolComponent : {};
    const name = text(component.name) ?? (typeof component.index === 'number' ? taxonomyNames.get(component.index) : undefined) ?? '';
    const id = text(reference.id);
    if (id && /cwe/i.test(name)) values.push(/^\d+$/.test(id) ? `CWE-${id}` : id);
    else if (id && /^cwe-?\d+$/i.test(id)) values.push(id);
  }
  return cweIdsFrom(values);
}

function securitySeverity(holder: JsonObject): number | null {
  return isObject(holder.properties) ? numberFrom(holder.properties['security-severity']) : null;
}

const SEVERITY_TAG = /^(critical|high|medium|moderate|low|negligible)$/i;

/**
 * The tool's own rating where it writes one beside SARIF's level: a `severity` property, a tag
 * that is a severity word (Trivy tags its rules HIGH, MEDIUM…), a CVSS score property (Snyk's
 * cvssv3_baseScore). The level (error, warning) is SARIF's triage hint, read last.
 */
function toolSeverity(holder: JsonObject): { level: Severity | null; score: number | null } {
  const properties = isObject(holder.properties) ? holder.properties : {};
  const word = severityFromWord(properties.severity);
  const tag = Array.isArray(properties.tags) ? properties.tags.find((t) => typeof t === 'string' && SEVERITY_TAG.test(t)) : undefined;
  const cvss = numberFrom(properties.cvssv3_baseScore) ?? numberFrom(properties.cvssScore) ?? numberFrom(properties.cvss);
  return { level: word ?? severityFromWord(tag) ?? (cvss === null ? null : severityFromCvss(cvss)), score: cvss };
}

/**
 * Vulnerability ids the result or its rule carries: in the rule id (Trivy and Grype write
 * `CVE-2018-14618`, `CVE-2018-14618/curl` or `CVE-2021-36159-apk-tools`), in tags, or in
 * properties that name advisories.
 */
function vulnerabilityIdsOf(ruleId: string, holders: JsonObject[]): string[] {
  const values: unknown[] = [ruleId];
  for (const holder of holders) {
    const properties = isObject(holder.properties) ? holder.properties : {};
    if (Array.isArray(properties.tags)) values.push(...properties.tags);
    for (const [key, value] of Object.entries(properties)) {
      if (!/cve|ghsa|vuln|advisor|osv/i.test(key)) continue;
      if (Array.isArray(value)) values.push(...value);
      else values.push(value);
    }
  }
  return vulnerabilityIdsIn(values);
}

/** Manifests and lock files of language package managers: a vulnerability found in one is a dependency's. */
const DEPENDENCY_FILE =
  /(^|\/)(package(-lock)?\.json|yarn\.lock|pnpm-lock\.yaml|npm-shrinkwrap\.json|pom\.xml|build\.gradle(\.kts)?|gradle\.lockfile|go\.(mod|sum)|requirements[^/]*\.txt|Pipfile(\.lock)?|poetry\.lock|Gemfile(\.lock)?|Cargo\.(toml|lock)|composer\.(json|lock)|packages\.lock\.json|[^/]+\.(csproj|jar|war|ear))$/i;

export function readSarif(doc: Json): ReadOutcome {
  const root = shape.object(doc, '');
  const runs = shape.array(root.runs, '/runs');
  const results: NormalisedResult[] = [];
  let firstTool = '';
  let firstVersion: string | null = null;
  runs.forEach((runValue, runIndex) => {
    const runPointer = at('/runs', runIndex);
    const run = shape.object(runValue, runPointer);
    const toolObject = shape.object(run.tool, at(runPointer, 'tool'));
    const driver = shape.object(toolObject.driver, at(at(runPointer, 'tool'), 'driver'));
    const toolName = shape.string(driver.name, at(at(at(runPointer, 'tool'), 'driver'), 'name'));
    const tool = toolIdOf(toolName);
    const version = text(driver.semanticVersion) ?? text(driver.version);
    firstTool ||= tool;
    firstVersion ??= version;
    const rules = [
      ...(Array.isArray(driver.rules) ? driver.rules : []),
      ...(Array.isArray(toolObject.extensions) ? toolObject.extensions.filter(isObject).flatMap((e) => (Array.isArray(e.rules) ? e.rules : [])) : []),
    ].filter(isObject);
    const rulesById = new Map(rules.map((rule) => [text(rule.id) ?? '', rule]));
    const taxonomyNames = new Map((Array.isArray(run.taxonomies) ? run.taxonomies : []).map((t, i) => [i, isObject(t) ? (text(t.name) ?? '') : ''] as const));
    const invocation = Array.isArray(run.invocations) && isObject(run.invocations[0]) ? run.invocations[0] : {};
    const observedAt = timestampFrom(invocation.endTimeUtc) ?? timestampFrom(invocation.startTimeUtc);

    shape.arrayOrEmpty(run.results, at(runPointer, 'results')).forEach((value, index) => {
      const pointer = at(at(runPointer, 'results'), index);
      const item = shape.object(value, pointer);
      const ruleRef = isObject(item.rule) ? item.rule : {};
      const message = isObject(item.message) ? (text(item.message.text) ?? '') : '';
      const ruleIndex = typeof item.ruleIndex === 'number' ? item.ruleIndex : typeof ruleRef.index === 'number' ? ruleRef.index : -1;
      let rule: JsonObject | undefined = rulesById.get(text(item.ruleId) ?? text(ruleRef.id) ?? '') ?? rules[ruleIndex];
      // Some tools (Gitleaks 7) leave the rule out of the result; their message starts with the rule's name.
      rule ??= rules.find((r) => {
        const name = text(r.name) ?? text(r.id);
        return !!name && message.startsWith(name);
      });
      const ruleId =
        text(item.ruleId) ??
        text(ruleRef.id) ??
        (rule && text(rule.id)) ??
        shape.fail(at(pointer, 'ruleId'), 'must name a rule (ruleId, rule.id or ruleIndex)');
      const kind = text(item.kind) ?? 'fail';
      const suppressed = Array.isArray(item.suppressions) && item.suppressions.length > 0;
      let outcome: NormalisedResult['outcome'] = kind === 'fail' ? 'fail' : kind === 'pass' ? 'pass' : 'other';
      if (suppressed) outcome = outcome === 'fail' ? 'accepted' : 'other';
      const defaultLevel = rule && isObject(rule.defaultConfiguration) ? text(rule.defaultConfiguration.level) : null;
      const level = text(item.level) ?? defaultLevel ?? 'warning';
      const score = securitySeverity(item) ?? (rule ? securitySeverity(rule) : null);
      const own = toolSeverity(item).level ? toolSeverity(item) : rule ? toolSeverity(rule) : { level: null, score: null };
      const vulnerabilities = vulnerabilityIdsOf(ruleId, rule ? [rule, item] : [item]);
      const location = Array.isArray(item.locations) && isObject(item.locations[0]) ? item.locations[0] : {};
      const physical = isObject(location.physicalLocation) ? location.physicalLocation : {};
      const artifact = isObject(physical.artifactLocation) ? physical.artifactLocation : {};
      const region = isObject(physical.region) ? physical.region : {};
      const logical = Array.isArray(location.logicalLocations) && isObject(location.logicalLocations[0]) ? location.logicalLocations[0] : {};
      const uri = text(artifact.uri);
      const resource = uri
        ? `${uri}${typeof region.startLine === 'number' ? `:${region.startLine}` : ''}`
        : (text(logical.fullyQualifiedName) ?? text(logical.name) ?? '');
      const shortDescription = rule && isObject(rule.shortDescription) ? text(rule.shortDescription.text) : null;
      results.push(
        result({
          tool,
          tool_version: version,
          rule_id: ruleId,
          rule_title: (rule && text(rule.name) !== ruleId ? text(rule.name) : null) ?? shortDescription ?? message.split('\n')[0],
          resource,
          raw_status: suppressed ? `${kind} (suppressed)` : kind,
          outcome,
          severity: score !== null ? severityFromCvss(score) : (own.level ?? severityFromWord(level)),
          severity_score: score !== null ? Math.round(score * 100) / 10 : own.score === null ? null : Math.round(own.score * 100) / 10,
          observed_at: observedAt,
          cwe: [...new Set([...(rule ? cwesOf(rule, taxonomyNames) : []), ...cwesOf(item, taxonomyNames)])],
          cve: vulnerabilityId(ruleId) ?? vulnerabilities[0] ?? null,
          vulnerability_kind: vulnerabilities.length ? (DEPENDENCY_FILE.test(text(artifact.uri) ?? '') ? 'dependency' : undefined) : undefined,
        }),
      );
    });
  });
  return { format: 'sarif', tool: firstTool || 'unknown', tool_version: firstVersion, results };
}
