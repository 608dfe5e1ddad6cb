import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Type } from '@sinclair/typebox';
import { ApiError, invalidParameter } from '../core/errors.js';
import { StringEnum } from '../schemas/string-enum.js';
import type { Route, RouteContext } from '../http/route.js';
import { analyze, type AnalyzeOutput, type AnalyzeTask } from '../gap/analyze.js';
import { compareStored, type CompareTask } from '../gap/compare.js';
import { CompareBody, CreateAnalysisBody, type CompareBody as CompareBodyType } from '../schemas/gap.js';
import { AnalysisListData, AnalysisListMeta, AnalysisResultData, AnalysisResultMeta, ComparisonData, VersionOnlyMeta } from '../schemas/gap-result.js';
import { expiryOf, newAnalysisId, readAnalysis, type AnalysisIndexEntry } from '../store/analyses.js';
import { compressedForm, storedForm } from '../store/result-codec.js';
import { decodeCursor, encodeCursor } from '../store/list-cursor.js';
import { idempotencyRecord, idempotentRequest, replay, type IdempotentOperation } from './idempotency.js';
import { answerInVariant, requestedVariant, storedAnswer, VariantQuery } from './result-variant.js';
import { GAP_ANALYSIS_LIMITS } from '../tiers.js';
import { addFacts, customFrameworksOfTask, mayNameIn, ownFrameworks } from '../custom-frameworks/account.js';
import { analysisEvents } from '../posture/events.js';

/** Below this body size an analysis runs on the main thread: the hop to a worker costs more (bench/README). */
export const INLINE_ANALYSIS_MAX_BYTES = 16 * 1024;

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

async function runAnalysis(ctx: RouteContext, task: AnalyzeTask): Promise<AnalyzeOutput> {
  if (task.body.byteLength <= INLINE_ANALYSIS_MAX_BYTES) return analyze(ctx.services.registry, task);
  // With custom frameworks the body may be needed for a second run (runNamingCustom): send a copy.
  const owned = task.custom ? new Uint8Array(task.body) : ownedBytes(task.body);
  const { pool } = ctx.services;
  const answerMemory = pool.answerBuffers.take();
  try {
    const output = await pool.run(
      'analyze',
      { ...task, body: owned, answerMemory },
      answerMemory ? [owned.buffer as ArrayBuffer, answerMemory] : [owned.buffer as ArrayBuffer],
      ctx.closed,
    );
    if (output.unusedMemory) pool.answerBuffers.give(output.unusedMemory);
    return output;
  } catch (error) {
    // Refused before a thread took it (queue full, budget spent waiting), the memory is still ours;
    // once transferred it reads as empty and is not kept.
    if (answerMemory) pool.answerBuffers.give(answerMemory);
    throw error;
  }
}

/** Bytes that can be transferred to a worker: the body itself when it owns its memory; a pooled slice is copied first. */
export function ownedBytes(body: Uint8Array): Uint8Array {
  return body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
}

const CREATE_OPERATION = 'POST /v1/gap-analysis';

async function create(ctx: RouteContext) {
  const body = ctx.rawBody ?? new Uint8Array();
  const { services, account } = ctx;
  // The account's own frameworks whose codes the body holds go with the analysis (docs/custom-frameworks.md).
  const custom = await customFrameworksOfTask(services.customFrameworks, services.registry, account, mayNameIn(body));
  return runAndStore(ctx, (id, createdAt) => runNamingCustom(ctx, { body, tier: account.tier, id, createdAt, ...(custom && { custom }) }));
}

/**
 * Runs an analysis; when it names one of the account's frameworks in a spelling the look at the
 * body missed (neither upper nor lower case), once more with that framework's facts.
 */
