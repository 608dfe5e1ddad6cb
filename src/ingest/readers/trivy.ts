/**
 * Trivy JSON in its layouts: the report (SchemaVersion 2, `Results[]`), the older bare array of
 * results, and the Kubernetes reports (`Resources[]`, or the legacy `Vulnerabilities[]` and
 * `Misconfigurations[]` lists of workloads). Each result contributes its vulnerabilities,
 * misconfigurations (passes included when Trivy lists them) and secrets.
 */
import type { NormalisedResult, ReadOutcome, VulnerabilityKind } from '../model.js';
import { cweIdsFrom, numberFrom, outcomeFromStatus, severityFromWord, timestampFrom, vulnerabilityId } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('trivy');

/** Trivy's UNKNOWN severity is no severity. */
const severityOf = (value: unknown) => severityFromWord(value);

interface Scope {
  /** Namespace/Kind/Name of a Kubernetes workload, or the artifact name. */
  prefix: string;
  version: string | null;
  observedAt: string | null;
  provider: string | undefined;
}

function highestCvss(vulnerability: JsonObject): number | null {
  const cvss = isObject(vulnerability.CVSS) ? vulnerability.CVSS : {};
  let best: number | null = null;
  for (const source of Object.values(cvss)) {
    if (!isObject(source)) continue;
    const score = numberFrom(source.V3Score) ?? numberFrom(source.V2Score);
    if (score !== null && (best === null || score > best)) best = score;
  }
  return best;
}

/**
 * Trivy's result classes: os-pkgs are the operating-system packages of an image or a host,
 * lang-pkgs language dependencies. Older files have no class: a Kubernetes workload's results are
 * its image's.
 */
function kindOfClass(value: unknown, scope: Scope): VulnerabilityKind {
  const word = text(value) ?? '';
  if (word === 'os-pkgs') return 'os-package';
  if (word === 'lang-pkgs') return 'dependency';
  return scope.provider === 'kubernetes' ? 'image' : 'dependency';
}

function readResult(value: Json, pointer: string, scope: Scope, results: NormalisedResult[]): void {
  const item = shape.object(value, pointer);
  const target = text(item.Target) ?? '';
  const where = [scope.prefix, target].filter(Boolean).join(' ');
  const common = { tool: 'trivy', tool_version: scope.version, observed_at: scope.observedAt, provider: scope.provider };

  shape.arrayOrEmpty(item.Vulnerabilities, at(pointer, 'Vulnerabilities')).forEach((entry, index) => {
    const vPointer = at(at(pointer, 'Vulnerabilities'), index);
    const vulnerability = shape.object(entry, vPointer);
    const id = shape.string(vulnerability.VulnerabilityID, at(vPointer, 'VulnerabilityID'));
    const pkg = text(vulnerability.PkgName) ?? '';
    const installed = text(vulnerability.InstalledVersion);
    const cvss = highestCvss(vulnerability);
    results.push(
      result({
        ...common,
        rule_id: id,
        rule_title: text(vulnerability.Title) ?? `${id} in ${pkg}`,
        resource: `${where}${pkg ? ` ${pkg}${installed ? `@${installed}` : ''}` : ''}`,
        raw_status: text(vulnerability.Status)?.toUpperCase() ?? 'DETECTED',
        outcome: 'fail',
        severity: severityOf(vulnerability.Severity),
        severity_score: cvss === null ? null : Math.round(cvss * 10),
        cwe: cweIdsFrom(Array.isArray(vulnerability.CweIDs) ? vulnerability.CweIDs : []),
        // Every entry of Vulnerabilities is one, whatever its id's form (CVE, GHSA, Debian TEMP-…).
        cve: vulnerabilityId(id) ?? id,
        vulnerability_kind: kindOfClass(item.Class, scope),
        resource_type: 'package',
      }),
    );
  });

  shape.arrayOrEmpty(item.Misconfigurations, at(pointer, 'Misconfigurations')).forEach((entry, index) => {
    const mPointer = at(at(pointer, 'Misconfigurations'), index);
    const misconfiguration = shape.object(entry, mPointer);
    const id = text(misconfiguration.ID) ?? shape.string(misconfiguration.AVDID, at(mPointer, 'ID'));
    const avdId = text(misconfiguration.AVDID);
    const cause = isObject(misconfiguration.CauseMetadata) ? misconfiguration.CauseMetadata : {};
    const status = text(misconfiguration.Status) ?? 'FAIL';
    const causeResource = text(cause.Resource);
    const line = typeof cause.StartLine === 'number' && cause.StartLine > 0 ? `:${cause.StartLine}` : '';
    results.push(
      result({
        ...common,
        rule_id: id,
        rule_title: text(misconfiguration.Title) ?? '',
        resource: `${where}${causeResource ? ` ${causeResource}` : line}`,
        raw_status: status,
        outcome: outcomeFromStatus(status),
        severity: severityOf(misconfiguration.Severity),
        rule_alternates: avdId && avdId !== id ? [avdId] : undefined,
        provider: text(cause.Provider)?.toLowerCase() ?? scope.provider,
        resource_type: text(item.Type) ?? undefined,
      }),
    );
  });

  shape.arrayOrEmpty(item.Secrets, at(pointer, 'Secrets')).forEach((entry, index) => {
    const sPointer = at(at(pointer, 'Secrets'), index);
    const secret = shape.object(entry, sPointer);
    const line = typeof secret.StartLine === 'number' ? `:${secret.StartLine}` : '';
    results.push(
      result({
        ...common,
        rule_id: shape.string(secret.RuleID, at(sPointer, 'RuleID')),
        rule_title: text(secret.Title) ?? '',
        resource: `${where}${line}`,
        raw_status: 'DETECTED',
        outcome: 'fail',
        severity: severityOf(secret.Severity),
        // A secret Trivy finds in a file is a hard-coded credential.
        cwe: ['CWE-798'],
        resource_type: 'file',
      }),
    );
  });
}

