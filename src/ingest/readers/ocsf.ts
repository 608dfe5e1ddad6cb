/**
 * OCSF findings: Compliance Finding (2003), Detection Finding (2004, what Prowler 4 and 5 write as
 * JSON-OCSF) and Vulnerability Finding (2002). A file is a JSON array of events, one event, or
 * newline-delimited events already split by the detector.
 */
import type { Severity } from '../../core/vocabulary.js';
import type { NormalisedResult, ReadOutcome, ScanFormat } from '../model.js';
import { cweIdsFrom, outcomeFromStatus, severityFromWord, timestampFrom, vulnerabilityId } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { toolIdOf } from '../tools.js';
import { result } from './common.js';

export const OCSF_FINDING_CLASSES = [2002, 2003, 2004] as const;

/** OCSF severity_id: 1 Informational … 5 Critical, 6 Fatal. */
const SEVERITY_BY_ID: Record<number, Severity> = { 1: 'info', 2: 'low', 3: 'medium', 4: 'high', 5: 'critical', 6: 'critical' };

function severityOf(event: JsonObject): Severity | null {
  const word = event.severity === 'Fatal' ? 'critical' : event.severity;
  return severityFromWord(word) ?? (typeof event.severity_id === 'number' ? (SEVERITY_BY_ID[event.severity_id] ?? null) : null);
}

export function readOcsf(doc: Json, format: Extract<ScanFormat, 'ocsf' | 'prowler-ocsf'>): ReadOutcome {
  const shape = new Shape(format);
  const events = Array.isArray(doc) ? doc : [shape.object(doc, '')];
  const results: NormalisedResult[] = [];
  let tool = format === 'prowler-ocsf' ? 'prowler' : '';
  let toolVersion: string | null = null;
  events.forEach((value, index) => {
    const pointer = Array.isArray(doc) ? at('', index) : '';
    const event = shape.object(value, pointer);
    const classUid = event.class_uid;
    if (typeof classUid !== 'number' || !(OCSF_FINDING_CLASSES as readonly number[]).includes(classUid)) {
      shape.fail(at(pointer, 'class_uid'), `must be one of the finding classes ${OCSF_FINDING_CLASSES.join(', ')} (found ${JSON.stringify(classUid ?? null)})`);
    }
    const metadata = shape.object(event.metadata, at(pointer, 'metadata'));
    const product = isObject(metadata.product) ? metadata.product : {};
    const eventTool = toolIdOf(text(product.name) ?? text(product.vendor_name) ?? (format === 'prowler-ocsf' ? 'prowler' : 'unknown'));
    const eventVersion = text(product.version);
    tool ||= eventTool;
    toolVersion ??= eventVersion;

    const findingInfo = isObject(event.finding_info) ? event.finding_info : {};
    const resources = Array.isArray(event.resources) ? event.resources.filter(isObject) : [];
    const firstResource = resources[0] ?? {};
    const cloud = isObject(event.cloud) ? event.cloud : {};
    const account = isObject(cloud.account) ? cloud.account : {};
    const resource = text(firstResource.uid) ?? text(firstResource.name) ?? text(account.uid) ?? '';
    const common = {
      tool: eventTool,
      tool_version: eventVersion,
      rule_title: text(findingInfo.title) ?? '',
      resource,
      severity: severityOf(event),
      observed_at: timestampFrom(event.time_dt) ?? timestampFrom(event.time) ?? timestampFrom(findingInfo.created_time_dt),
      provider: text(cloud.provider) ?? undefined,
      resource_type: text(firstResource.type) ?? undefined,
    };

    if (classUid === 2002) {
      const vulnerabilities = shape.array(event.vulnerabilities, at(pointer, 'vulnerabilities'));
      vulnerabilities.forEach((entry, vIndex) => {
        const vPointer = at(at(pointer, 'vulnerabilities'), vIndex);
        const vulnerability = shape.object(entry, vPointer);
        const cve = isObject(vulnerability.cve) ? vulnerability.cve : {};
        const cwe = isObject(vulnerability.cwe) ? vulnerability.cwe : {};
        const id = text(cve.uid) ?? text(vulnerability.uid) ?? shape.fail(at(vPointer, 'cve/uid'), 'must name the vulnerability (cve.uid)');
        results.push(
          result({
            ...common,
            rule_id: id,
            rule_title: text(vulnerability.title) ?? common.rule_title,
            raw_status: text(event.status) ?? 'New',
            outcome: detectionOutcome(event),
            severity: severityFromWord(vulnerability.severity) ?? common.severity,
            cwe: cweIdsFrom([cwe.uid, ...(Array.isArray(vulnerability.related_cwes) ? vulnerability.related_cwes.map((c) => (isObject(c) ? c.uid : c)) : [])]),
            cve: vulnerabilityId(id) ?? id,
          }),
        );
      });
      return;
    }

    const compliance = isObject(event.compliance) ? event.compliance : {};
    const analytic = isObject(findingInfo.analytic) ? findingInfo.analytic : {};
    const ruleId =
      (classUid === 2003 ? text(compliance.control) : null) ??
      text(metadata.event_code) ??
      text(analytic.uid) ??
      text(analytic.name) ??
      shape.fail(at(at(pointer, 'metadata'), 'event_code'), 'must name the rule (metadata.event_code, or compliance.control for a compliance finding)');
    const statusWord = verdictOf(event, compliance, classUid as number);
    const suppressed = isSuppressed(event);
    let outcome = statusWord ? outcomeFromStatus(statusWord) : detectionOutcome(event);
    if (suppressed) outcome = outcome === 'fail' ? 'accepted' : 'other';
    results.push(
      result({
        ...common,
        rule_id: ruleId,
        raw_status: `${statusWord ?? text(event.status) ?? 'New'}${suppressed ? ' (suppressed)' : ''}`,
        outcome,
        cwe: cweIdsFrom(Array.isArray(findingInfo.types) ? findingInfo.types : []),
      }),
    );
  });
  return { format, tool: tool || 'unknown', tool_version: toolVersion, results };
}

