import { storedTally, type AnalysisResult } from './result.js';
import type { ComparisonData } from '../schemas/gap-result.js';
import { pooledPosture } from './scoring.js';

type Data = AnalysisResult['data'];
type ControlStatus = 'compliant' | 'partially_compliant' | 'non_compliant' | 'not_assessed';

/** Controls compare by status order compliant > partially_compliant > non_compliant. */
const STATUS_RANK: Record<Exclude<ControlStatus, 'not_assessed'>, number> = { compliant: 3, partially_compliant: 2, non_compliant: 1 };
const DAY_MS = 86_400_000;

interface ControlState {
  status: ControlStatus;
  title: string;
}

function controlStates(data: Data, framework: string): Map<string, ControlState> {
  const states = new Map<string, ControlState>();
  const section = data.by_framework[framework];
  if (!section) return states;
  for (const gap of section.gaps) states.set(gap.control.id, { status: gap.status, title: gap.control.title });
  for (const control of section.compliant) states.set(control.control.id, { status: 'compliant', title: control.control.title });
  return states;
}

/** The posture score over some frameworks of an analysis, by the scoring rule; null when none is assessed. */
function pooledScore(data: Data, frameworks: readonly string[]): number | null {
  return pooledPosture(frameworks.map((code) => storedTally(data.by_framework[code].posture))).score;
}

const isGap = (status: ControlStatus | undefined) => status === 'non_compliant' || status === 'partially_compliant';

function direction(change: number | null): 'improving' | 'declining' | 'stable' | 'not_comparable' {
  if (change === null) return 'not_comparable';
  if (change > 0) return 'improving';
  if (change < 0) return 'declining';
  return 'stable';
}

const round1 = (value: number) => Math.round(value * 10) / 10;

export interface CompareTask {
  /** The stored create responses (`{"data":…,"meta":…}` bytes) of both analyses. */
  baseline: Uint8Array;
  current: Uint8Array;
  includeUnchanged: boolean;
  comparisonId: string;
}

function storedData(bytes: Uint8Array): Data {
  return (JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as AnalysisResult).data;
}

/** Compares two stored responses: parse both, then compare. Runs inline, or in a worker when they are large. */
export type CompareOutcome = ReturnType<typeof compareStored>;

export function compareStored(task: CompareTask) {
  return compareAnalyses(storedData(task.baseline), storedData(task.current), { includeUnchanged: task.includeUnchanged, comparisonId: task.comparisonId });
}