async function runNamingCustom(ctx: RouteContext, task: AnalyzeTask): Promise<AnalyzeOutput> {
  const output = await runAnalysis(ctx, task);
  if (output.ok || !output.needsCustomFrameworks || !task.custom) return output;
  const { services, account } = ctx;
  await addFacts(services.customFrameworks, services.registry, account, task.custom, output.needsCustomFrameworks);
  const again = await runAnalysis(ctx, task);
  // Deleted between the two runs.
  if (!again.ok && again.needsCustomFrameworks)
    throw new ApiError('GAP_FRAMEWORK_NOT_FOUND', {
      frameworks: again.needsCustomFrameworks,
      valid_codes: [...services.registry.gapFrameworkCodes(), ...task.custom.codes],
    });
  return again;
}

/**
 * Runs an analysis under a new id and stores its result for the caller's retention: the create
 * route's path, shared by every route that makes an analysis (scanner import too).
 */
export async function runAndStore(
  ctx: RouteContext,
  run: (id: string, createdAt: string) => Promise<AnalyzeOutput>,
  operation: IdempotentOperation = { name: CREATE_OPERATION },
) {
  const { services, account } = ctx;
  const idempotent = idempotentRequest(ctx, operation.name, operation.parameters);
  if (idempotent) {
    const earlier = await services.analyses.idempotencyRecord(account.name, idempotent.key, services.now());
    if (earlier) return replay(ctx, idempotent, earlier);
  }
  const createdAt = services.now();
  const id = newAnalysisId(createdAt);
  const started = performance.now();
  const output = await run(id, createdAt.toISOString());
  const analysed = performance.now();
  if (!output.ok) throw new ApiError(output.error.code, output.error.details, { message: output.error.message });
  const payload = Buffer.from(output.payload.buffer, output.payload.byteOffset, output.payload.byteLength);
  const stored = await storedForm(payload);
  const expiresAt = expiryOf(createdAt, GAP_ANALYSIS_LIMITS[account.tier].retentionDays);
  const facts = output.posture;
  const analysisRef = { id, created_at: createdAt.toISOString() };
  const outcome = await services.analyses.save(
    {
      id,
      account: account.name,
      created_at: createdAt.toISOString(),
      expires_at: expiresAt.toISOString(),
      status: 'completed',
      ...output.summary,
      data_members: output.dataMembers,
    },
    stored,
    idempotent && idempotencyRecord(idempotent, account.name, id, 200, createdAt),
    // Its scope's posture record and its webhook events commit with it (docs/posture.md, docs/webhooks.md).
    { facts, events: (previous) => analysisEvents(analysisRef, facts, previous) },
  );
  const { answerBuffers } = services.pool;
  // A concurrent request with the same key stored first: answer as its retry would be answered.
  if (!outcome.stored) {
    answerBuffers.give(payload.buffer);
    return replay(ctx, idempotent!, outcome.existing);
  }
  services.metrics.analysisStored();
  if (outcome.deliveries) services.deliverWebhooks();
  const storedAt = performance.now();
  const variant = requestedVariant(ctx);
  const headers = {
    ...JSON_TYPE,
    'X-Analysis-Expires-At': expiresAt.toISOString(),
    // Where the time went, for integrators' latency dashboards: the analysis (queue and worker
    // included) and the durable write (its compression included).
    'Server-Timing': `analysis;dur=${(analysed - started).toFixed(1)}, store;dur=${(storedAt - analysed).toFixed(1)}`,
  };
  // Stored in its compressed form and, once sent or cut into one variant, read by nothing.
  const giveBack = () => answerBuffers.give(payload.buffer);
  if (variant) {
    const answer = answerInVariant(ctx, payload, output.dataMembers, variant);
    const afterSend = () => {
      answer.afterSend?.();
      giveBack();
    };
    return { headers, file: answer.file, afterSend };
  }
  return { headers, brotli: compressedForm(stored)!.brotli, identityLength: payload.length, identity: async () => payload, afterSend: giveBack };
}

async function get(ctx: RouteContext) {
  const stored = await readAnalysis(ctx.services.analyses, ctx.params.id, ctx.account.name, ctx.services.now());
  return { headers: { ...JSON_TYPE, 'X-Analysis-Expires-At': stored.entry.expires_at }, ...(await storedAnswer(ctx, stored)) };
}

