/**
 * Snyk CLI JSON. Open Source and Container (`snyk test --json`, `snyk container test --json`):
 * a project object with `vulnerabilities[]`, or an array of them (`--all-projects`); each entry
 * is one vulnerable path to a package, Snyk's own severity first. Snyk ids (SNYK-JS-…) are
 * advisories in their own right; a CVE or GHSA among `identifiers` names them where there is one.
 * Licence issues (`type: "license"`) are policy results, not vulnerabilities. IaC (`snyk iac test
 * --json`): a project object with `infrastructureAsCodeIssues[]`, or an array of them.
 */
import type { NormalisedResult, ReadOutcome, VulnerabilityKind } from '../model.js';
import { cweIdsFrom, numberFrom, severityFromCvss, severityFromWord, vulnerabilityId } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { result } from './common.js';

/** Snyk's package managers of operating-system packages (container scans). */
const OS_PACKAGE_MANAGERS = new Set(['deb', 'apk', 'rpm', 'linux', 'dpkg', 'rhel', 'centos', 'alpine', 'debian', 'ubuntu']);

const projects = (doc: Json): JsonObject[] => (Array.isArray(doc) ? doc.filter(isObject) : isObject(doc) ? [doc] : []);

export function isSnyk(doc: Json): boolean {
  const first = projects(doc)[0];
  return (
    !!first &&
    Array.isArray(first.vulnerabilities) &&
    !Array.isArray(first.infrastructureAsCodeIssues) &&
    ('packageManager' in first || 'projectName' in first || typeof first.ok === 'boolean' || 'dependencyCount' in first)
  );
}

export function isSnykIac(doc: Json): boolean {
  const first = projects(doc)[0];
  return !!first && Array.isArray(first.infrastructureAsCodeIssues);
}

function identifiers(entry: JsonObject, key: string): string[] {
  const ids = isObject(entry.identifiers) ? entry.identifiers[key] : undefined;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

export function readSnyk(doc: Json): ReadOutcome {
  const shape = new Shape('snyk');
  const list = Array.isArray(doc) ? doc : [shape.object(doc, '')];
  const results: NormalisedResult[] = [];
  list.forEach((value, pIndex) => {
    const pPointer = Array.isArray(doc) ? at('', pIndex) : '';
    const project = shape.object(value, pPointer);
    const manager = (text(project.packageManager) ?? '').toLowerCase();
    const projectName = text(project.projectName) ?? text(project.displayTargetFile) ?? text(project.path) ?? '';
    const container = isObject(project.docker) || OS_PACKAGE_MANAGERS.has(manager);
    shape.array(project.vulnerabilities, at(pPointer, 'vulnerabilities')).forEach((entryValue, index) => {
      const pointer = at(at(pPointer, 'vulnerabilities'), index);
      const entry = shape.object(entryValue, pointer);
      const id = shape.string(entry.id, at(pointer, 'id'));
      const pkg = `${text(entry.packageName) ?? text(entry.name) ?? ''}${text(entry.version) ? `@${text(entry.version)}` : ''}`;
      const licence = text(entry.type) === 'license';
      const score = numberFrom(entry.cvssScore);
      const entryManager = (text(entry.packageManager) ?? manager).toLowerCase();
      const kind: VulnerabilityKind = OS_PACKAGE_MANAGERS.has(entryManager) ? 'os-package' : container && !entryManager ? 'image' : 'dependency';
      const named = [...identifiers(entry, 'CVE'), ...identifiers(entry, 'GHSA')].map(vulnerabilityId).find((v): v is string => !!v);
      results.push(
        result({
          tool: 'snyk',
          tool_version: null,
          rule_id: id,
          rule_title: text(entry.title) ?? '',
          resource: [projectName, pkg].filter(Boolean).join(' '),
          raw_status: licence ? 'LICENSE ISSUE' : 'VULNERABLE',
          outcome: 'fail',
          severity: severityFromWord(entry.severityWithCritical ?? entry.severity) ?? (score === null ? null : severityFromCvss(score)),
          severity_score: score === null ? null : Math.round(score * 10),
          cwe: cweIdsFrom(identifiers(entry, 'CWE')),
          // Every entry of `vulnerabilities` but a licence issue is a vulnerability, named by its CVE when it has one.
          cve: licence ? null : (named ?? id),
          vulnerability_kind: licence ? undefined : kind,
          rule_alternates: named && named !== id ? [named] : undefined,
          resource_type: 'package',
        }),
      );
    });
  });
  return { format: 'snyk', tool: 'snyk', tool_version: null, results };
}

export function readSnykIac(doc: Json): ReadOutcome {
  const shape = new Shape('snyk-iac');
  const list = Array.isArray(doc) ? doc : [shape.object(doc, '')];
  const results: NormalisedResult[] = [];
  list.forEach((value, pIndex) => {
    const pPointer = Array.isArray(doc) ? at('', pIndex) : '';
    const project = shape.object(value, pPointer);
    const file = text(project.targetFilePath) ?? text(project.targetFile) ?? text(project.displayTargetFile) ?? '';
    shape.array(project.infrastructureAsCodeIssues, at(pPointer, 'infrastructureAsCodeIssues')).forEach((issueValue, index) => {
      const pointer = at(at(pPointer, 'infrastructureAsCodeIssues'), index);
      const issue = shape.object(issueValue, pointer);
      const ignored = issue.isIgnored === true;
      const line = typeof issue.lineNumber === 'number' && issue.lineNumber > 0 ? `:${issue.lineNumber}` : '';
      const path = Array.isArray(issue.path) ? issue.path.filter((p) => typeof p === 'string').join('.') : (text(issue.msg) ?? '');
      results.push(
        result({
          tool: 'snyk',
          tool_version: null,
          rule_id: text(issue.publicId) ?? shape.string(issue.id, at(pointer, 'id')),
          rule_title: text(issue.title) ?? '',
          resource: [`${file}${line}`, path].filter(Boolean).join(' '),
          raw_status: ignored ? 'FAIL (ignored)' : 'FAIL',
          outcome: ignored ? 'accepted' : 'fail',
          severity: severityFromWord(issue.severity),
          resource_type: text(issue.subType) ?? text(project.projectType) ?? undefined,
        }),
      );
    });
  });
  return { format: 'snyk-iac', tool: 'snyk', tool_version: null, results };
}
