/**
 * The scanner formats as one table: for each, what it is, the tool that writes it, the media types
 * a client may send it with, how `format=auto` recognises it and the reader that turns it into
 * normalised results. Detection (read.ts), the route's accepted media types (src/api/
 * scanner-import.ts) and docs/ingest.md follow this table; test/ingest/formats.test.ts fails when
 * a row has no real-shaped fixture in test/fixtures/scans.
 *
 * Rows are in detection order: `auto` tries the rows of the file's syntax (JSON, delimited text,
 * XML) from the top and takes the first whose detection matches. Detection looks at the top level
 * and the first record only, so the more specific formats come before the general ones (Prowler's
 * ASFF before ASFF, trivy-operator reports before Trivy's own JSON).
 */
import type { ReadOutcome, ScanFormat } from './model.js';
import { asffFindings, isProwlerAsff, readAsff } from './readers/asff.js';
import { isAwsConfig, readAwsConfig } from './readers/aws-config.js';
import { readCheckov } from './readers/checkov.js';
import { isDefenderCsv, readDefenderCsv } from './readers/defender.js';
import { isGcpScc, readGcpScc } from './readers/gcp-scc.js';
import { isGrype, readGrype } from './readers/grype.js';
import { isGuardDuty, readGuardDuty } from './readers/guardduty.js';
import { isHdf, readHdf } from './readers/hdf.js';
import { isKics, readKics } from './readers/kics.js';
import { readKubeBench } from './readers/kube-bench.js';
import { isKubescape, readKubescape } from './readers/kubescape.js';
import { isNessus, NESSUS_SKIPPED_ELEMENTS, readNessus } from './readers/nessus.js';
import { readOcsf } from './readers/ocsf.js';
import { isProwlerV2Csv, isProwlerV2Json, readProwlerCsv, readProwlerNative, readProwlerV2Csv, readProwlerV2Json } from './readers/prowler.js';
import { readSarif } from './readers/sarif.js';
import { isSemgrep, readSemgrep } from './readers/semgrep.js';
import { isSnyk, isSnykIac, readSnyk, readSnykIac } from './readers/snyk.js';
import { isTfsec, readTfsec } from './readers/tfsec.js';
import { readTrivy } from './readers/trivy.js';
import { isTrivyOperator, readTrivyOperator } from './readers/trivy-operator.js';
import { isZap, readZap } from './readers/zap.js';
import { isObject, type Json, type JsonObject } from './shape.js';
import type { XmlDocument } from './xml.js';

export type ScanSyntax = 'json' | 'delimited' | 'xml';

interface RowFacts {
  /** The format as its users name it. */
  label: string;
  /** The registry tool id of the tool that writes it, or `*` when many tools write it (SARIF, OCSF, ASFF). */
  tool: string;
  /** Media types the format is sent with, beside the generic ones every format accepts (GENERIC_MEDIA_TYPES). */
  media_types: readonly string[];
}

export interface JsonReaderRow extends RowFacts {
  syntax: 'json';
  detect(doc: Json): boolean;
  read(doc: Json): ReadOutcome;
}

export interface DelimitedReaderRow extends RowFacts {
  syntax: 'delimited';
  /** Sees the header's column names, trimmed and upper-cased. */
  detect(columns: ReadonlySet<string>): boolean;
  read(bytes: Uint8Array): ReadOutcome;
}

export interface XmlReaderRow extends RowFacts {
  syntax: 'xml';
  /** Elements the reader never reads, kept unparsed (their text can be most of a file). */
  skipped_elements?: readonly string[];
  detect(doc: XmlDocument): boolean;
  read(doc: XmlDocument): ReadOutcome;
}

export type ScanReaderRow = JsonReaderRow | DelimitedReaderRow | XmlReaderRow;

/**
 * What any scanner file may come as: `curl --data-binary @scan.json` sends
 * application/x-www-form-urlencoded, and many clients send files as octet-stream or text/plain.
 */
export const GENERIC_MEDIA_TYPES = ['text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded'] as const;

const JSON_TYPES = ['application/json'] as const;
const NDJSON_TYPES = ['application/json', 'application/x-ndjson'] as const;
const CSV_TYPES = ['text/csv'] as const;
const XML_TYPES = ['application/xml', 'text/xml'] as const;