/** OCSF compliance.status_id: 1 Pass, 2 Warning, 3 Fail. */
const COMPLIANCE_STATUS: Record<number, string> = { 1: 'Pass', 2: 'Warning', 3: 'Fail' };

/**
 * The verdict word, from the field the schema defines as the verdict: a Compliance Finding's
 * `compliance.status` (or `status_id`); a Detection Finding's `status_code`, which is where
 * Prowler writes PASS, FAIL or MANUAL. `status`/`status_id` are the finding's workflow state
 * (New, In Progress, Suppressed, Resolved), never its verdict.
 */
function verdictOf(event: JsonObject, compliance: JsonObject, classUid: number): string | null {
  const complianceWord = text(compliance.status) ?? (typeof compliance.status_id === 'number' ? (COMPLIANCE_STATUS[compliance.status_id] ?? null) : null);
  return classUid === 2003 ? (complianceWord ?? text(event.status_code)) : (text(event.status_code) ?? complianceWord ?? text(compliance.status_code));
}

/**
 * Workflow state Suppressed (status_id 3): the failure was muted. `status` is the caption of
 * `status_id`; when a file's two disagree (a status_id of 3 captioned "New"), the caption is
 * read, as the state a person sees, so a finding captioned New is not taken for a muted one.
 */
function workflowState(event: JsonObject): string {
  const caption = text(event.status);
  if (caption) return caption.toLowerCase();
  const byId: Record<number, string> = { 1: 'new', 2: 'in progress', 3: 'suppressed', 4: 'resolved', 5: 'archived' };
  return typeof event.status_id === 'number' ? (byId[event.status_id] ?? 'other') : 'new';
}

function isSuppressed(event: JsonObject): boolean {
  return workflowState(event) === 'suppressed';
}

/** A detection without a verdict reports a condition as present, unless it was resolved. */
function detectionOutcome(event: JsonObject): NormalisedResult['outcome'] {
  const state = workflowState(event);
  if (state === 'resolved' || state === 'archived') return 'pass';
  if (state === 'suppressed') return 'accepted';
  return 'fail';
}
