/**
 * Values scanners write in their own words, read into the spec's: severity levels, result
 * outcomes and time stamps with a zone. docs/ingest.md has the tables.
 */
import type { Severity } from '../core/vocabulary.js';
import type { ResultOutcome } from './model.js';

const SEVERITY_WORDS: Record<string, Severity> = {
  critical: 'critical',
  high: 'high',
  important: 'high',
  error: 'high',
  medium: 'medium',
  moderate: 'medium',
  warning: 'medium',
  low: 'low',
  note: 'low',
  minor: 'low',
  informational: 'info',
  information: 'info',
  info: 'info',
  negligible: 'info',
  none: 'info',
};

/** A severity word in any case (Informational, MEDIUM, moderate), or null for unknown/absent. */
export function severityFromWord(word: unknown): Severity | null {
  if (typeof word !== 'string') return null;
  return SEVERITY_WORDS[word.trim().toLowerCase()] ?? null;
}

/** A CVSS-style score 0–10 (7.5 → high), the bands of CVSS v3. */
export function severityFromCvss(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'info';
}

/** A number written as a number or as text ("7.5"), or null. */
export function numberFrom(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}

const FAIL_WORDS = new Set(['fail', 'failed', 'failure', 'non_compliant', 'noncompliant', 'unhealthy', 'violation']);
const PASS_WORDS = new Set(['pass', 'passed', 'success', 'compliant', 'healthy']);

/**
 * FAIL → fail, PASS → pass; everything else (MANUAL, INFO, WARN, WARNING, SKIPPED, ERROR,
 * NOT_AVAILABLE…) is a result without a verdict. Muted results are the reader's call: only it
 * knows which field says so.
 */
export function outcomeFromStatus(word: string): ResultOutcome {
  const key = word
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (FAIL_WORDS.has(key)) return 'fail';
  if (PASS_WORDS.has(key)) return 'pass';
  return 'other';
}

const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?/;

/**
 * A time stamp as ISO 8601 with a zone. A time without a zone is read as UTC (scanners write UTC:
 * Prowler's CSV and OCSF `_dt` fields, kube-bench); epoch numbers are seconds, or milliseconds
 * when too large to be seconds. Null when the value is absent or not a time.
 */
export function timestampFrom(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    const ms = value < 1e11 ? value * 1000 : value;
    const date = new Date(ms);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  const match = DATE_TIME.exec(trimmed);
  if (!match) return null;
  const iso = HAS_ZONE.test(trimmed) ? trimmed.replace(' ', 'T') : `${match[1]}T${match[2] ?? '00:00:00'}Z`;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** CWE ids from tags, taxa or fields written in any of the usual ways (CWE-79, "CWE-79: …", cwe_79, external/cwe/cwe-079). */
export function cweIdsFrom(values: readonly unknown[]): string[] {
  const ids = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    for (const match of String(value).matchAll(/cwe[\s/_:-]*0*(\d{1,5})/gi)) ids.add(`CWE-${match[1]}`);
  }
  return [...ids];
}

/** Published vulnerability ids: CVE, GitHub advisories, and the OSV databases' own (PYSEC, GO, RUSTSEC, OSV…). */
const VULNERABILITY_ID_SOURCE = String.raw`CVE-\d{4}-\d{4,}|GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}|(?:PYSEC|GO|RUSTSEC|OSV|GSD|MAL|RSEC|DSA|DLA|USN|ALAS|ALAS2|ELSA|RHSA)-\d{4}-[0-9a-z-]+|ALSA-\d{4}:\d+`;
const VULNERABILITY_ID = new RegExp(`^(${VULNERABILITY_ID_SOURCE})$`, 'i');
const VULNERABILITY_ID_IN_TEXT = new RegExp(`(?:^|[^A-Za-z0-9])(${VULNERABILITY_ID_SOURCE})(?![A-Za-z0-9])`, 'gi');

/** The id itself when it names a published vulnerability (CVE or GitHub advisory), upper-cased for CVE. */
export function vulnerabilityId(id: unknown): string | null {
  if (typeof id !== 'string') return null;
  const trimmed = id.trim();
  if (!VULNERABILITY_ID.test(trimmed)) return null;
  return /^cve-/i.test(trimmed) ? trimmed.toUpperCase() : trimmed;
}

/**
 * Vulnerability ids written inside other text, as tools write them: a SARIF rule id
 * `CVE-2018-14618/curl`, a tag `security/cve-2021-44228`, a title "… (CVE-2023-1234)".
 * The CVE ids first, then the others, each once, CVE ids upper-cased.
 */
export function vulnerabilityIdsIn(values: readonly unknown[]): string[] {
  const found = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string') continue;
    for (const match of value.matchAll(VULNERABILITY_ID_IN_TEXT)) {
      const id = match[1];
      found.add(/^cve-/i.test(id) ? id.toUpperCase() : id);
    }
  }
  return [...found].sort((a, b) => Number(!a.startsWith('CVE-')) - Number(!b.startsWith('CVE-')));
}
