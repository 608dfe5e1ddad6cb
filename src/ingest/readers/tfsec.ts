/**
 * tfsec JSON (`tfsec --format json`): `{results: [...]}`, one result per check and resource. The
 * rule is tfsec's current id (AVD-AWS-0086 since 1.x; the long id aws-s3-block-public-acls in 0.4x–0.6x),
 * with the long id and the legacy code (AWS001) as alternates. tfsec's rules are Trivy's (its
 * checks moved into Trivy), so they resolve through Trivy's mappings (rule-resolution.ts).
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { severityFromWord } from '../normalise.js';
import { at, isObject, Shape, text, type Json } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('tfsec');

/** tfsec's result status: 0 failed, 1 passed, 2 ignored (1.x numbers); words in 0.x; `passed: true` before that. */
function outcomeOf(item: Record<string, Json>): { outcome: NormalisedResult['outcome']; raw: string } {
  const status = item.status;
  if (status === 1 || status === 'passed') return { outcome: 'pass', raw: 'passed' };
  if (status === 2 || status === 'ignored') return { outcome: 'accepted', raw: 'ignored' };
  if (item.passed === true) return { outcome: 'pass', raw: 'passed' };
  return { outcome: 'fail', raw: 'failed' };
}

export function isTfsec(doc: Json): boolean {
  if (!isObject(doc) || !('results' in doc)) return false;
  const results = doc.results;
  // An empty scan is `{"results": null}` or `{"results": []}` with nothing else (Semgrep adds errors and paths).
  if (results === null || (Array.isArray(results) && results.length === 0)) return Object.keys(doc).length === 1;
  if (!Array.isArray(results)) return false;
  const first = results.find(isObject);
  return !!first && typeof first.rule_id === 'string' && isObject(first.location) && !('check_id' in first);
}

export function readTfsec(doc: Json): ReadOutcome {
  const root = shape.object(doc, '');
  const results: NormalisedResult[] = shape.arrayOrEmpty(root.results, '/results').map((value, index) => {
    const pointer = at('/results', index);
    const item = shape.object(value, pointer);
    const ruleId = shape.string(item.rule_id, at(pointer, 'rule_id'));
    const location = isObject(item.location) ? item.location : {};
    const file = text(location.filename) ?? '';
    const line = typeof location.start_line === 'number' && location.start_line > 0 ? `:${location.start_line}` : '';
    const resource = text(item.resource);
    const alternates = [text(item.long_id), text(item.legacy_rule_id)].filter((id): id is string => !!id && id !== ruleId);
    const { outcome, raw } = outcomeOf(item);
    return result({
      tool: 'tfsec',
      tool_version: null,
      rule_id: ruleId,
      rule_title: text(item.rule_description) ?? text(item.description) ?? '',
      resource: [`${file}${line}`, resource].filter(Boolean).join(' ') || file,
      raw_status: raw,
      outcome,
      // tfsec 0.x wrote ERROR/WARNING/INFO; 1.x writes CRITICAL…LOW.
      severity: severityFromWord(item.severity),
      rule_alternates: alternates.length ? alternates : undefined,
      provider: text(item.rule_provider) ?? undefined,
      resource_type: resource?.split('.')[0] || undefined,
    });
  });
  return { format: 'tfsec', tool: 'tfsec', tool_version: null, results };
}