export const firstObject = (doc: Json): JsonObject | undefined => (Array.isArray(doc) ? doc.find(isObject) : isObject(doc) ? doc : undefined);

function firstAsff(doc: Json): JsonObject | undefined {
  return asffFindings(doc)?.findings.find(isObject);
}

function isAsff(doc: Json): boolean {
  const first = firstAsff(doc);
  return !!first && typeof first.SchemaVersion === 'string' && typeof first.ProductArn === 'string';
}

/** An OCSF event's `metadata.product.name`, or '' */
function productName(event: JsonObject): string {
  const metadata = event.metadata;
  const product = isObject(metadata) ? metadata.product : undefined;
  return isObject(product) && typeof product.name === 'string' ? product.name : '';
}

function isOcsf(doc: Json): boolean {
  const first = firstObject(doc);
  return !!first && typeof first.class_uid === 'number' && isObject(first.metadata);
}

function isTrivy(doc: Json): boolean {
  if (isObject(doc))
    return (
      (doc.SchemaVersion !== undefined && (Array.isArray(doc.Results) || typeof doc.ArtifactName === 'string')) ||
      typeof doc.ClusterName === 'string' ||
      Array.isArray(doc.Resources)
    );
  const first = firstObject(doc);
  return !!first && typeof first.Target === 'string' && ['Vulnerabilities', 'Misconfigurations', 'Secrets', 'Class'].some((key) => key in first);
}

function isCheckov(doc: Json): boolean {
  const first = firstObject(doc);
  return !!first && typeof first.check_type === 'string' && (isObject(first.results) || isObject(first.summary));
}

function isKubeBench(doc: Json): boolean {
  return (isObject(doc) && Array.isArray(doc.Controls)) || (Array.isArray(doc) && !!firstObject(doc) && Array.isArray(firstObject(doc)!.tests));
}

