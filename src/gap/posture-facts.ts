import type { PostureStatus } from '../core/vocabulary.js';
import type { AnalysisOutcome } from './engine.js';

/** One framework's posture in one analysis, as posture history shows it (docs/posture.md). */
export interface FrameworkPoint {
  score: number | null;
  status: PostureStatus;
  coverage: number;
  controls_assessed: number;
  controls_total: number;
}

/** The assessed controls of one framework by status: what regression events compare (src/posture/events.ts). */
export interface AssessedControls {
  compliant: string[];
  partially_compliant: string[];
  non_compliant: string[];
}

/**
 * What an analysis leaves for its scope's history and for webhook events, beside its result: small
 * enough to cross the worker boundary and to be stored apart from the result, so that a history of
 * a thousand analyses never reads their results.
 */
export interface PostureFacts {
  /** The caller's scope, or null for an analysis filed under none. */
  scope: string | null;
  overall: { score: number | null; status: PostureStatus; coverage: number };
  /** By framework code, in the analysis's order. */
  frameworks: Record<string, FrameworkPoint>;
  controls: Record<string, AssessedControls>;
}

export function postureFactsOf(outcome: AnalysisOutcome, scope: string | undefined): PostureFacts {
  const frameworks: Record<string, FrameworkPoint> = {};
  const controls: Record<string, AssessedControls> = {};
  for (const framework of outcome.frameworks) {
    frameworks[framework.code] = {
      score: framework.score,
      status: framework.status,
      coverage: framework.coverage,
      controls_assessed: framework.controls_total - framework.counts.not_assessed,
      controls_total: framework.controls_total,
    };
    const assessed: AssessedControls = { compliant: [], partially_compliant: [], non_compliant: [] };
    for (const control of framework.compliant) assessed.compliant.push(control.control.id);
    for (const gap of framework.gaps) assessed[gap.status === 'compliant' ? 'compliant' : gap.status].push(gap.control.id);
    controls[framework.code] = assessed;
  }
  const { overall } = outcome;
  return { scope: scope ?? null, overall: { score: overall.score, status: overall.status, coverage: overall.coverage }, frameworks, controls };
}
