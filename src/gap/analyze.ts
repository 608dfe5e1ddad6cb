import { performance } from 'node:perf_hooks';
import { ApiError } from '../core/errors.js';
import type { Tier } from '../tiers.js';
import { assess } from './engine.js';
import { gapIndexOf } from './gap-index.js';
import type { Registry } from '../registry/registry.js';
import { validateAnalysisBody } from './request.js';
import { parseJsonBody } from '../core/json-body.js';
import { resultJson } from './result.js';
import type { DataMemberSpans } from './variant.js';
import type { CustomFrameworkFacts } from './custom-frameworks.js';
import { postureFactsOf, type PostureFacts } from './posture-facts.js';
import { analysisCoveragePlan } from './coverage-plan.js';
import { toolRuleIndexOf } from '../registry/tool-rules.js';

export interface AnalyzeTask {
  body: Uint8Array;
  tier: Tier;
  id: string;
  createdAt: string;
  /** An earlier answer's memory to write this answer into, when it fits (src/pool.ts `AnswerBuffers`). */
  answerMemory?: ArrayBuffer;
  /** The account's own frameworks, for an Enterprise account that has some. */
  custom?: CustomFrameworksOfTask;
}

/**
 * An account's own frameworks as an analysis receives them: every code it has, and the facts of
 * those the request may name (the HTTP thread looks for their codes in the body). A request that
 * names one whose facts are not there is answered `needsCustomFrameworks`, to be sent again with them.
 */
export interface CustomFrameworksOfTask {
  /** Upper case, as stored. */
  codes: string[];
  frameworks: CustomFrameworkFacts[];
}

export interface AnalysisSummary {
  frameworks: string[];
  posture_status: string;
  posture_score: number | null;
  critical_gaps: number;
  high_gaps: number;
  /** The account's own frameworks assessed, with the revision of each (absent when none). */
  custom_frameworks?: Array<{ code: string; revision: number }>;
}

/**
 * Errors cross the thread boundary as data, not as Error objects. `unusedMemory` is the task's
 * `answerMemory` when no answer was written into it (the answer did not fit, or the request was
 * refused), handed back with the output so that it is kept for a later answer rather than left
 * to the worker's collector.
 */
export type AnalyzeOutput = (
  | { ok: true; payload: Uint8Array; summary: AnalysisSummary; dataMembers: DataMemberSpans; posture: PostureFacts }
  | { ok: false; error: { code: ApiError['code']; details?: Record<string, unknown>; message: string }; needsCustomFrameworks?: string[] }
) & { unusedMemory?: ArrayBuffer };

/**
 * One gap analysis from raw request bytes to the serialized response: parse, validate, assess,
 * serialize. Runs in a pool worker, or inline for small requests.
 */
export function analyze(registry: Registry, task: AnalyzeTask): AnalyzeOutput {
  return analyzeRequest(registry, task, () => parseJsonBody(task.body));
}

/**
 * The path every analysis takes, whatever built its request: `requestBody` gives the request as
 * a value (parsed from the body, or assembled by scanner import), `extraMeta` joins the result's
 * meta (scanner import adds `import`).
 */
export function analyzeRequest(
  registry: Registry,
  task: Omit<AnalyzeTask, 'body'>,
  requestBody: () => unknown,
  extraMeta: Record<string, unknown> = {},
): AnalyzeOutput {
  const started = performance.now();
  try {
    const index = gapIndexOf(registry);
    const { custom } = task;
    const missing: string[] = [];
    // Signal ids are checked against the gap index: no registry decode per finding.
    const request = validateAnalysisBody(requestBody(), task.tier, {
      resolveFrameworkCode: (code) => registry.resolveFrameworkCode(code),
      gapFrameworkCodes: () => registry.gapFrameworkCodes(),
      signal: (id) => index.signal(id),
      ...(custom && {
        customFrameworkCode: (input: string) => {
          const code = input.toUpperCase();
          if (!custom.codes.includes(code)) return undefined;
          if (!custom.frameworks.some((framework) => framework.code === code) && !missing.includes(code)) missing.push(code);
          return code;
        },
        customFrameworkCodes: () => custom.codes,
      }),
    });
    if (missing.length) {
      return {
        ok: false,
        error: { code: 'GAP_FRAMEWORK_NOT_FOUND', details: { frameworks: missing }, message: 'custom framework facts not sent' },
        needsCustomFrameworks: missing,
        unusedMemory: task.answerMemory,
      };
    }
    const customAssessed = custom ? custom.frameworks.filter((framework) => request.frameworks.includes(framework.code)) : [];
    // Evidence ages against the analysis's own time (docs/scoring.md).
    const outcome = assess(index, request.findings, request.frameworks, request.options, customAssessed, Date.parse(task.createdAt));
    const { bytes: payload, memberSpans } = resultJson(
      outcome,
      {
        id: task.id,
        createdAt: task.createdAt,
        registryVersion: registry.manifest.registry_version,
        startedAt: started,
        options: { ...request.options },
        scope: request.scope ?? null,
        // What would assess the rest, from the tools the findings came from (docs/posture.md).
        coveragePlan: analysisCoveragePlan(
          toolRuleIndexOf(registry),
          (code) => index.controls(code),
          request.frameworks,
          outcome.findings.sources,
          request.options.min_confidence,
          customAssessed,
        ),
      },
      extraMeta,
      task.answerMemory,
    );
    return {
      ok: true,
      payload,
      dataMembers: memberSpans,
      posture: postureFactsOf(outcome, request.scope),
      unusedMemory: payload.buffer === task.answerMemory ? undefined : task.answerMemory,
      summary: {
        frameworks: request.frameworks,
        posture_status: outcome.overall.status,
        posture_score: outcome.overall.score,
        critical_gaps: outcome.overall.critical_gaps,
        high_gaps: outcome.overall.high_gaps,
        ...(customAssessed.length && { custom_frameworks: customAssessed.map((framework) => ({ code: framework.code, revision: framework.revision })) }),
      },
    };
  } catch (error) {
    if (error instanceof ApiError)
      return { ok: false, error: { code: error.code, details: error.details, message: error.message }, unusedMemory: task.answerMemory };
    throw error;
  }
}
