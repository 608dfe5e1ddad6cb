/**
 * Exports of a stored gap analysis (spec 4.4): POST /v1/gap-analysis/:id/export (Variant A, body)
 * and GET /v1/gap-analysis/:id/export (Variant B, query). The answer is the file itself, no
 * envelope. The writer table (src/export/writers.ts) says per format what it is sent as, which tier
 * may ask for it and where it is produced: streamed from this thread as the socket drains, or
 * rendered whole in the worker pool and sent with backpressure. docs/exports.md describes each format.
 */
import { ApiError, invalidParameter } from '../core/errors.js';
import type { Reply, Route, RouteContext } from '../http/route.js';
import { exportHeader, registryEvidence } from '../export/model.js';
import { EXPORT_WRITERS } from '../export/writers.js';
import { ExportBody, ExportJsonFile, ExportQuery, type ExportFormat, type RenderExportTask, type ResolvedExportOptions } from '../schemas/export.js';
import { gapIndexOf } from '../gap/gap-index.js';
import { tierAtLeast } from '../tiers.js';
import { resolveFramework } from './query.js';
import { readAnalysis } from '../store/analyses.js';
import { hasCustomFrameworks } from '../custom-frameworks/account.js';
import { customControlsOf, withCustomEvidence } from '../custom-frameworks/export.js';

interface ExportRequest {
  format: ExportFormat;
  include_remediation?: boolean;
  include_evidence?: boolean;
  frameworks?: string[];
  /** How the framework filter is named in this variant, for error details. */
  frameworksParameter: string;
}

/**
 * Checks run cheapest first and before the analysis is read: the format's tier (403), framework
 * codes the registry does not know (400); then the analysis (404 / 410) and whether the filter's
 * frameworks are in it (400).
 */
async function exportAnalysis(ctx: RouteContext, request: ExportRequest): Promise<Reply> {
  const { services, account } = ctx;
  const writer = EXPORT_WRITERS[request.format];
  if (!tierAtLeast(account.tier, writer.tier)) {
    throw new ApiError(
      'GAP_TIER_REQUIRED',
      { required_tier: writer.tier, current_tier: account.tier, format: request.format },
      { message: `The ${request.format} export requires the ${writer.tier} tier or above (current tier: ${account.tier})` },
    );
  }
  // A code the registry does not know may be one of the account's own frameworks, even one deleted
  // since: the analysis is what says (the check below).
  const requested = request.frameworks?.map((code) =>
    hasCustomFrameworks(account) && services.registry.resolveFrameworkCode(code) === undefined
      ? code.toUpperCase()
      : resolveFramework(services.registry, request.frameworksParameter, code, services.registry.gapFrameworkCodes()),
  );

  const now = services.now();
  const stored = await readAnalysis(services.analyses, ctx.params.id, account.name, now);
  const { entry } = stored;
  if (requested) {
    requested.forEach((code, i) => {
      if (!entry.frameworks.includes(code)) {
        throw invalidParameter(request.frameworksParameter, request.frameworks![i], {
          valid_values: entry.frameworks,
          reason: `framework ${code} is not part of analysis ${entry.id}`,
        });
      }
    });
  }
  const options: ResolvedExportOptions = {
    frameworks: requested && [...new Set(requested)],
    include_remediation: request.include_remediation ?? true,
    include_evidence: request.include_evidence ?? false,
  };
  const generatedAt = now.toISOString();
  const headers = {
    'Content-Type': writer.contentType,
    'Content-Disposition': `attachment; filename="${entry.id}.${writer.extension}"`,
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Analysis-Expires-At': entry.expires_at,
  };
  // The gap index holds every control's evidence in memory; a registry read per control costs far more.
  // An analysis of the account's own frameworks: their controls and evidence items, which the registry has not.
  const customControls = await customControlsOf(services.customFrameworks, services.registry, entry);
  const evidence = withCustomEvidence(registryEvidence(gapIndexOf(services.registry)), customControls);

  if (writer.runs === 'http-thread') {
    const header = exportHeader(request.format, entry.id, account.name, generatedAt, options);
    return { headers, stream: writer.stream({ payload: await stored.answer(), header, options, evidence }) };
  }
  // The stored copy is ours alone: transfer it to the worker rather than copy it again.
  const bytes = await stored.answer();
  const payload = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
  const task: RenderExportTask = { format: request.format, payload, options, account: account.name, generatedAt, ...(customControls && { customControls }) };
  const file = await services.pool.run('renderExport', task, [payload.buffer as ArrayBuffer], ctx.closed);
  return { headers, file: Buffer.from(file.buffer, file.byteOffset, file.byteLength) };
}

function postExport(ctx: RouteContext<unknown, ExportBody>): Promise<Reply> {
  const { body } = ctx;
  return exportAnalysis(ctx, {
    format: body.format ?? 'json',
    include_remediation: body.options?.include_remediation,
    include_evidence: body.options?.include_evidence,
    frameworks: body.options?.frameworks,
    frameworksParameter: 'options.frameworks',
  });
}

function getExport(ctx: RouteContext<ExportQuery>): Promise<Reply> {
  const { query } = ctx;
  return exportAnalysis(ctx, {
    format: query.format ?? 'json',
    include_remediation: query.include_remediation,
    include_evidence: query.include_evidence,
    // ?frameworks=HIPAA&frameworks=SOC2 and ?frameworks=HIPAA,SOC2 both work.
    frameworks: query.frameworks
      ?.flatMap((value) => value.split(','))
      .map((code) => code.trim())
      .filter(Boolean),
    frameworksParameter: 'frameworks',
  });
}

const PRODUCES = Object.values(EXPORT_WRITERS).map((writer) => writer.contentType);
const ERRORS = ['GAP_NOT_FOUND', 'GAP_EXPIRED', 'GAP_TIER_REQUIRED', 'invalid_parameter', 'service_busy', 'task_timeout'] as const;

export const exportRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/gap-analysis/:id/export',
    // Pro reaches json and csv; the handler asks Teams for pdf and xlsx (docs/exports.md).
    tier: 'pro',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'gap-analysis',
    summary: 'Export a stored analysis as a json, csv, pdf or xlsx file (Variant A: options in the body)',
    body: ExportBody,
    produces: PRODUCES,
    bare: true,
    response: ExportJsonFile,
    errors: [...ERRORS, 'invalid_json'],
    handler: postExport,
  },
  {
    method: 'GET',
    path: '/v1/gap-analysis/:id/export',
    tier: 'teams',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'gap-analysis',
    summary: 'Export a stored analysis as a json, csv, pdf or xlsx file (Variant B: options in the query)',
    query: ExportQuery,
    produces: PRODUCES,
    bare: true,
    response: ExportJsonFile,
    errors: [...ERRORS],
    handler: getExport,
  },
];
