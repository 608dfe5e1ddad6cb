/**
 * trivy-operator's reports, as `kubectl get <report> -o json` writes them: one report, a kubectl
 * `List` of them, a JSON array of them, or an object of lists keyed by report type
 * (`vulnerabilityreports.aquasecurity.github.io`: […]). Each kind gives its own results:
 * VulnerabilityReport (vulnerabilities), ConfigAuditReport, RbacAssessmentReport and
 * InfraAssessmentReport and their cluster kinds (checks, with `success`), ExposedSecretReport
 * (secrets), ClusterComplianceReport (its detail report's checks, else one result per control of
 * its summary, failing when `totalFail` > 0). SBOM reports hold no findings. The checks are
 * Trivy's, so they resolve through Trivy's mappings.
 */
import type { NormalisedResult, ReadOutcome, VulnerabilityKind } from '../model.js';
import { numberFrom, severityFromCvss, severityFromWord, timestampFrom, vulnerabilityId } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('trivy-operator');

const API_GROUP = /^aquasecurity\.github\.io\//;
const CHECK_KINDS = new Set([
  'ConfigAuditReport',
  'ClusterConfigAuditReport',
  'RbacAssessmentReport',
  'ClusterRbacAssessmentReport',
  'InfraAssessmentReport',
  'ClusterInfraAssessmentReport',
]);
const KINDS = new Set([
  ...CHECK_KINDS,
  'VulnerabilityReport',
  'ClusterVulnerabilityReport',
  'ExposedSecretReport',
  'ClusterComplianceReport',
  'SbomReport',
  'ClusterSbomReport',
]);

const isReport = (value: unknown): value is JsonObject => isObject(value) && API_GROUP.test(text(value.apiVersion) ?? '') && KINDS.has(text(value.kind) ?? '');

/** The reports of a document with their JSON pointers, or null when it is not a trivy-operator document. */
function reportsOf(doc: Json): Array<{ report: Json; pointer: string }> | null {
  if (isReport(doc)) return [{ report: doc, pointer: '' }];
  if (isObject(doc) && doc.kind === 'List' && Array.isArray(doc.items)) return doc.items.map((report, i) => ({ report, pointer: at('/items', i) }));
  if (Array.isArray(doc)) return doc.map((report, i) => ({ report, pointer: at('', i) }));
  if (isObject(doc) && Object.keys(doc).length > 0 && Object.keys(doc).every((key) => key.endsWith('.aquasecurity.github.io'))) {
    return Object.entries(doc).flatMap(([key, list]) => (Array.isArray(list) ? list.map((report, i) => ({ report, pointer: at(at('', key), i) })) : []));
  }
  return null;
}

export function isTrivyOperator(doc: Json): boolean {
  if (isObject(doc) && Object.keys(doc).length > 0 && Object.keys(doc).every((key) => key.endsWith('.aquasecurity.github.io'))) return true;
  const reports = reportsOf(doc);
  return !!reports && reports.length > 0 && isReport(reports[0].report);
}

/** Namespace/Kind/Name of the workload a report is about (its trivy-operator labels), else the report's own name. */
function workloadOf(report: JsonObject): { name: string; kind: string | undefined } {
  const metadata = isObject(report.metadata) ? report.metadata : {};
  const labels = isObject(metadata.labels) ? metadata.labels : {};
  const kind = text(labels['trivy-operator.resource.kind']);
  const name = text(labels['trivy-operator.resource.name']);
  const namespace = text(labels['trivy-operator.resource.namespace']) ?? text(metadata.namespace);
  return {
    name: name ? [namespace, kind, name].filter(Boolean).join('/') : [namespace, text(metadata.name)].filter(Boolean).join('/'),
    kind: kind ?? undefined,
  };
}

/** Trivy's package classes: os-pkgs are the image's operating-system packages, lang-pkgs its dependencies. */
function kindOfClass(value: unknown): VulnerabilityKind {
  const word = text(value) ?? '';
  if (word === 'os-pkgs') return 'os-package';
  if (word === 'lang-pkgs') return 'dependency';
  return 'image';
}

