/**
 * A scope's posture over time (docs/posture.md): its analyses oldest first, each framework's
 * score, status and coverage, and each framework's trend over the analyses shown. Pure: the
 * records in, the answer's data out.
 */
import type { FrameworkPoint } from '../gap/posture-facts.js';
import type { PostureRecord } from '../store/posture.js';

export type TrendDirection = 'improving' | 'declining' | 'stable' | 'insufficient_data';

interface PointAt {
  analysis_id: string;
  created_at: string;
  score: number | null;
  status: FrameworkPoint['status'];
}

export interface FrameworkTrend {
  /** Analyses shown that assessed the framework. */
  analyses: number;
  /** The earliest and the latest of them with a score (null when none has one). */
  first: PointAt | null;
  latest: PointAt | null;
  /** The scored one before the latest, for the latest change. */
  previous: PointAt | null;
  /** latest − first, one decimal; null with fewer than two scored analyses. */
  score_change: number | null;
  /** latest − previous, one decimal. */
  change_since_previous: number | null;
  direction: TrendDirection;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

export function postureHistory(records: readonly PostureRecord[], framework: string | undefined) {
  const analyses = records.map((record) => ({
    analysis_id: record.id,
    created_at: record.created_at,
    expires_at: record.expires_at,
    overall: record.overall,
    frameworks: framework === undefined ? record.frameworks : { [framework]: record.frameworks[framework] },
  }));
  const scored = new Map<string, PointAt[]>();
  const counted = new Map<string, number>();
  for (const analysis of analyses) {
    for (const [code, point] of Object.entries(analysis.frameworks)) {
      counted.set(code, (counted.get(code) ?? 0) + 1);
      if (point.score === null) continue;
      let points = scored.get(code);
      if (!points) scored.set(code, (points = []));
      points.push({ analysis_id: analysis.analysis_id, created_at: analysis.created_at, score: point.score, status: point.status });
    }
  }
  const trend: Record<string, FrameworkTrend> = {};
  for (const [code, count] of counted) {
    const points = scored.get(code) ?? [];
    const first = points[0] ?? null;
    const latest = points.at(-1) ?? null;
    const previous = points.length > 1 ? points[points.length - 2] : null;
    const scoreChange = first && latest && points.length > 1 ? round1(latest.score! - first.score!) : null;
    trend[code] = {
      analyses: count,
      first,
      latest,
      previous,
      score_change: scoreChange,
      change_since_previous: previous && latest ? round1(latest.score! - previous.score!) : null,
      direction: scoreChange === null ? 'insufficient_data' : scoreChange > 0 ? 'improving' : scoreChange < 0 ? 'declining' : 'stable',
    };
  }
  return { analyses, trend };
}
