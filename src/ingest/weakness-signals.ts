/**
 * Where results that no tool mapping covers land: vulnerability ids (CVE, GHSA) by severity, and
 * code weaknesses by CWE. A compact table kept here rather than in the registry sources because it
 * maps classes of results, not rules of one tool; test/ingest/weakness-signals.test.ts checks that
 * every signal it names exists in the compiled registry. docs/ingest.md explains the choices.
 */
import type { Severity } from '../core/vocabulary.js';
import type { VulnerabilityKind } from './model.js';

/** Known vulnerabilities reported by scanners are not remediated: reaches the vulnerability-management controls of ten frameworks. */
const VULNERABILITY_OPEN = 'CSR-GEN-VULN-VULN-FINDINGS-OPEN-094';
/**
 * High-severity threat findings remain untriaged: the threat-detection signal, for what a threat
 * detector saw (GuardDuty, Security Command Center threats). Never a vulnerability's.
 */
const THREAT_FINDING_OPEN = 'CSR-GEN-VULN-THREAT-FINDINGS-OPEN-089';

/** Known flaws not patched in time (CMMC SI.L2-3.14.1, FedRAMP SI-2): every vulnerability is one. */
const FLAW_REMEDIATION = ['CSR-CMMC-VULN-FLAWS-UNPATCHED-104', 'CSR-FEDRAMP-VULN-FLAW-REMEDIATION-363'];

/** By what the vulnerability sits in: operating-system patching (CIS 7.3) or third-party components (CIS 16.5). */
const SIGNALS_BY_KIND: Record<VulnerabilityKind, readonly string[]> = {
  'os-package': ['CSR-CIS-VULN-OS-PATCHING-055'],
  host: ['CSR-CIS-VULN-OS-PATCHING-055'],
  dependency: ['CSR-CIS-DEV-TRUSTED-COMPONENTS-130'],
  image: [],
};

/** Critical and high vulnerabilities are the ones remediation deadlines are set for (CIS 7.7). */
const SEVERE_VULNERABILITY = ['CSR-CIS-VULN-REMEDIATION-059'];

/**
 * Signals of a vulnerability result (CVE, GHSA, an advisory a scanner lists) by what it sits in
 * and its severity: the cross-framework vulnerability signal, flaw remediation, the kind's own
 * signal, and remediation deadlines when critical or high. An unknown severity adds nothing.
 */
export function vulnerabilitySignals(kind: VulnerabilityKind | null | undefined, severity: Severity | null): readonly string[] {
  return [
    VULNERABILITY_OPEN,
    ...FLAW_REMEDIATION,
    ...(kind ? SIGNALS_BY_KIND[kind] : []),
    ...(severity === 'critical' || severity === 'high' ? SEVERE_VULNERABILITY : []),
  ];
}

/** The signal of a threat detection: active threat findings untriaged. */
export function threatSignals(): readonly string[] {
  return [THREAT_FINDING_OPEN];
}

interface WeaknessClass {
  name: string;
  cwes: readonly number[];
  signals: readonly string[];
}

/**
 * CWE classes and their signals. Together they cover the CWE Top 25 (2023 and 2024 lists) and
 * the usual SAST and secret-scanner weaknesses. Every class includes VULNERABILITY_OPEN, the
 * cross-framework signal, beside signals of its own kind.
 */
const WEAKNESS_CLASSES: readonly WeaknessClass[] = [
  {
    name: 'hard-coded secrets',
    cwes: [798, 259, 321, 260, 540, 547, 615],
    signals: ['CSR-GEN-DATA-HARDCODED-SECRETS-106', 'CSR-FEDRAMP-DEV-EMBEDDED-SECRETS-184'],
  },
  {
    name: 'injection and unvalidated input',
    cwes: [
      20, 22, 23, 35, 73, 74, 75, 77, 78, 79, 80, 88, 89, 90, 91, 93, 94, 95, 98, 113, 116, 117, 434, 470, 502, 564, 601, 611, 643, 776, 917, 918, 943, 1236,
      1321, 1336,
    ],
    signals: [
      VULNERABILITY_OPEN,
      'CSR-HITRUST-DEV-INPUT-VALIDATION-117',
      'CSR-FEDRAMP-DEV-INPUT-VALIDATION-393',
      'CSR-CIS-DEV-SECURE-DESIGN-135',
      'CSR-SOC2-DEV-INPUT-COMPLETENESS-040',
    ],
  },
  {
    name: 'memory safety and resource handling',
    cwes: [119, 120, 121, 122, 125, 131, 134, 190, 191, 362, 367, 400, 401, 415, 416, 476, 674, 704, 770, 787, 789, 835, 843, 1333],
    signals: [VULNERABILITY_OPEN, 'CSR-NISTCSF-DEV-SECURE-SDLC-080'],
  },
  {
    name: 'authentication, authorisation and sessions',
    cwes: [250, 269, 276, 284, 285, 287, 288, 290, 306, 307, 352, 384, 425, 521, 522, 565, 613, 639, 640, 732, 862, 863, 915, 1004, 1275],
    signals: [VULNERABILITY_OPEN, 'CSR-CIS-DEV-SECURE-DESIGN-135', 'CSR-HITRUST-ACCESS-FUNCTION-ACCESS-024'],
  },
  {
    name: 'weak cryptography',
    cwes: [261, 324, 325, 326, 327, 328, 329, 330, 331, 335, 338, 347, 759, 760, 780, 916, 1240],
    signals: [VULNERABILITY_OPEN, 'CSR-FEDRAMP-CRYPTO-FIPS-CRYPTOGRAPHY-348', 'CSR-CMMC-CRYPTO-NON-FIPS-CRYPTO-098'],
  },
  {
    name: 'unprotected transport',
    cwes: [5, 295, 296, 297, 299, 311, 319, 523, 614, 757],
    signals: [VULNERABILITY_OPEN, 'CSR-GEN-CRYPTO-WEAK-TLS-VERSION-050', 'CSR-CIS-CRYPTO-TRANSIT-ENCRYPTION-022'],
  },
  {
    name: 'exposure of sensitive information',
    cwes: [200, 201, 209, 212, 215, 312, 313, 315, 359, 497, 527, 530, 532, 538, 541, 548],
    signals: [VULNERABILITY_OPEN],
  },
  {
    // What DAST tools (ZAP) report of a web application's own protections: missing security
    // headers, framing, caching of sensitive pages (ZAP's older releases file them under CWE-16).
    name: 'web application protection settings',
    cwes: [16, 524, 525, 644, 693, 933, 1021],
    signals: [VULNERABILITY_OPEN],
  },
];

