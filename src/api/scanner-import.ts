/**
 * Scanner import: a scanner's own output file (the body, as the tool wrote it) → findings, or
 * straight into a stored gap analysis. Parsing runs in the worker pool; a small file runs inline,
 * as a small analysis does (docs/ingest.md).
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../core/errors.js';
import type { Route, RouteContext } from '../http/route.js';
import { importAnalysis, importFindings, type ImportAnalysisTask, type ImportFindingsOutput, type ImportFindingsTask } from '../ingest/import.js';
import type { AnalyzeOutput } from '../gap/analyze.js';
import { AnalysisImportMeta, FindingsImportData, FindingsImportMeta, ScanFormatChoice } from '../schemas/ingest.js';
import { SCAN_MEDIA_TYPES } from '../ingest/formats.js';
import { AnalysisResultData } from '../schemas/gap-result.js';
import { INLINE_ANALYSIS_MAX_BYTES, ownedBytes, runAndStore } from './gap-analysis.js';
import { VariantQuery } from './result-variant.js';
import type { FormatChoice } from '../ingest/read.js';
import type { AnalysisOptions } from '../gap/engine.js';
import type { CustomFrameworksOfTask } from '../gap/analyze.js';
import { customFrameworksOfTask } from '../custom-frameworks/account.js';
import { Scope } from '../schemas/gap.js';

// The body is the file as the scanner wrote it, with whatever Content-Type the client chooses among
// the readers' table's (SCAN_MEDIA_TYPES) and the generic ones (curl --data-binary sends
// x-www-form-urlencoded); the format comes from `format`, never from the type.
const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

const FindingsImportQuery = Type.Object({ format: ScanFormatChoice });

const AnalysisImportQuery = Type.Object({
  format: ScanFormatChoice,
  frameworks: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    maxItems: 20,
    description: 'Framework codes, comma-separated (frameworks=HIPAA,SOC2) or repeated',
  }),
  include_resolved: Type.Boolean({ default: true, description: 'Count passing results as evidence (default true here: docs/ingest.md)' }),
  min_confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  include_remediation: Type.Optional(Type.Boolean()),
  include_evidence_requirements: Type.Optional(Type.Boolean()),
  include_cross_framework: Type.Optional(Type.Boolean()),
  max_evidence_age_days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 3650, description: 'Passing results older than this many days earn no credit (default 90, docs/scoring.md)' }),
  ),
  scope: Type.Optional(Scope),
  ...VariantQuery,
});

async function runImportFindings(ctx: RouteContext, task: ImportFindingsTask): Promise<ImportFindingsOutput> {
  if (task.body.byteLength <= INLINE_ANALYSIS_MAX_BYTES) return importFindings(ctx.services.registry, task);
  const body = ownedBytes(task.body);
  return ctx.services.pool.run('importFindings', { ...task, body }, [body.buffer as ArrayBuffer], ctx.closed);
}

async function runImportAnalysis(ctx: RouteContext, task: ImportAnalysisTask): Promise<AnalyzeOutput> {
  if (task.body.byteLength <= INLINE_ANALYSIS_MAX_BYTES) return importAnalysis(ctx.services.registry, task);
  const body = ownedBytes(task.body);
  return ctx.services.pool.run('importAnalysis', { ...task, body }, [body.buffer as ArrayBuffer], ctx.closed);
}

async function findingsImport(ctx: RouteContext) {
  const query = ctx.query as { format: FormatChoice };
  const output = await runImportFindings(ctx, { body: ctx.rawBody ?? new Uint8Array(), format: query.format });
  if (!output.ok) throw new ApiError(output.error.code, output.error.details, { message: output.error.message });
  return { headers: JSON_TYPE, file: Buffer.from(output.payload.buffer, output.payload.byteOffset, output.payload.byteLength) };
}

const IMPORT_OPERATION = 'POST /v1/gap-analysis/import';

async function analysisImport(ctx: RouteContext) {
  const query = ctx.query as { format: FormatChoice; frameworks: string[]; variant?: string; scope?: string } & Partial<AnalysisOptions>;
  // `variant` shapes the answer (runAndStore reads it from the query), not the analysis.
  const { format, frameworks, variant: _variant, scope, ...options } = query;
  const codes = frameworks
    .flatMap((value) => value.split(','))
    .map((code) => code.trim())
    .filter(Boolean);
  // The account's own frameworks the query names go with the analysis (docs/custom-frameworks.md).
  const { services, account } = ctx;
  const custom = await customFrameworksOfTask(services.customFrameworks, services.registry, account, (code) =>
    codes.some((named) => named.toUpperCase() === code),
  );
  // A retry must name the same file, format, frameworks and options; `variant` only shapes the answer.
  const operation = { name: IMPORT_OPERATION, parameters: { format, frameworks: codes, ...options, ...(scope !== undefined && { scope }) } };
  return runAndStore(
    ctx,
    (id, createdAt) => {
      const task: ImportAnalysisTask & { custom?: CustomFrameworksOfTask } = {
        body: ctx.rawBody ?? new Uint8Array(),
        format,
        tier: account.tier,
        id,
        createdAt,
        frameworks: codes,
        options,
        ...(scope !== undefined && { scope }),
        ...(custom && { custom }),
      };
      return runImportAnalysis(ctx, task);
    },
    operation,
  );
}

export const scannerImportRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/findings/import',
    tier: 'pro',
    tag: 'scanner-import',
    summary:
      "Convert a scanner's output file into findings: Prowler, Security Hub, GuardDuty, AWS Config, Security Command Center, Defender for Cloud, OCSF, SARIF, Checkov, tfsec, KICS, Trivy and trivy-operator, Grype, Snyk, Semgrep, Kubescape, kube-bench, InSpec/HDF, Nessus, ZAP (docs/ingest.md)",
    query: FindingsImportQuery,
    rawBody: true,
    accepts: SCAN_MEDIA_TYPES,
    bodyLimit: 'analysis',
    pooled: { bodiesOver: INLINE_ANALYSIS_MAX_BYTES },
    response: FindingsImportData,
    meta: FindingsImportMeta,
    errors: ['scan_unreadable', 'json_too_deep', 'service_busy', 'task_timeout'],
    handler: findingsImport,
  },
  {
    method: 'POST',
    path: '/v1/gap-analysis/import',
    tier: 'pro',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'gap-analysis',
    summary: "Convert a scanner's output file into findings and run a stored gap analysis over them (meta.import: summary and unmapped rules)",
    query: AnalysisImportQuery,
    rawBody: true,
    accepts: SCAN_MEDIA_TYPES,
    bodyLimit: 'analysis',
    pooled: { bodiesOver: INLINE_ANALYSIS_MAX_BYTES },
    response: AnalysisResultData,
    meta: AnalysisImportMeta,
    headers: ['X-Analysis-Expires-At', 'Server-Timing'],
    errors: [
      'scan_unreadable',
      'GAP_FRAMEWORK_NOT_FOUND',
      'GAP_TOO_MANY_FINDINGS',
      'GAP_TOO_MANY_FRAMEWORKS',
      'GAP_TIER_REQUIRED',
      'json_too_deep',
      'service_busy',
      'task_timeout',
    ],
    handler: analysisImport,
  },
];