export const SCAN_READERS: Readonly<Record<ScanFormat, ScanReaderRow>> = {
  sarif: {
    label: 'SARIF 2.1.0 (any tool: CodeQL, Semgrep, Trivy, Gitleaks, Snyk Code…)',
    tool: '*',
    media_types: ['application/sarif+json', ...JSON_TYPES],
    syntax: 'json',
    detect: (doc) => isObject(doc) && Array.isArray(doc.runs) && (doc.version === '2.1.0' || /sarif/i.test(String(doc.$schema ?? ''))),
    read: readSarif,
  },
  'prowler-asff': {
    label: 'Prowler JSON-ASFF',
    tool: 'prowler',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: (doc) => isAsff(doc) && isProwlerAsff(firstAsff(doc)!),
    read: (doc) => readAsff(doc, 'prowler-asff'),
  },
  asff: {
    label: 'AWS Security Finding Format (Security Hub, Inspector, GuardDuty, other products)',
    tool: 'aws-security-hub',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isAsff,
    read: (doc) => readAsff(doc, 'asff'),
  },
  'prowler-ocsf': {
    label: 'Prowler 4/5 JSON-OCSF',
    tool: 'prowler',
    media_types: NDJSON_TYPES,
    syntax: 'json',
    detect: (doc) => isOcsf(doc) && /^prowler$/i.test(productName(firstObject(doc)!)),
    read: (doc) => readOcsf(doc, 'prowler-ocsf'),
  },
  ocsf: {
    label: 'OCSF findings (2002 vulnerability, 2003 compliance, 2004 detection)',
    tool: '*',
    media_types: NDJSON_TYPES,
    syntax: 'json',
    detect: isOcsf,
    read: (doc) => readOcsf(doc, 'ocsf'),
  },
  'prowler-native': {
    label: 'Prowler 3 JSON',
    tool: 'prowler',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: (doc) => Array.isArray(doc) && !!firstObject(doc) && 'CheckID' in firstObject(doc)! && 'Status' in firstObject(doc)!,
    read: readProwlerNative,
  },
  'prowler-v2-json': {
    label: 'Prowler 2 JSON (one object per line, "Control ID")',
    tool: 'prowler',
    media_types: NDJSON_TYPES,
    syntax: 'json',
    detect: isProwlerV2Json,
    read: readProwlerV2Json,
  },
  guardduty: {
    label: 'Amazon GuardDuty findings (GetFindings, native JSON)',
    tool: 'aws-guardduty',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isGuardDuty,
    read: readGuardDuty,
  },
  'aws-config': {
    label: 'AWS Config rule evaluations (GetComplianceDetailsByConfigRule / ByResource)',
    tool: 'aws-config',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isAwsConfig,
    read: readAwsConfig,
  },
  'gcp-scc': {
    label: 'Google Security Command Center findings (gcloud scc findings list, ListFindings)',
    tool: 'google-scc',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isGcpScc,
    read: readGcpScc,
  },
  checkov: {
    label: 'Checkov JSON',
    tool: 'checkov',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isCheckov,
    read: readCheckov,
  },
  'trivy-operator': {
    label: 'trivy-operator reports (VulnerabilityReport, ConfigAuditReport, ClusterComplianceReport… as kubectl writes them)',
    tool: 'trivy',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isTrivyOperator,
    read: readTrivyOperator,
  },
  trivy: {
    label: 'Trivy JSON',
    tool: 'trivy',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isTrivy,
    read: readTrivy,
  },
  grype: {
    label: 'Grype JSON',
    tool: 'grype',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isGrype,
    read: readGrype,
  },
  snyk: {
    label: 'Snyk Open Source and Container JSON (snyk test --json)',
    tool: 'snyk',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isSnyk,
    read: readSnyk,
  },
  'snyk-iac': {
    label: 'Snyk IaC JSON (snyk iac test --json)',
    tool: 'snyk',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isSnykIac,
    read: readSnykIac,
  },
  semgrep: {
    label: 'Semgrep JSON',
    tool: 'semgrep',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isSemgrep,
    read: readSemgrep,
  },
  tfsec: {
    label: 'tfsec JSON',
    tool: 'tfsec',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isTfsec,
    read: readTfsec,
  },
  kics: {
    label: 'KICS JSON',
    tool: 'kics',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isKics,
    read: readKics,
  },
  kubescape: {
    label: 'Kubescape JSON',
    tool: 'kubescape',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isKubescape,
    read: readKubescape,
  },
  hdf: {
    label: 'InSpec JSON / Heimdall Data Format',
    tool: 'inspec',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isHdf,
    read: readHdf,
  },
  zap: {
    label: 'OWASP ZAP JSON report',
    tool: 'zap',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isZap,
    read: readZap,
  },
  'kube-bench': {
    label: 'kube-bench JSON',
    tool: 'kube-bench',
    media_types: JSON_TYPES,
    syntax: 'json',
    detect: isKubeBench,
    read: readKubeBench,
  },
  'prowler-csv': {
    label: 'Prowler 3+ CSV',
    tool: 'prowler',
    media_types: CSV_TYPES,
    syntax: 'delimited',
    detect: (columns) => columns.has('CHECK_ID'),
    read: readProwlerCsv,
  },
  'prowler-v2-csv': {
    label: 'Prowler 2 CSV (check11, extra7xx)',
    tool: 'prowler',
    media_types: CSV_TYPES,
    syntax: 'delimited',
    detect: isProwlerV2Csv,
    read: readProwlerV2Csv,
  },
  'defender-csv': {
    label: 'Microsoft Defender for Cloud recommendations CSV (portal export)',
    tool: 'microsoft-defender-for-cloud',
    media_types: CSV_TYPES,
    syntax: 'delimited',
    detect: isDefenderCsv,
    read: readDefenderCsv,
  },
  nessus: {
    label: 'Nessus .nessus XML (NessusClientData_v2)',
    tool: 'nessus',
    media_types: XML_TYPES,
    syntax: 'xml',
    skipped_elements: NESSUS_SKIPPED_ELEMENTS,
    detect: isNessus,
    read: readNessus,
  },
};

/** Every media type some row accepts, with the generic ones: the scanner-import routes' `accepts`. */
export const SCAN_MEDIA_TYPES: readonly string[] = [...new Set([...Object.values(SCAN_READERS).flatMap((row) => row.media_types), ...GENERIC_MEDIA_TYPES])];

/** Elements every XML row leaves unread: parsing a file for detection skips them too. */
export const XML_SKIPPED_ELEMENTS: readonly string[] = [
  ...new Set(Object.values(SCAN_READERS).flatMap((row) => (row.syntax === 'xml' ? (row.skipped_elements ?? []) : []))),
];

export const SCAN_ROWS: ReadonlyArray<[ScanFormat, ScanReaderRow]> = Object.entries(SCAN_READERS) as Array<[ScanFormat, ScanReaderRow]>;