function readReport(report: JsonObject, pointer: string, results: NormalisedResult[], versions: Set<string>): void {
  const kind = text(report.kind)!;
  const body = isObject(report.report) ? report.report : {};
  const scanner = isObject(body.scanner) ? body.scanner : {};
  const version = text(scanner.version);
  if (version) versions.add(version);
  const { name: workload, kind: workloadKind } = workloadOf(report);
  const metadata = isObject(report.metadata) ? report.metadata : {};
  const status = isObject(report.status) ? report.status : {};
  const observedAt = timestampFrom(body.updateTimestamp) ?? timestampFrom(status.updateTimestamp) ?? timestampFrom(metadata.creationTimestamp);
  const common = { tool: 'trivy', tool_version: version, observed_at: observedAt, provider: 'kubernetes' };

  if (kind === 'VulnerabilityReport' || kind === 'ClusterVulnerabilityReport') {
    const artifact = isObject(body.artifact) ? body.artifact : {};
    const registry = isObject(body.registry) ? text(body.registry.server) : null;
    const image = [registry, text(artifact.repository)].filter(Boolean).join('/') + (text(artifact.tag) ? `:${text(artifact.tag)}` : '');
    shape.arrayOrEmpty(body.vulnerabilities, at(at(pointer, 'report'), 'vulnerabilities')).forEach((value, index) => {
      const vPointer = at(at(at(pointer, 'report'), 'vulnerabilities'), index);
      const vulnerability = shape.object(value, vPointer);
      const id = shape.string(vulnerability.vulnerabilityID, at(vPointer, 'vulnerabilityID'));
      const pkg = text(vulnerability.resource) ?? text(vulnerability.pkgName) ?? '';
      const installed = text(vulnerability.installedVersion);
      const score = numberFrom(vulnerability.score);
      results.push(
        result({
          ...common,
          rule_id: id,
          rule_title: text(vulnerability.title) ?? `${id} in ${pkg}`,
          resource: [workload, image, pkg ? `${pkg}${installed ? `@${installed}` : ''}` : ''].filter(Boolean).join(' '),
          raw_status: 'DETECTED',
          outcome: 'fail',
          severity: severityFromWord(vulnerability.severity) ?? (score === null ? null : severityFromCvss(score)),
          severity_score: score === null ? null : Math.round(score * 10),
          cve: vulnerabilityId(id) ?? id,
          vulnerability_kind: kindOfClass(vulnerability.class ?? vulnerability.pkgType),
          resource_type: 'package',
        }),
      );
    });
    return;
  }

  if (CHECK_KINDS.has(kind)) {
    shape.arrayOrEmpty(body.checks, at(at(pointer, 'report'), 'checks')).forEach((value, index) => {
      const cPointer = at(at(at(pointer, 'report'), 'checks'), index);
      const check = shape.object(value, cPointer);
      const success = check.success === true;
      results.push(
        result({
          ...common,
          rule_id: shape.string(check.checkID ?? check.id, at(cPointer, 'checkID')),
          rule_title: text(check.title) ?? '',
          resource: workload,
          raw_status: success ? 'PASS' : 'FAIL',
          outcome: success ? 'pass' : 'fail',
          severity: severityFromWord(check.severity),
          resource_type: workloadKind,
        }),
      );
    });
    return;
  }

  if (kind === 'ExposedSecretReport') {
    shape.arrayOrEmpty(body.secrets, at(at(pointer, 'report'), 'secrets')).forEach((value, index) => {
      const sPointer = at(at(at(pointer, 'report'), 'secrets'), index);
      const secret = shape.object(value, sPointer);
      results.push(
        result({
          ...common,
          rule_id: shape.string(secret.ruleID, at(sPointer, 'ruleID')),
          rule_title: text(secret.title) ?? '',
          resource: [workload, text(secret.target)].filter(Boolean).join(' '),
          raw_status: 'DETECTED',
          outcome: 'fail',
          severity: severityFromWord(secret.severity),
          cwe: ['CWE-798'],
          resource_type: 'file',
        }),
      );
    });
    return;
  }

  if (kind === 'ClusterComplianceReport') readCompliance(report, pointer, common, results);
}

