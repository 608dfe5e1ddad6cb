/**
 * Semgrep JSON (`semgrep --json`): `results[]`, one per match, with `errors[]` beside them. The
 * rule's CWE ids come from its metadata (`cwe`: "CWE-89: Improper Neutralization…", a string or a
 * list); a `nosemgrep` match (`is_ignored`) is an accepted failure. Supply-chain results
 * (`extra.sca_info`) name their advisory in the metadata and are dependency vulnerabilities.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { cweIdsFrom, severityFromWord, vulnerabilityIdsIn } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('semgrep');

export function isSemgrep(doc: Json): boolean {
  if (!isObject(doc) || !Array.isArray(doc.results)) return false;
  const first = doc.results.find(isObject);
  return first
    ? typeof first.check_id === 'string' && isObject(first.extra)
    : Array.isArray(doc.errors) || isObject(doc.paths) || typeof doc.version === 'string';
}

/** Metadata values that name a vulnerability: the advisory id of a supply-chain rule. */
function advisoryIds(metadata: JsonObject): string[] {
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (!/vuln|cve|ghsa|advisory/i.test(key)) continue;
    if (Array.isArray(value)) values.push(...value);
    else values.push(value);
  }
  return vulnerabilityIdsIn(values);
}

export function readSemgrep(doc: Json): ReadOutcome {
  const root = shape.object(doc, '');
  const version = text(root.version);
  const results: NormalisedResult[] = shape.array(root.results, '/results').map((value, index) => {
    const pointer = at('/results', index);
    const item = shape.object(value, pointer);
    const extra = shape.object(item.extra, at(pointer, 'extra'));
    const metadata = isObject(extra.metadata) ? extra.metadata : {};
    const start = isObject(item.start) ? item.start : {};
    const file = text(item.path) ?? '';
    const ignored = extra.is_ignored === true;
    const cweValues = Array.isArray(metadata.cwe) ? metadata.cwe : [metadata.cwe];
    const supplyChain = isObject(extra.sca_info);
    const advisory = supplyChain ? advisoryIds(metadata)[0] : undefined;
    const dependency = supplyChain && isObject(extra.sca_info) && isObject(extra.sca_info.dependency_match) ? extra.sca_info.dependency_match : {};
    const found = isObject(dependency.found_dependency) ? dependency.found_dependency : {};
    const pkg = text(found.package) ? `${text(found.package)}${text(found.version) ? `@${text(found.version)}` : ''}` : '';
    return result({
      tool: 'semgrep',
      tool_version: version,
      rule_id: shape.string(item.check_id, at(pointer, 'check_id')),
      rule_title: (text(extra.message) ?? '').split('\n')[0].slice(0, 300),
      resource: [`${file}${typeof start.line === 'number' ? `:${start.line}` : ''}`, pkg].filter(Boolean).join(' '),
      raw_status: ignored ? 'FOUND (nosemgrep)' : 'FOUND',
      outcome: ignored ? 'accepted' : 'fail',
      severity: severityFromWord(extra.severity),
      cwe: cweIdsFrom(cweValues),
      cve: advisory ?? (supplyChain ? text(item.check_id) : null),
      vulnerability_kind: supplyChain ? 'dependency' : undefined,
      resource_type: supplyChain ? 'package' : 'file',
    });
  });
  return { format: 'semgrep', tool: 'semgrep', tool_version: version, results };
}
