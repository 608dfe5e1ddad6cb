/**
 * AWS Security Finding Format: what Security Hub exports (FSBP and CIS controls, Inspector
 * vulnerabilities, other integrated products) and what Prowler writes as JSON-ASFF. A file is an
 * array of findings or an object with `Findings` (the GetFindings answer) or `findings`.
 */
import type { NormalisedResult, ReadOutcome, ScanFormat, VulnerabilityKind } from '../model.js';
import { numberFrom, outcomeFromStatus, severityFromCvss, severityFromWord, timestampFrom, vulnerabilityId } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { toolIdOf } from '../tools.js';
import { result } from './common.js';

/** The findings array of an ASFF document and its pointer, or null when the document has none. */
export function asffFindings(doc: Json): { findings: Json[]; pointer: string } | null {
  if (Array.isArray(doc)) return { findings: doc, pointer: '' };
  if (isObject(doc)) {
    if (Array.isArray(doc.Findings)) return { findings: doc.Findings, pointer: '/Findings' };
    if (Array.isArray(doc.findings)) return { findings: doc.findings, pointer: '/findings' };
  }
  return null;
}

export function isProwlerAsff(finding: JsonObject): boolean {
  const fields = isObject(finding.ProductFields) ? finding.ProductFields : {};
  return /product\/prowler\/prowler$/.test(text(finding.ProductArn) ?? '') || fields.ProviderName === 'Prowler';
}

/** The product a finding comes from: Security Hub's own controls, Inspector, Prowler, or whatever ProductName says. */
function productTool(finding: JsonObject): string {
  if (isProwlerAsff(finding)) return 'prowler';
  const arn = text(finding.ProductArn) ?? '';
  const product = /(?:^|[:/])product\/([^/]+)\/([^/]+)$/.exec(arn);
  if (product?.[1] === 'aws') return toolIdOf(product[2]);
  return toolIdOf(text(finding.ProductName) ?? product?.[2] ?? 'unknown');
}

function severityOf(finding: JsonObject): { level: NormalisedResult['severity']; score: number | null } {
  const severity = isObject(finding.Severity) ? finding.Severity : {};
  const normalized = numberFrom(severity.Normalized);
  const level = severityFromWord(severity.Label) ?? severityFromWord(severity.Original) ?? (normalized === null ? null : severityFromCvss(normalized / 10));
  return { level, score: normalized };
}

/** ASFF finding-type namespaces of observed activity (GuardDuty, Macie, Detective…), as opposed to checks and data findings. */
const THREAT_TYPES = /^(TTPs|Effects|Unusual Behaviors)\//;

function findingType(finding: JsonObject): string | null {
  return Array.isArray(finding.Types) ? (finding.Types.map(text).find((t): t is string => !!t) ?? null) : null;
}

/**
 * GuardDuty's own spelling of a finding type from its ASFF one, where `/` had to become `-`:
 * TTPs/Discovery/Recon:EC2-Portscan → Recon:EC2/Portscan; TTPs/Discovery/IAMUser-AnomalousBehavior
 * → Discovery:IAMUser/AnomalousBehavior.
 */
function guardDutyType(type: string): string | null {
  const segments = type.split('/');
  if (segments.length < 2) return null;
  let last = segments[segments.length - 1];
  if (!last.includes(':')) last = `${segments[segments.length - 2].replace(/\s+/g, '')}:${last}`;
  const colon = last.indexOf(':');
  const dash = last.indexOf('-', colon);
  return dash > colon ? `${last.slice(0, dash)}/${last.slice(dash + 1)}` : last;
}

/**
 * What an Inspector vulnerability sits in: its package manager says OS (an operating-system
 * package) or a language's (NPM, PIP, JAR…); without packages, an EC2 instance is a host and an
 * ECR image an image.
 */
function inspectorKind(packages: JsonObject[], resourceType: string | undefined): VulnerabilityKind {
  const manager = packages.map((p) => text(p.PackageManager)?.toUpperCase()).find(Boolean);
  if (manager) return manager === 'OS' ? 'os-package' : 'dependency';
  if (resourceType === 'AwsEc2Instance') return 'host';
  if (resourceType === 'AwsEcrContainerImage') return 'image';
  return 'host';
}

