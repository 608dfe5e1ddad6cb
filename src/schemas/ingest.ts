/** Response schemas of scanner import (docs/ingest.md), for the OpenAPI document. */
import { Type } from '@sinclair/typebox';
import { AnalysisResultMeta, NotRecognisedResults } from './gap-result.js';
import { FINDING_STATUSES, SEVERITIES } from '../core/vocabulary.js';
import { StringEnum } from './string-enum.js';

/** Every format a scanner-import reader understands; `auto` detects one of them. */
export const SCAN_FORMATS = [
  'prowler-ocsf',
  'prowler-asff',
  'prowler-csv',
  'prowler-native',
  'asff',
  'ocsf',
  'sarif',
  'checkov',
  'trivy',
  'kube-bench',
  'prowler-v2-csv',
  'prowler-v2-json',
  'guardduty',
  'aws-config',
  'gcp-scc',
  'trivy-operator',
  'grype',
  'snyk',
  'snyk-iac',
  'semgrep',
  'tfsec',
  'kics',
  'kubescape',
  'hdf',
  'zap',
  'defender-csv',
  'nessus',
] as const;
export type ScanFormat = (typeof SCAN_FORMATS)[number];

export const ScanFormatChoice = StringEnum(['auto', ...SCAN_FORMATS] as const, {
  default: 'auto',
  description: 'The file format; auto detects it (docs/ingest.md)',
});

export const ImportedFindingSchema = Type.Object({
  id: Type.String({ description: 'Stable per tool, rule, resource and signal' }),
  signal_id: Type.String(),
  status: StringEnum(FINDING_STATUSES),
  observed_at: Type.Optional(Type.String({ format: 'date-time' })),
  severity: Type.Optional(Type.Object({ level: StringEnum(SEVERITIES), score: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })) })),
  artifact: Type.Optional(Type.Object({ type: Type.Optional(Type.String()), id: Type.Optional(Type.String()), provider: Type.Optional(Type.String()) })),
  source: Type.Object({ tool: Type.String(), rule_id: Type.String(), rule_title: Type.String(), resource: Type.String(), raw_status: Type.String() }),
});

export const UnmappedRuleSchema = Type.Object({
  tool: Type.String(),
  rule_id: Type.String(),
  title: Type.String(),
  results: Type.Integer({ description: 'Results of the rule in the file' }),
  failed: Type.Integer({ description: 'Of which failing' }),
});

export const ImportSummarySchema = Type.Object({
  results: Type.Integer(),
  findings: Type.Integer(),
  failed: Type.Integer(),
  passed: Type.Integer(),
  accepted: Type.Integer({ description: 'Muted or suppressed failures' }),
  other: Type.Integer({ description: 'Manual, informational, warning… results: no finding' }),
  other_statuses: Type.Record(Type.String(), Type.Integer(), {
    description: 'Results that make no finding, by status word: at most 20 words named, the results of any others under "(other status words)"',
  }),
  unmapped: Type.Integer({ description: 'Results whose rule resolved to no signal' }),
  unmapped_rules: Type.Integer({ description: 'Distinct rules that resolved to no signal; `unmapped` lists at most 100 of them, most failures first' }),
  duplicates: Type.Integer({ description: 'Results folded into an earlier finding of the same rule and resource' }),
  resolved_by: Type.Record(Type.String(), Type.Integer()),
});

export const FindingsImportData = Type.Object({
  format: StringEnum(SCAN_FORMATS),
  tool: Type.String(),
  tool_version: Type.Union([Type.String(), Type.Null()]),
  findings: Type.Array(ImportedFindingSchema),
  unmapped: Type.Array(UnmappedRuleSchema),
  summary: ImportSummarySchema,
});

export const FindingsImportMeta = Type.Object({
  format_requested: ScanFormatChoice,
  formats_considered: Type.Array(StringEnum(SCAN_FORMATS)),
  registry_version: Type.String(),
});

/** `meta.import` of POST /v1/gap-analysis/import: what the file held and how its rules resolved. */
export const AnalysisImportSchema = Type.Object({
  format: StringEnum(SCAN_FORMATS),
  tool: Type.String(),
  tool_version: Type.Union([Type.String(), Type.Null()]),
  format_requested: ScanFormatChoice,
  formats_considered: Type.Array(StringEnum(SCAN_FORMATS)),
  summary: ImportSummarySchema,
  unmapped: Type.Array(UnmappedRuleSchema),
  not_recognised: Type.Optional(NotRecognisedResults),
});

/** The create result's meta plus `import`. */
export const AnalysisImportMeta = Type.Composite([AnalysisResultMeta, Type.Object({ import: AnalysisImportSchema })]);
