/**
 * The webhook events of a stored analysis (docs/webhooks.md): analysis.created always;
 * posture.regressed for each framework whose score or status is worse than at the scope's previous
 * assessment of it; control.regressed for each framework where controls compliant then are
 * partially or non-compliant now. A control no longer assessed is no regression: a narrower scan
 * says nothing about it (as compare's `no_longer_assessed`).
 */
import type { PostureStatus } from '../core/vocabulary.js';
import type { FrameworkPoint, PostureFacts } from '../gap/posture-facts.js';
import type { PreviousAssessment } from '../store/posture.js';
import { timeOrderedId, type WebhookEventDraft, type WebhookEventType } from '../store/webhooks.js';

/** Postures from best to worst; not_assessed is outside the order (nothing to compare). */
const POSTURE_RANK: Partial<Record<PostureStatus, number>> = { compliant: 3, at_risk: 2, non_compliant: 1 };

export interface StoredAnalysisRef {
  id: string;
  created_at: string;
}

/** Worse: a lower score, or a lower posture status, both sides assessed. */
export function regressed(before: FrameworkPoint, now: FrameworkPoint): boolean {
  if (before.score !== null && now.score !== null && now.score < before.score) return true;
  const was = POSTURE_RANK[before.status];
  const is = POSTURE_RANK[now.status];
  return was !== undefined && is !== undefined && is < was;
}

const pointOf = (point: FrameworkPoint) => ({ score: point.score, status: point.status, coverage: point.coverage });

export function analysisEvents(analysis: StoredAnalysisRef, facts: PostureFacts, previous: ReadonlyMap<string, PreviousAssessment>): WebhookEventDraft[] {
  const at = new Date(analysis.created_at);
  const events: WebhookEventDraft[] = [];
  const event = (type: WebhookEventType, data: Record<string, unknown>) => {
    const id = timeOrderedId('evt', at);
    events.push({ id, type, created_at: analysis.created_at, body: JSON.stringify({ id, type, created_at: analysis.created_at, data }) });
  };
  const byFramework = Object.fromEntries(Object.entries(facts.frameworks).map(([code, point]) => [code, pointOf(point)]));
  event('analysis.created', {
    analysis_id: analysis.id,
    created_at: analysis.created_at,
    scope: facts.scope,
    frameworks: Object.keys(facts.frameworks),
    posture: facts.overall,
    by_framework: byFramework,
  });
  for (const [code, now] of Object.entries(facts.frameworks)) {
    const before = previous.get(code);
    if (!before) continue;
    const change = {
      scope: facts.scope,
      framework: code,
      analysis_id: analysis.id,
      previous_analysis_id: before.analysis_id,
      previous: { ...pointOf(before.point), created_at: before.created_at },
      current: { ...pointOf(now), created_at: analysis.created_at },
    };
    if (regressed(before.point, now)) {
      const scoreChange = before.point.score !== null && now.score !== null ? Math.round((now.score - before.point.score) * 10) / 10 : null;
      event('posture.regressed', { ...change, score_change: scoreChange });
    }
    const current = facts.controls[code];
    const status = new Map<string, 'partially_compliant' | 'non_compliant'>();
    for (const id of current.partially_compliant) status.set(id, 'partially_compliant');
    for (const id of current.non_compliant) status.set(id, 'non_compliant');
    const controls = before.controls.compliant
      .filter((id) => status.has(id))
      .map((id) => ({ control_id: id, previous_status: 'compliant', current_status: status.get(id)! }));
    if (controls.length) {
      const assessedNow = new Set([...current.compliant, ...status.keys()]);
      const noLongerAssessed = before.controls.compliant.filter((id) => !assessedNow.has(id)).length;
      event('control.regressed', { ...change, controls, compliant_before_not_assessed_now: noLongerAssessed });
    }
  }
  return events;
}
