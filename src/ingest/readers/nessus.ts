/**
 * Nessus `.nessus` XML (NessusClientData_v2, version 2 of the format): `Report/ReportHost` per
 * host, `ReportItem` per plugin result on a port. One result per item. Nessus's `severity`
 * attribute is its rating (4 critical, 3 high, 2 medium, 1 low, 0 informational: no verdict);
 * the CVSS base score (v3, else v2) is kept as the score. Items with `cve` elements are host
 * vulnerabilities named by their first CVE; others resolve through their CWE ids (`cwe`, `xref
 * CWE:79`). Compliance audits (`cm:compliance-result`) carry their own verdict.
 */
import type { Severity } from '../../core/vocabulary.js';
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { cweIdsFrom, numberFrom, outcomeFromStatus, timestampFrom, vulnerabilityId } from '../normalise.js';
import { ScanShapeError } from '../shape.js';
import { xmlChildren, xmlText, type XmlDocument, type XmlElement } from '../xml.js';
import { result } from './common.js';

/** Long text the reader does not read: parsed as raw text (formats.ts). */
export const NESSUS_SKIPPED_ELEMENTS = ['Policy', 'description', 'plugin_output', 'solution', 'synopsis', 'see_also'] as const;

const SEVERITY: Record<number, Severity> = { 0: 'info', 1: 'low', 2: 'medium', 3: 'high', 4: 'critical' };

export function isNessus(doc: XmlDocument): boolean {
  return doc.root === 'NessusClientData_v2';
}

function hostProperties(host: XmlElement): Map<string, string> {
  const properties = new Map<string, string>();
  for (const block of xmlChildren(host, 'HostProperties')) {
    for (const tag of xmlChildren(block, 'tag')) {
      const name = xmlText(tag, '@_name');
      const value = xmlText(tag);
      if (name && value) properties.set(name, value);
    }
  }
  return properties;
}

function texts(item: XmlElement, tag: string): string[] {
  return xmlChildren(item, tag)
    .map((child) => xmlText(child))
    .filter((value): value is string => !!value);
}

export function readNessus(doc: XmlDocument): ReadOutcome {
  if (!isNessus(doc)) throw new ScanShapeError('nessus', { line: 1 }, `must have the root element NessusClientData_v2 (found ${doc.root})`);
  const results: NormalisedResult[] = [];
  for (const report of xmlChildren(doc.element, 'Report')) {
    for (const host of xmlChildren(report, 'ReportHost')) {
      const properties = hostProperties(host);
      const hostName = properties.get('host-fqdn') ?? properties.get('hostname') ?? xmlText(host, '@_name') ?? properties.get('host-ip') ?? '';
      const observedAt = timestampFrom(nessusTime(properties.get('HOST_END') ?? properties.get('HOST_START')));
      for (const item of xmlChildren(host, 'ReportItem')) {
        const pluginId = xmlText(item, '@_pluginID');
        if (!pluginId) throw new ScanShapeError('nessus', {}, `has a ReportItem without pluginID on host ${hostName}`);
        const level = numberFrom(xmlText(item, '@_severity'));
        const port = xmlText(item, '@_port');
        const protocol = xmlText(item, '@_protocol');
        const cves = texts(item, 'cve')
          .map(vulnerabilityId)
          .filter((id): id is string => !!id);
        const score = numberFrom(xmlText(item, 'cvss3_base_score')) ?? numberFrom(xmlText(item, 'cvss_base_score'));
        const compliance = xmlText(item, 'cm:compliance-result');
        const outcome: NormalisedResult['outcome'] = compliance ? outcomeFromStatus(compliance) : level === 0 ? 'other' : 'fail';
        const severity = level === null ? null : (SEVERITY[level] ?? null);
        results.push(
          result({
            tool: 'nessus',
            tool_version: null,
            rule_id: compliance ? (xmlText(item, 'cm:compliance-check-id') ?? pluginId) : pluginId,
            rule_title: xmlText(item, 'cm:compliance-check-name') ?? xmlText(item, '@_pluginName') ?? xmlText(item, 'plugin_name') ?? '',
            resource: port && port !== '0' ? `${hostName}:${port}/${protocol ?? 'tcp'}` : hostName,
            raw_status: compliance ?? (severity === 'info' ? 'Info' : (xmlText(item, 'risk_factor') ?? 'Detected')),
            outcome,
            severity,
            severity_score: score === null ? null : Math.round(score * 10),
            observed_at: observedAt,
            cwe: cweIdsFrom([...texts(item, 'cwe').map((id) => `CWE-${id}`), ...texts(item, 'xref').filter((x) => /^CWE:/i.test(x))]),
            cve: cves[0] ?? null,
            vulnerability_kind: cves.length ? 'host' : undefined,
            resource_type: 'host',
          }),
        );
      }
    }
  }
  return { format: 'nessus', tool: 'nessus', tool_version: null, results };
}

/** Nessus writes host times as "Tue Mar 12 10:01:02 2024" (no zone: read as UTC). */
function nessusTime(value: string | undefined): string | null {
  if (!value) return null;
  const match = /^\w{3} (\w{3}) +(\d{1,2}) (\d{2}:\d{2}:\d{2}) (\d{4})$/.exec(value.trim());
  if (!match) return value;
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'].indexOf(match[1]) + 1;
  return month ? `${match[4]}-${String(month).padStart(2, '0')}-${match[2].padStart(2, '0')}T${match[3]}Z` : null;
}
