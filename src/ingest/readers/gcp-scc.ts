/**
 * Google Security Command Center findings: `gcloud scc findings list --format=json` (an array of
 * `{finding, resource}`), the ListFindings answer (`{listFindingsResults: […]}`), or an array of
 * bare findings. The rule is the finding's category (PUBLIC_BUCKET_ACL). State ACTIVE is a
 * failure, INACTIVE a resolved one; a muted active finding is accepted. Findings of class THREAT
 * are threat detections; a finding with `vulnerability.cve` is that vulnerability.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { numberFrom, severityFromCvss, severityFromWord, timestampFrom, vulnerabilityId } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('gcp-scc');

function listOf(doc: Json): { items: Json[]; pointer: string } | null {
  if (Array.isArray(doc)) return { items: doc, pointer: '' };
  if (isObject(doc) && Array.isArray(doc.listFindingsResults)) return { items: doc.listFindingsResults, pointer: '/listFindingsResults' };
  if (isObject(doc) && Array.isArray(doc.findings)) return { items: doc.findings, pointer: '/findings' };
  return null;
}

const findingOf = (item: JsonObject): JsonObject => (isObject(item.finding) ? item.finding : item);

function isSccFinding(finding: JsonObject): boolean {
  return (
    typeof finding.category === 'string' &&
    (typeof finding.findingClass === 'string' || /\/sources\/[^/]+\/findings\//.test(text(finding.name) ?? '')) &&
    'resourceName' in finding
  );
}

export function isGcpScc(doc: Json): boolean {
  const first = listOf(doc)?.items.find(isObject);
  return !!first && isSccFinding(findingOf(first));
}

export function readGcpScc(doc: Json): ReadOutcome {
  const list = listOf(doc) ?? shape.fail('', 'must be an array of findings, or an object with listFindingsResults');
  const results: NormalisedResult[] = list.items.map((value, index) => {
    const pointer = at(list.pointer, index);
    const item = shape.object(value, pointer);
    const findingPointer = isObject(item.finding) ? at(pointer, 'finding') : pointer;
    const finding = findingOf(item);
    const category = shape.string(finding.category, at(findingPointer, 'category'));
    const state = text(finding.state) ?? 'ACTIVE';
    const muted = text(finding.mute) === 'MUTED';
    const outcome: NormalisedResult['outcome'] = state === 'INACTIVE' ? 'pass' : muted ? 'accepted' : 'fail';
    const vulnerability = isObject(finding.vulnerability) ? finding.vulnerability : {};
    const cve = isObject(vulnerability.cve) ? vulnerability.cve : {};
    const cveId = vulnerabilityId(cve.id);
    const cvss = isObject(cve.cvssv3) ? numberFrom(cve.cvssv3.baseScore) : null;
    const resource = isObject(item.resource) ? item.resource : {};
    const findingClass = text(finding.findingClass) ?? '';
    return result({
      tool: 'google-scc',
      tool_version: null,
      rule_id: category,
      rule_title: text(finding.description)?.split('\n')[0].slice(0, 200) ?? category,
      resource: text(finding.resourceName) ?? text(resource.name) ?? '',
      raw_status: `${state}${muted ? ' (muted)' : ''}`,
      outcome,
      severity: severityFromWord(finding.severity) ?? (cvss === null ? null : severityFromCvss(cvss)),
      severity_score: cvss === null ? null : Math.round(cvss * 10),
      observed_at: timestampFrom(finding.eventTime) ?? timestampFrom(finding.createTime),
      cve: cveId,
      vulnerability_kind: cveId ? 'host' : undefined,
      threat: findingClass === 'THREAT',
      provider: 'gcp',
      resource_type: text(resource.type) ?? text(resource.resourceType) ?? undefined,
    });
  });
  return { format: 'gcp-scc', tool: 'google-scc', tool_version: null, results };
}