export function readAsff(doc: Json, format: Extract<ScanFormat, 'asff' | 'prowler-asff'>): ReadOutcome {
  const shape = new Shape(format);
  const found = asffFindings(doc) ?? shape.fail('', 'must be an array of ASFF findings or an object with a Findings array');
  const results: NormalisedResult[] = [];
  let tool = '';
  let toolVersion: string | null = null;
  found.findings.forEach((value, index) => {
    const pointer = at(found.pointer, index);
    const finding = shape.object(value, pointer);
    shape.string(finding.SchemaVersion, at(pointer, 'SchemaVersion'));
    const fields = isObject(finding.ProductFields) ? finding.ProductFields : {};
    const findingTool = productTool(finding);
    const version = text(fields.ProviderVersion) ?? text(fields['aws/inspector/ProductVersion']);
    tool ||= findingTool;
    toolVersion ??= version;
    const compliance = isObject(finding.Compliance) ? finding.Compliance : {};
    const workflow = isObject(finding.Workflow) ? text(finding.Workflow.Status) : text(finding.WorkflowState);
    const complianceStatus = text(compliance.Status);
    const suppressed = workflow === 'SUPPRESSED';
    // Without a compliance verdict a finding (Inspector, GuardDuty…) reports its condition as
    // present, unless it was resolved or archived.
    const resolved = workflow === 'RESOLVED' || finding.RecordState === 'ARCHIVED';
    let outcome: NormalisedResult['outcome'] = complianceStatus ? outcomeFromStatus(complianceStatus) : resolved ? 'pass' : 'fail';
    if (suppressed) outcome = outcome === 'fail' ? 'accepted' : 'other';
    const rawStatus = `${complianceStatus ?? workflow ?? 'ACTIVE'}${suppressed ? ' (suppressed)' : ''}`;
    const severity = severityOf(finding);
    const title = text(finding.Title) ?? '';
    const observedAt =
      timestampFrom(finding.LastObservedAt) ?? timestampFrom(finding.UpdatedAt) ?? timestampFrom(finding.FirstObservedAt) ?? timestampFrom(finding.CreatedAt);
    const resources = shape.array(finding.Resources, at(pointer, 'Resources')).filter(isObject);
    const targets = resources.length ? resources : [{}];

    const vulnerabilities = Array.isArray(finding.Vulnerabilities) ? finding.Vulnerabilities.filter(isObject) : [];
    const base = {
      tool: findingTool,
      tool_version: version,
      raw_status: rawStatus,
      outcome,
      severity: severity.level,
      severity_score: severity.score,
      observed_at: observedAt,
      provider: 'aws',
    };
    for (const resource of targets) {
      const resourceFields = {
        resource: text(resource.Id) ?? text(finding.AwsAccountId) ?? '',
        resource_type: text(resource.Type) ?? undefined,
      };
      if (vulnerabilities.length) {
        vulnerabilities.forEach((vulnerability, vIndex) => {
          const id = text(vulnerability.Id) ?? shape.fail(at(at(at(pointer, 'Vulnerabilities'), vIndex), 'Id'), 'must name the vulnerability');
          const cvss = Array.isArray(vulnerability.Cvss)
            ? vulnerability.Cvss.filter(isObject)
                .map((c) => numberFrom(c.BaseScore))
                .find((s) => s !== null)
            : undefined;
          const packages = Array.isArray(vulnerability.VulnerablePackages) ? vulnerability.VulnerablePackages.filter(isObject) : [];
          results.push(
            result({
              ...base,
              ...resourceFields,
              rule_id: id,
              rule_title: title,
              severity: base.severity ?? (cvss === undefined || cvss === null ? null : severityFromCvss(cvss)),
              cve: vulnerabilityId(id) ?? id,
              vulnerability_kind: inspectorKind(packages, resourceFields.resource_type),
            }),
          );
        });
        continue;
      }
      const generator = text(finding.GeneratorId);
      const type = findingType(finding);
      // A generator that is an ARN (GuardDuty's detector) names where the finding came from, not what
      // it found: the finding type does, so that different threats stay different rules.
      const byType = !complianceStatus && !!type && (/^arn:/.test(generator ?? '') || !generator);
      const ruleId =
        findingTool === 'prowler'
          ? shape.string(finding.GeneratorId, at(pointer, 'GeneratorId'))
          : (text(compliance.SecurityControlId) ??
            text(fields.ControlId) ??
            text(fields.RuleId) ??
            (byType ? type : generator) ??
            shape.fail(at(pointer, 'GeneratorId'), 'must name the rule (Compliance.SecurityControlId, ProductFields.ControlId, GeneratorId or Types)'));
      const native = byType && type ? guardDutyType(type) : null;
      const alternates = [byType ? null : generator, text(fields.StandardsControlArn), native].filter((id): id is string => !!id && id !== ruleId);
      results.push(
        result({
          ...base,
          ...resourceFields,
          rule_id: ruleId,
          rule_title: title,
          rule_alternates: alternates.length ? alternates : undefined,
          // GuardDuty reports only what it saw happen, whatever namespace its type is filed under.
          threat: !complianceStatus && (findingTool === 'aws-guardduty' || (!!type && THREAT_TYPES.test(type))),
        }),
      );
    }
  });
  return { format, tool: tool || 'unknown', tool_version: toolVersion, results };
}