const ResultQuery = Type.Object(VariantQuery);

const SummaryQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  cursor: Type.Optional(
    Type.String({ maxLength: 512, description: 'meta.next_cursor of the previous page: the page after it, however deep (then `page` is not read)' }),
  ),
  status: Type.Optional(StringEnum(['pending', 'completed', 'failed'] as const)),
  framework: Type.Optional(Type.String()),
});

/** `page` reaches this many analyses deep at most (skipping rows costs their reading); deeper pages come by cursor. */
export const MAX_LIST_OFFSET = 10_000;

async function summary(ctx: RouteContext) {
  const { services, account } = ctx;
  const query = ctx.query as { page: number; per_page?: number; limit?: number; cursor?: string; status?: string; framework?: string };
  let framework: string | undefined;
  if (query.framework !== undefined) {
    framework = services.registry.resolveFrameworkCode(query.framework);
    if (!framework) {
      // One of the account's own frameworks (docs/custom-frameworks.md).
      const own = (await ownFrameworks(services.customFrameworks, account)).map((f) => f.code);
      framework = own.find((code) => code === query.framework!.toUpperCase());
      if (!framework)
        throw invalidParameter('framework', query.framework, {
          valid_values: [...services.registry.gapFrameworkCodes(), ...own],
          reason: 'is not a gap-analysis framework code',
        });
    }
  }
  // Variant A pages with page/per_page; Variant B's `limit` is the page size when per_page is absent.
  // With neither, 20 (Variant A's default) — docs/api.md.
  const perPage = query.per_page ?? query.limit ?? 20;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (query.cursor !== undefined && !after) throw invalidParameter('cursor', query.cursor, { reason: 'is not a cursor this service gave (meta.next_cursor)' });
  const offset = after ? 0 : (query.page - 1) * perPage;
  const now = services.now();
  let listed: { total: number; items: AnalysisIndexEntry[] };
  if (offset > MAX_LIST_OFFSET) {
    // Deep pages are read with the cursor; a page past the end is still the empty page with the real total.
    listed = await services.analyses.list(account.name, { framework, status: query.status, offset: 0, limit: 0 }, now);
    if (offset < listed.total)
      throw invalidParameter('page', String(query.page), {
        reason: `reaches past the first ${MAX_LIST_OFFSET} analyses; read further with cursor (meta.next_cursor)`,
        limit: Math.floor(MAX_LIST_OFFSET / perPage) + 1,
      });
  } else {
    listed = await services.analyses.list(account.name, { framework, status: query.status, offset, limit: perPage, after }, now);
  }
  const { total, items } = listed;
  const newestTwo =
    offset === 0 && !after
      ? items.slice(0, 2)
      : (await services.analyses.list(account.name, { framework, status: query.status, offset: 0, limit: 2 }, now)).items;
  const last = items.at(-1);
  const [latest, previous] = newestTwo;
  const scoreChange =
    latest && previous && latest.posture_score !== null && previous.posture_score !== null
      ? Math.round((latest.posture_score - previous.posture_score) * 10) / 10
      : null;
  const trend = {
    direction: scoreChange === null ? 'insufficient_data' : scoreChange > 0 ? 'improving' : scoreChange < 0 ? 'declining' : 'stable',
    score_change: scoreChange,
  };
  return {
    json: {
      data: {
        analyses: items.map((entry) => ({
          id: entry.id,
          analysis_id: entry.id,
          created_at: entry.created_at,
          expires_at: entry.expires_at,
          frameworks: entry.frameworks,
          posture_score: entry.posture_score,
          status: entry.posture_status,
          overall_posture: entry.posture_status,
          analysis_status: entry.status,
          critical_gaps: entry.critical_gaps,
          high_gaps: entry.high_gaps,
        })),
        trend,
      },
      meta: {
        total,
        page: after ? null : query.page,
        per_page: perPage,
        total_pages: Math.ceil(total / perPage),
        limit: perPage,
        next_cursor: last && items.length === perPage ? encodeCursor(last) : null,
      },
    },
  };
}