/** Compares two stored analyses of the same account (spec 2.8, both variants in one answer). */
export function compareAnalyses(baseline: Data, current: Data, options: { includeUnchanged: boolean; comparisonId: string }): ComparisonData {
  const baselineFrameworks = Object.keys(baseline.by_framework);
  const currentFrameworks = Object.keys(current.by_framework);
  const shared = baselineFrameworks.filter((code) => currentFrameworks.includes(code));
  const resolvedAt = current.created_at;
  const daysBetween = Math.max(0, Math.floor((Date.parse(current.created_at) - Date.parse(baseline.created_at)) / DAY_MS));

  const gapsResolved: Array<{ control_id: string; framework: string; title: string; resolved_at: string; now: ControlStatus }> = [];
  const gapsAdded: Array<{ control_id: string; framework: string; title: string; status: ControlStatus; detected_at: string }> = [];
  const gapsUnchanged: Array<{ control_id: string; framework: string; title: string; status: ControlStatus; days_open: number }> = [];
  // Assessed in the baseline, not in the current analysis: the newer scan did not look, which says
  // nothing of a fix. Counted apart, never as resolved or improved.
  const noLongerAssessed: Array<{ control_id: string; framework: string; title: string; baseline_status: Exclude<ControlStatus, 'not_assessed'> }> = [];
  type FrameworkChange = ComparisonData['comparison']['by_framework'][string];
  const byFrameworkA: Array<{ framework: string } & FrameworkChange> = [];
  const byFrameworkB: Record<string, FrameworkChange> = {};
  let improved = 0;
  let regressed = 0;

  for (const framework of shared) {
    const before = controlStates(baseline, framework);
    const after = controlStates(current, framework);
    let frameworkImproved = 0;
    let frameworkRegressed = 0;
    let frameworkNoLongerAssessed = 0;
    for (const controlId of new Set([...before.keys(), ...after.keys()])) {
      const was = before.get(controlId);
      const now = after.get(controlId);
      const title = (now ?? was)!.title;
      const wasStatus = was?.status ?? 'not_assessed';
      const nowStatus = now?.status ?? 'not_assessed';
      if (wasStatus !== 'not_assessed' && nowStatus !== 'not_assessed') {
        const delta = STATUS_RANK[nowStatus] - STATUS_RANK[wasStatus];
        if (delta > 0) frameworkImproved += 1;
        if (delta < 0) frameworkRegressed += 1;
      }
      if (wasStatus !== 'not_assessed' && nowStatus === 'not_assessed') {
        noLongerAssessed.push({ control_id: controlId, framework, title, baseline_status: wasStatus });
        frameworkNoLongerAssessed += 1;
      } else if (isGap(wasStatus) && !isGap(nowStatus)) gapsResolved.push({ control_id: controlId, framework, title, resolved_at: resolvedAt, now: nowStatus });
      else if (!isGap(wasStatus) && isGap(nowStatus)) gapsAdded.push({ control_id: controlId, framework, title, status: nowStatus, detected_at: resolvedAt });
      else if (isGap(wasStatus) && isGap(nowStatus) && options.includeUnchanged)
        gapsUnchanged.push({ control_id: controlId, framework, title, status: nowStatus, days_open: daysBetween });
    }
    improved += frameworkImproved;
    regressed += frameworkRegressed;
    const scores = {
      baseline_score: baseline.by_framework[framework].posture.score,
      current_score: current.by_framework[framework].posture.score,
      controls_improved: frameworkImproved,
      controls_regressed: frameworkRegressed,
      controls_no_longer_assessed: frameworkNoLongerAssessed,
    };
    byFrameworkA.push({ framework, ...scores });
    byFrameworkB[framework] = scores;
  }

  // Scores are pooled over the frameworks both analyses cover, so a trend never mixes frameworks
  // present on one side only (those are listed separately).
  const baselineScore = pooledScore(baseline, shared);
  const currentScore = pooledScore(current, shared);
  const scoreChange = baselineScore === null || currentScore === null ? null : round1(currentScore - baselineScore);
  const percentageChange = scoreChange === null || !baselineScore ? null : round1((100 * scoreChange) / baselineScore);
  const trend = direction(scoreChange);
  const overallChange = ({ improving: 'improved', declining: 'regressed', stable: 'unchanged', not_comparable: 'not_comparable' } as const)[trend];

  return {
    comparison_id: options.comparisonId,
    summary: { baseline_score: baselineScore, current_score: currentScore, score_change: scoreChange, overall_change: overallChange },
    changes: { improved, regressed, new_gaps: gapsAdded.length, resolved: gapsResolved.length, no_longer_assessed: noLongerAssessed.length },
    by_framework: byFrameworkA,
    frameworks_compared: shared,
    frameworks_only_in_baseline: baselineFrameworks.filter((code) => !shared.includes(code)),
    frameworks_only_in_current: currentFrameworks.filter((code) => !shared.includes(code)),
    comparison: {
      baseline: { id: baseline.id, created_at: baseline.created_at, posture_score: baselineScore, overall_posture_score: baseline.summary.posture_score },
      current: { id: current.id, created_at: current.created_at, posture_score: currentScore, overall_posture_score: current.summary.posture_score },
      trend: { direction: trend, score_change: scoreChange, percentage_change: percentageChange },
      gaps_resolved: gapsResolved,
      gaps_added: gapsAdded,
      ...(options.includeUnchanged && { gaps_unchanged: gapsUnchanged }),
      no_longer_assessed: noLongerAssessed,
      by_framework: byFrameworkB,
    },
  };
}
