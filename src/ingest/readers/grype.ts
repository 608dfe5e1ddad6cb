/**
 * Grype JSON (`grype -o json`): `matches[]`, each a vulnerability matched to a package. The
 * severity is Grype's own (from the vulnerability's namespace: the distribution's rating for OS
 * packages), then the highest CVSS base score. Operating-system packages (deb, rpm, apk…) and
 * language dependencies (npm, python, java-archive…) map to their own vulnerability signals.
 */
import type { NormalisedResult, ReadOutcome, VulnerabilityKind } from '../model.js';
import { numberFrom, severityFromCvss, severityFromWord, vulnerabilityId } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('grype');

/** Syft's package types of operating-system package managers. */
const OS_PACKAGE_TYPES = new Set(['deb', 'rpm', 'apk', 'alpm', 'portage', 'linux-kernel', 'linux-kernel-module', 'nix']);

export function isGrype(doc: Json): boolean {
  if (!isObject(doc) || !Array.isArray(doc.matches)) return false;
  const descriptor = isObject(doc.descriptor) ? doc.descriptor : {};
  const first = doc.matches.find(isObject);
  return text(descriptor.name) === 'grype' || (!!first && isObject(first.vulnerability) && isObject(first.artifact));
}

function highestCvss(...holders: JsonObject[]): number | null {
  let best: number | null = null;
  for (const holder of holders) {
    for (const cvss of Array.isArray(holder.cvss) ? holder.cvss.filter(isObject) : []) {
      const metrics = isObject(cvss.metrics) ? cvss.metrics : {};
      const score = numberFrom(metrics.baseScore);
      if (score !== null && (best === null || score > best)) best = score;
    }
  }
  return best;
}

function targetOf(source: JsonObject): string {
  const target = source.target;
  if (typeof target === 'string') return target;
  return isObject(target) ? (text(target.userInput) ?? text(target.path) ?? '') : '';
}

export function readGrype(doc: Json): ReadOutcome {
  const root = shape.object(doc, '');
  const descriptor = isObject(root.descriptor) ? root.descriptor : {};
  const version = text(descriptor.version);
  const source = isObject(root.source) ? root.source : {};
  const target = targetOf(source);
  const results: NormalisedResult[] = shape.array(root.matches, '/matches').map((value, index) => {
    const pointer = at('/matches', index);
    const match = shape.object(value, pointer);
    const vulnerability = shape.object(match.vulnerability, at(pointer, 'vulnerability'));
    const artifact = shape.object(match.artifact, at(pointer, 'artifact'));
    const id = shape.string(vulnerability.id, at(at(pointer, 'vulnerability'), 'id'));
    const related = Array.isArray(match.relatedVulnerabilities) ? match.relatedVulnerabilities.filter(isObject) : [];
    const score = highestCvss(vulnerability, ...related);
    const packageType = text(artifact.type) ?? '';
    const kind: VulnerabilityKind = OS_PACKAGE_TYPES.has(packageType)
      ? 'os-package'
      : packageType
        ? 'dependency'
        : source.type === 'image'
          ? 'image'
          : 'dependency';
    const pkg = `${text(artifact.name) ?? ''}${text(artifact.version) ? `@${text(artifact.version)}` : ''}`;
    const fix = isObject(vulnerability.fix) ? text(vulnerability.fix.state) : null;
    const relatedCve = related.map((r) => vulnerabilityId(r.id)).find((r) => r?.startsWith('CVE-'));
    return result({
      tool: 'grype',
      tool_version: version,
      rule_id: id,
      rule_title: text(vulnerability.description)?.split('\n')[0].slice(0, 200) ?? `${id} in ${pkg}`,
      resource: [target, pkg].filter(Boolean).join(' '),
      raw_status: fix ? `DETECTED (${fix})` : 'DETECTED',
      outcome: 'fail',
      // Grype's own rating first; "Negligible" is info, "Unknown" none.
      severity: severityFromWord(vulnerability.severity) ?? (score === null ? null : severityFromCvss(score)),
      severity_score: score === null ? null : Math.round(score * 10),
      cve: vulnerabilityId(id) ?? relatedCve ?? id,
      vulnerability_kind: kind,
      rule_alternates: relatedCve && relatedCve !== id ? [relatedCve] : undefined,
      resource_type: 'package',
    });
  });
  return { format: 'grype', tool: 'grype', tool_version: version, results };
}