/** Namespace/Kind/Name of a workload in the Kubernetes layouts. */
function workloadName(workload: JsonObject): string {
  return [text(workload.Namespace), text(workload.Kind), text(workload.Name)].filter(Boolean).join('/');
}

export function readTrivy(doc: Json): ReadOutcome {
  const results: NormalisedResult[] = [];
  if (Array.isArray(doc)) {
    doc.forEach((value, index) => readResult(value, at('', index), { prefix: '', version: null, observedAt: null, provider: undefined }, results));
    return { format: 'trivy', tool: 'trivy', tool_version: null, results };
  }
  const report = shape.object(doc, '');
  const version = isObject(report.Trivy) ? text(report.Trivy.Version) : null;
  const observedAt = timestampFrom(report.CreatedAt);
  if (report.ClusterName !== undefined || report.Resources !== undefined) {
    const lists = ['Resources', 'Vulnerabilities', 'Misconfigurations'].filter((key) => report[key] !== undefined);
    if (!lists.length) shape.fail('/Resources', 'must list the scanned workloads (Resources, or Vulnerabilities and Misconfigurations)');
    for (const key of lists) {
      shape.array(report[key], `/${key}`).forEach((value, index) => {
        const pointer = at(`/${key}`, index);
        const workload = shape.object(value, pointer);
        const scope = { prefix: workloadName(workload), version, observedAt, provider: 'kubernetes' };
        shape
          .arrayOrEmpty(workload.Results, at(pointer, 'Results'))
          .forEach((entry, rIndex) => readResult(entry, at(at(pointer, 'Results'), rIndex), scope, results));
      });
    }
    return { format: 'trivy', tool: 'trivy', tool_version: version, results };
  }
  const scope = { prefix: text(report.ArtifactName) ?? '', version, observedAt, provider: undefined };
  shape.arrayOrEmpty(report.Results, '/Results').forEach((value, index) => readResult(value, at('/Results', index), scope, results));
  for (const item of results) item.tool_version = version;
  return { format: 'trivy', tool: 'trivy', tool_version: version, results };
}
