/**
 * The shapes scanner ingest passes between its stages: a reader turns a scanner's file into
 * normalised results (one per rule evaluated on one resource), the converter turns results into
 * findings through the registry. docs/ingest.md describes the whole path.
 */
import type { FindingStatus, Severity } from '../core/vocabulary.js';

export { SCAN_FORMATS, type ScanFormat } from '../schemas/ingest.js';
import type { ScanFormat } from '../schemas/ingest.js';

/**
 * What a result says about its rule, reduced to the four outcomes the converter distinguishes:
 * fail (the condition is present), pass (checked and absent), accepted (a failure the user muted
 * or suppressed), other (manual, informational, warning, error: no verdict).
 */
export type ResultOutcome = 'fail' | 'pass' | 'accepted' | 'other';

export const VULNERABILITY_KINDS = ['os-package', 'dependency', 'image', 'host'] as const;
export type VulnerabilityKind = (typeof VULNERABILITY_KINDS)[number];

export interface NormalisedResult {
  /** Registry tool id when the tool is one we know (prowler, trivy…), else the tool's name in lower case. */
  tool: string;
  tool_version: string | null;
  /** The rule id as the file carries it. */
  rule_id: string;
  rule_title: string;
  /** The resource the rule was evaluated on (ARN, file and line, image and package…). */
  resource: string;
  /** The status word as the file carries it (FAIL, PASSED, WARN, MUTED…). */
  raw_status: string;
  outcome: ResultOutcome;
  severity: Severity | null;
  /** The tool's numeric severity on a 0–100 scale, when it gives one (CVSS × 10, ASFF Normalized). */
  severity_score: number | null;
  /** ISO 8601 with a zone, or null when the file gives no time. */
  observed_at: string | null;
  /** CWE ids (CWE-798) the result or its rule carries. */
  cwe: string[];
  /**
   * The vulnerability id of a vulnerability result: CVE-…, GHSA-…, or the advisory id a
   * vulnerability scanner lists in its vulnerabilities (Debian TEMP-…, ALAS-…). Null for rules.
   */
  cve: string | null;
  /** Other spellings of the rule id the file itself supports (a kube-bench benchmark's other versions). */
  rule_alternates?: string[];
  /**
   * What a vulnerability sits in, when the tool says: an operating-system package (of a host or an
   * image), a language dependency, a container image or a host as a whole. Chooses the
   * vulnerability-management signals beside the cross-framework one (weakness-signals.ts).
   */
  vulnerability_kind?: VulnerabilityKind;
  /** NIST SP 800-53 control ids the tool itself claims the rule checks (InSpec/HDF `tags.nist`). */
  nist_controls?: string[];
  /** A threat detection (GuardDuty, Security Command Center threats): activity seen, not a setting. */
  threat?: boolean;
  /** Where the resource lives, for the finding's artifact. */
  provider?: string;
  resource_type?: string;
}

/** What a reader returns for one file. */
export interface ReadOutcome {
  format: ScanFormat;
  tool: string;
  tool_version: string | null;
  results: NormalisedResult[];
}

/** A finding as ingest writes it: the spec 2.6 shape plus where it came from. */
export interface ImportedFinding {
  id: string;
  signal_id: string;
  status: FindingStatus;
  observed_at?: string;
  severity?: { level: Severity; score?: number };
  artifact?: { type?: string; id?: string; provider?: string };
  source: { tool: string; rule_id: string; rule_title: string; resource: string; raw_status: string };
}

export interface UnmappedRule {
  tool: string;
  rule_id: string;
  title: string;
  /** Results of this rule in the file, whatever their status. */
  results: number;
  /** Of those, failing ones. */
  failed: number;
}

export interface ImportSummary {
  results: number;
  findings: number;
  failed: number;
  passed: number;
  /** Muted or suppressed failures, imported as `accepted`. */
  accepted: number;
  /** Manual, informational, warning, error… results: no finding, counted here by status word. */
  other: number;
  other_statuses: Record<string, number>;
  /** Results whose rule resolved to no signal. */
  unmapped: number;
  /** Distinct rules that resolved to no signal (`unmapped[]` lists the first UNMAPPED_RULES_LISTED). */
  unmapped_rules: number;
  /** Results folded into another finding of the same rule, resource and signal. */
  duplicates: number;
  /** How recognised results resolved: tool mapping, vulnerability id, CWE, tool category. */
  resolved_by: Record<string, number>;
}

export interface ImportResult {
  format: ScanFormat;
  tool: string;
  tool_version: string | null;
  findings: ImportedFinding[];
  unmapped: UnmappedRule[];
  summary: ImportSummary;
}