/** A compliance report: the detail report's checks when it has one, else a result per control of the summary. */
function readCompliance(
  report: JsonObject,
  pointer: string,
  common: Pick<NormalisedResult, 'tool' | 'tool_version' | 'observed_at' | 'provider'>,
  results: NormalisedResult[],
): void {
  const status = isObject(report.status) ? report.status : {};
  const spec = isObject(report.spec) && isObject(report.spec.compliance) ? report.spec.compliance : {};
  const standard = text(spec.id) ?? text(isObject(report.metadata) ? report.metadata.name : null) ?? 'compliance';
  const detail = isObject(status.detailReport) ? status.detailReport : null;
  if (detail && Array.isArray(detail.results)) {
    detail.results.forEach((value, index) => {
      const rPointer = at(at(at(at(pointer, 'status'), 'detailReport'), 'results'), index);
      const control = shape.object(value, rPointer);
      const controlId = text(control.id) ?? '';
      shape.arrayOrEmpty(control.checks, at(rPointer, 'checks')).forEach((checkValue, cIndex) => {
        const check = shape.object(checkValue, at(at(rPointer, 'checks'), cIndex));
        const success = check.success === true;
        results.push(
          result({
            ...common,
            rule_id: shape.string(check.checkID ?? check.id, at(at(at(rPointer, 'checks'), cIndex), 'checkID')),
            rule_title: text(check.title) ?? text(control.name) ?? '',
            resource: [`${standard} ${controlId}`.trim(), text(check.target)].filter(Boolean).join(' '),
            raw_status: success ? 'PASS' : 'FAIL',
            outcome: success ? 'pass' : 'fail',
            severity: severityFromWord(check.severity) ?? severityFromWord(control.severity),
          }),
        );
      });
    });
    return;
  }
  const checksOf = new Map<string, string[]>();
  for (const control of Array.isArray(spec.controls) ? spec.controls.filter(isObject) : []) {
    const ids = (Array.isArray(control.checks) ? control.checks.filter(isObject) : []).map((c) => text(c.id)).filter((id): id is string => !!id);
    if (text(control.id)) checksOf.set(text(control.id)!, ids);
  }
  const summary = isObject(status.summaryReport) ? status.summaryReport : {};
  shape.arrayOrEmpty(summary.controlCheck, at(at(at(pointer, 'status'), 'summaryReport'), 'controlCheck')).forEach((value, index) => {
    const cPointer = at(at(at(at(pointer, 'status'), 'summaryReport'), 'controlCheck'), index);
    const control = shape.object(value, cPointer);
    const controlId = shape.string(control.id, at(cPointer, 'id'));
    const checks = checksOf.get(controlId) ?? [];
    const failures = numberFrom(control.totalFail);
    // A control without automated checks is a manual one: the summary holds no verdict for it.
    const outcome: NormalisedResult['outcome'] = !checks.length || failures === null ? 'other' : failures > 0 ? 'fail' : 'pass';
    results.push(
      result({
        ...common,
        rule_id: checks[0] ?? controlId,
        rule_title: text(control.name) ?? '',
        resource: `${standard} ${controlId}`,
        raw_status: outcome === 'other' ? 'MANUAL' : `totalFail ${failures}`,
        outcome,
        severity: severityFromWord(control.severity),
        rule_alternates: checks.length > 1 ? checks.slice(1) : undefined,
      }),
    );
  });
}

export function readTrivyOperator(doc: Json): ReadOutcome {
  const reports = reportsOf(doc) ?? shape.fail('', 'must be a trivy-operator report, a kubectl List of them, or an array of them');
  const results: NormalisedResult[] = [];
  const versions = new Set<string>();
  for (const { report, pointer } of reports) {
    const object = shape.object(report, pointer);
    if (!isReport(object))
      shape.fail(
        at(pointer, 'kind'),
        `must be a trivy-operator report kind of apiVersion aquasecurity.github.io/… (found ${JSON.stringify((object as JsonObject).kind ?? null)})`,
      );
    readReport(object, pointer, results, versions);
  }
  const version = versions.size ? [...versions][0] : null;
  return { format: 'trivy-operator', tool: 'trivy', tool_version: version, results };
}
