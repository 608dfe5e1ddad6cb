/**
 * Amazon GuardDuty findings in GuardDuty's own JSON: the GetFindings answer (`{Findings: [...]}`),
 * an array of findings, or EventBridge events (`{"detail-type": "GuardDuty Finding", detail}`).
 * The rule is the finding type (Backdoor:EC2/C&CActivity.B!DNS): what was seen, where ASFF's
 * GeneratorId would only name the detector. A finding is a threat detection, open unless
 * archived; an archived finding was dismissed by a person or a suppression rule (accepted).
 * Severity is GuardDuty's number: 9–10 critical, 7–8.9 high, 4–6.9 medium, 1–3.9 low.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { numberFrom, severityFromCvss, severityFromWord, timestampFrom } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('guardduty');

function findingsOf(doc: Json): { findings: Json[]; pointer: string } | null {
  if (Array.isArray(doc)) return { findings: doc, pointer: '' };
  if (isObject(doc) && Array.isArray(doc.Findings)) return { findings: doc.Findings, pointer: '/Findings' };
  if (isObject(doc) && isObject(doc.detail)) return { findings: [doc], pointer: '' };
  return null;
}

/** An EventBridge event carries the finding under `detail`. */
const unwrap = (value: Json): Json => (isObject(value) && isObject(value.detail) && 'detail-type' in value ? value.detail : value);

function isFinding(value: Json): value is JsonObject {
  if (!isObject(value)) return false;
  const service = isObject(value.Service) ? value.Service : isObject(value.service) ? value.service : {};
  return (
    typeof (value.Type ?? value.type) === 'string' &&
    (text(service.ServiceName ?? service.serviceName) === 'guardduty' || /:guardduty:/.test(text(value.Arn ?? value.arn) ?? ''))
  );
}

export function isGuardDuty(doc: Json): boolean {
  const found = findingsOf(doc);
  const first = found?.findings.find(isObject);
  return !!first && isFinding(unwrap(first));
}

/** Field access for both spellings: the API's PascalCase and EventBridge's camelCase. */
const field = (object: JsonObject, name: string): Json | undefined => object[name] ?? object[name[0].toLowerCase() + name.slice(1)];

/** The resource a finding is about: an instance, an access key's user, a bucket, a cluster… */
function resourceOf(finding: JsonObject): { id: string; type: string | undefined } {
  const resource = isObject(field(finding, 'Resource')) ? (field(finding, 'Resource') as JsonObject) : {};
  const type = text(field(resource, 'ResourceType')) ?? undefined;
  const instance = field(resource, 'InstanceDetails');
  const key = field(resource, 'AccessKeyDetails');
  const buckets = field(resource, 'S3BucketDetails');
  const cluster = field(resource, 'EksClusterDetails');
  const id =
    (isObject(instance) ? text(field(instance, 'InstanceId')) : null) ??
    (isObject(key) ? (text(field(key, 'UserName')) ?? text(field(key, 'AccessKeyId'))) : null) ??
    (Array.isArray(buckets) && isObject(buckets[0]) ? (text(field(buckets[0], 'Arn')) ?? text(field(buckets[0], 'Name'))) : null) ??
    (isObject(cluster) ? (text(field(cluster, 'Arn')) ?? text(field(cluster, 'Name'))) : null) ??
    text(field(finding, 'AccountId')) ??
    '';
  return { id, type };
}

export function readGuardDuty(doc: Json): ReadOutcome {
  const found = findingsOf(doc) ?? shape.fail('', 'must be an object with a Findings array, an array of findings, or a GuardDuty EventBridge event');
  const results: NormalisedResult[] = found.findings.map((value, index) => {
    const pointer = found.pointer === '' && !Array.isArray(doc) ? '/detail' : at(found.pointer, index);
    const finding = shape.object(unwrap(value), pointer);
    const type = shape.string(field(finding, 'Type'), at(pointer, 'Type'));
    const service = isObject(field(finding, 'Service')) ? (field(finding, 'Service') as JsonObject) : {};
    const archived = field(service, 'Archived') === true;
    const score = numberFrom(field(finding, 'Severity'));
    const { id, type: resourceType } = resourceOf(finding);
    return result({
      tool: 'aws-guardduty',
      tool_version: text(field(finding, 'SchemaVersion')),
      rule_id: type,
      rule_title: text(field(finding, 'Title')) ?? type,
      resource: id,
      raw_status: archived ? 'ARCHIVED' : 'ACTIVE',
      outcome: archived ? 'accepted' : 'fail',
      severity: score === null ? severityFromWord(field(finding, 'Severity')) : severityFromCvss(score),
      severity_score: score === null ? null : Math.round(score * 10),
      observed_at: timestampFrom(field(service, 'EventLastSeen')) ?? timestampFrom(field(finding, 'UpdatedAt')) ?? timestampFrom(field(finding, 'CreatedAt')),
      threat: true,
      provider: 'aws',
      resource_type: resourceType,
    });
  });
  return { format: 'guardduty', tool: 'aws-guardduty', tool_version: null, results };
}