const SIGNALS_BY_CWE = new Map<string, readonly string[]>();
for (const weakness of WEAKNESS_CLASSES) for (const cwe of weakness.cwes) SIGNALS_BY_CWE.set(`CWE-${cwe}`, weakness.signals);

/** Every signal the table names, for the test that keeps it in step with the registry. */
export const WEAKNESS_TABLE_SIGNALS: readonly string[] = [
  ...new Set([
    VULNERABILITY_OPEN,
    THREAT_FINDING_OPEN,
    ...FLAW_REMEDIATION,
    ...Object.values(SIGNALS_BY_KIND).flat(),
    ...SEVERE_VULNERABILITY,
    ...WEAKNESS_CLASSES.flatMap((w) => w.signals),
  ]),
];

/** Every CWE the table covers. */
export const WEAKNESS_TABLE_CWES: ReadonlySet<string> = new Set(SIGNALS_BY_CWE.keys());

export const HARD_CODED_SECRET_CWE = 'CWE-798';

/** Signals of a result's CWE ids (the union over the classes they fall in), empty when none is covered. */
export function weaknessSignals(cwes: readonly string[]): readonly string[] {
  const signals = new Set<string>();
  for (const cwe of cwes) for (const signal of SIGNALS_BY_CWE.get(cwe) ?? []) signals.add(signal);
  return [...signals];
}

/**
 * Words in a SAST rule id that name its weakness, for rules that carry no CWE id (Semgrep before
 * 0.x wrote only a bare `cwe` tag). Tried only after tool mappings and CWE ids found nothing.
 */
const RULE_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/sqli|sql[-_.]?injection|formatted-sql|sql-string|tainted-sql/, 'CWE-89'],
  [/xss/, 'CWE-79'],
  [/command-injection|os-command|subprocess-injection|exec-injection/, 'CWE-78'],
  [/path-traversal|directory-traversal/, 'CWE-22'],
  [/ldap-injection/, 'CWE-90'],
  [/xpath-injection/, 'CWE-643'],
  [/xxe|external-entit/, 'CWE-611'],
  [/deserialization|xml-decoder|unsafe-yaml|pickle/, 'CWE-502'],
  [/response-splitting|crlf-injection/, 'CWE-113'],
  [/script-engine-injection|code-injection|eval-injection|template-injection/, 'CWE-94'],
  [/ssrf/, 'CWE-918'],
  [/csrf/, 'CWE-352'],
  [/open-redirect|unvalidated-redirect/, 'CWE-601'],
  [/weak-hash|use-of-md5|use-of-sha1|insecure-hash/, 'CWE-328'],
  [/padding-oracle|null-cipher|weak-cipher|des-is-deprecated|ecb-mode|custom-digest|weak-crypto/, 'CWE-327'],
  [/static-initialization-vector|static-iv/, 'CWE-329'],
  [/weak-ssl-context|insecure-hostname-verifier|insecure-trust-manager|cert-validation|tls-verify/, 'CWE-295'],
  [/unencrypted-socket|cleartext|plaintext-http/, 'CWE-319'],
  [/cookie-missing-httponly/, 'CWE-1004'],
  [/cookie-missing-secure/, 'CWE-614'],
  [/cookie-missing-samesite/, 'CWE-1275'],
  [/anonymous-ldap-bind|missing-authentication/, 'CWE-287'],
  [/hard-?coded|secret|password|api-key|access-key|private-key|token/, 'CWE-798'],
];

/** The CWE a SAST rule id's words name, or null. */
export function cweFromRuleWords(ruleId: string): string | null {
  const id = ruleId.toLowerCase();
  for (const [pattern, cwe] of RULE_WORDS) if (pattern.test(id)) return cwe;
  return null;
}