/** Above this many stored bytes (both analyses), parsing them would hold the HTTP thread: use a worker. */
export const INLINE_COMPARE_MAX_BYTES = 512 * 1024;

async function compare(ctx: RouteContext<unknown, CompareBodyType>) {
  const { services, account, body } = ctx;
  const now = services.now();
  // One after the other, so that an unknown baseline is reported before the current, as before.
  const baseline = await readAnalysis(services.analyses, body.baseline_id, account.name, now);
  const current = await readAnalysis(services.analyses, body.current_id, account.name, now);
  // Both decompressed at once, on libuv's thread pool.
  const [baselineAnswer, currentAnswer] = await Promise.all([baseline.answer(), current.answer()]);
  const task: CompareTask = {
    baseline: baselineAnswer,
    current: currentAnswer,
    includeUnchanged: body.options?.include_unchanged ?? false,
    comparisonId: `CMP-${now.toISOString().slice(0, 10)}-${randomBytes(5).toString('hex').toUpperCase()}`,
  };
  const data =
    task.baseline.byteLength + task.current.byteLength <= INLINE_COMPARE_MAX_BYTES
      ? compareStored(task)
      : await services.pool.run('compare', task, undefined, ctx.closed);
  return { json: { data, meta: { version: '1.0.0' } } };
}

export const gapAnalysisRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/gap-analysis',
    tier: 'pro',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'gap-analysis',
    summary: 'Run a gap analysis over findings for one or more frameworks and store the result',
    query: ResultQuery,
    body: CreateAnalysisBody,
    rawBody: true,
    bodyLimit: 'analysis',
    pooled: { bodiesOver: INLINE_ANALYSIS_MAX_BYTES },
    response: AnalysisResultData,
    meta: AnalysisResultMeta,
    headers: ['X-Analysis-Expires-At', 'Server-Timing'],
    idempotent: true,
    errors: [
      'idempotency_key_reused',
      'GAP_INVALID_FINDING',
      'GAP_SIGNAL_NOT_FOUND',
      'GAP_FRAMEWORK_NOT_FOUND',
      'GAP_TOO_MANY_FINDINGS',
      'GAP_TOO_MANY_FRAMEWORKS',
      'GAP_TIER_REQUIRED',
      'invalid_json',
      'json_too_deep',
      'service_busy',
      'task_timeout',
    ],
    handler: create,
  },
  {
    method: 'GET',
    path: '/v1/gap-analysis/summary',
    tier: 'pro',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'gap-analysis',
    summary: "List the caller's stored analyses, newest first, with a score trend",
    query: SummaryQuery,
    response: AnalysisListData,
    meta: AnalysisListMeta,
    handler: summary,
  },
  {
    method: 'POST',
    path: '/v1/gap-analysis/compare',
    tier: 'teams',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'gap-analysis',
    summary: 'Compare a baseline analysis with a later one',
    body: CompareBody,
    response: ComparisonData,
    meta: VersionOnlyMeta,
    // Large comparisons run in the worker pool.
    errors: ['GAP_NOT_FOUND', 'GAP_EXPIRED', 'GAP_TIER_REQUIRED', 'service_busy', 'task_timeout'],
    handler: compare,
  },
  {
    method: 'GET',
    path: '/v1/gap-analysis/:id',
    tier: 'pro',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'gap-analysis',
    summary: 'Retrieve a stored analysis in the same shape as its creation',
    query: ResultQuery,
    response: AnalysisResultData,
    meta: AnalysisResultMeta,
    headers: ['X-Analysis-Expires-At'],
    // The pool reads the member spans of an analysis stored before they were kept (?variant).
    errors: ['GAP_NOT_FOUND', 'GAP_EXPIRED', 'GAP_TIER_REQUIRED', 'service_busy', 'task_timeout'],
    handler: get,
  },
];
