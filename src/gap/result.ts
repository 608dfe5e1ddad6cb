import type { AnalysisOutcome, ControlAssessment, FrameworkOutcome } from './engine.js';
import { RESULT_FORMAT_VERSION, SCORING_VERSION, type PostureTally } from './scoring.js';

export interface ResultContext {
  id: string;
  createdAt: string;
  registryVersion: string;
  processingTimeMs: number;
  options: Record<string, unknown>;
}

const controlRef = (gap: ControlAssessment) => ({ id: gap.control.id, title: gap.control.title, category: gap.control.category });

/**
 * The analysis result in both of the spec's shapes at once (2.7): Variant A (analysis_id,
 * summary, frameworks[]) and Variant B (id, posture, by_framework, cross_framework).
 */
export function buildResult(outcome: AnalysisOutcome, context: ResultContext) {
  const { overall } = outcome;
  const crossFramework = { common_gaps: outcome.common_gaps, framework_synergies: outcome.synergies };
  const data = {
    analysis_id: context.id,
    id: context.id,
    created_at: context.createdAt,
    status: 'completed',
    frameworks_requested: outcome.frameworks.map((f) => f.code),
    options: context.options,
    summary: {
      overall_posture: overall.status,
      posture_score: overall.score,
      coverage: overall.coverage,
      total_controls: overall.controls_total,
      total_controls_assessed: overall.controls_total - overall.counts.not_assessed,
      controls_by_status: overall.counts,
      critical_gaps: overall.critical_gaps,
      high_risk_gaps: overall.high_gaps,
      findings: outcome.findings,
    },
    posture: { status: overall.status, score: overall.score },
    frameworks: outcome.frameworks.map((framework) => ({
      code: framework.code,
      name: framework.name,
      version: framework.version,
      posture: { status: framework.status, score: framework.score, coverage: framework.coverage },
      controls_by_status: framework.counts,
      gaps: framework.gaps.map(variantAGap),
    })),
    by_framework: Object.fromEntries(outcome.frameworks.map((framework) => [framework.code, variantBFramework(framework)])),
    // Variant A names only common_gaps here; the synergies are in the Variant B object.
    cross_framework_insights: { common_gaps: outcome.common_gaps },
    cross_framework: crossFramework,
  };
  const meta = {
    version: RESULT_FORMAT_VERSION,
    scoring_version: SCORING_VERSION,
    registry_version: context.registryVersion,
    processing_time_ms: context.processingTimeMs,
  };
  return { data, meta };
}

export type AnalysisResult = ReturnType<typeof buildResult>;

function variantAGap(gap: ControlAssessment) {
  const { remediation, evidence } = gap;
  return {
    control: { id: gap.control.id, title: gap.control.title },
    status: gap.status,
    confidence: gap.confidence,
    severity: gap.severity,
    ...(remediation && {
      remediation: { priority: remediation.priority, effort: remediation.effort, guidance: remediation.guidance, steps: remediation.steps },
    }),
    ...(evidence && { evidence_requirements: evidence }),
  };
}

function variantBFramework(framework: FrameworkOutcome) {
  return {
    name: framework.name,
    version: framework.version,
    posture: {
      status: framework.status,
      score: framework.score,
      coverage: framework.coverage,
      controls_total: framework.controls_total,
      controls_compliant: framework.counts.compliant,
      controls_partial: framework.counts.partially_compliant,
      controls_non_compliant: framework.counts.non_compliant,
      controls_not_assessed: framework.counts.not_assessed,
      critical_gaps: framework.critical_gaps,
      high_gaps: framework.high_gaps,
    },
    gaps: framework.gaps.map((gap) => {
      const { remediation, evidence } = gap;
      return {
        control: controlRef(gap),
        status: gap.status,
        severity: gap.severity,
        confidence: gap.confidence,
        findings: gap.reaches.map((reach) => ({
          finding_id: reach.finding.id,
          signal_id: reach.finding.signal_id,
          finding_status: reach.finding.status,
          relationship: reach.relationship,
          confidence: reach.confidence,
        })),
        ...(remediation && {
          remediation: { priority: remediation.priority_label, priority_rank: remediation.priority, effort: remediation.effort, guidance: remediation.guidance, steps: remediation.steps },
        }),
        ...(evidence && { evidence_requirements: evidence }),
      };
    }),
    compliant: framework.compliant.map((control) => ({
      control: controlRef(control),
      status: control.status,
      confidence: control.confidence,
      validated_by: control.reaches.map((reach) => ({ finding_id: reach.finding.id, signal_id: reach.finding.signal_id, finding_status: reach.finding.status })),
    })),
  };
}

export type StoredFrameworkPosture = ReturnType<typeof variantBFramework>['posture'];

/** A stored framework posture (Variant B) as a tally to pool with others (compare, filtered exports). */
export function storedTally(posture: StoredFrameworkPosture): PostureTally {
  return {
    counts: {
      compliant: posture.controls_compliant,
      partially_compliant: posture.controls_partial,
      non_compliant: posture.controls_non_compliant,
      not_assessed: posture.controls_not_assessed,
    },
    critical_gaps: posture.critical_gaps,
    high_gaps: posture.high_gaps,
  };
}
