/**
 * What gap analysis answers, as TypeBox schemas: the result of create/get (both spec variants of
 * 2.7 at once), the comparison (2.8) and the list of stored analyses. The OpenAPI document
 * publishes them and the contract test checks live responses against them. compare.ts returns
 * `Static<…>`, so the compiler checks it; src/gap/result.ts writes the result as text, and
 * test/gap/result.test.ts checks it against the closed schema for every combination of options. Kept apart from gap.ts (the request side) so that each file has one
 * concern.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CONTROL_STATUSES, FINDING_STATUSES, POSTURE_STATUSES, SEVERITIES } from '../core/vocabulary.js';
import { StringEnum } from './string-enum.js';

const Score = Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], { description: 'Posture score 0–100; null when no control is assessed' });
const Fraction = Type.Number({ minimum: 0, maximum: 1 });
const Assessed = StringEnum(['compliant', 'partially_compliant', 'non_compliant'] as const);
const Relationship = StringEnum(['primary', 'supporting', 'partial'] as const);
const Effort = StringEnum(['low', 'medium', 'high'] as const);
const PriorityLabel = StringEnum(['critical', 'high', 'medium', 'low'] as const);
const Severity = Type.Union([StringEnum(SEVERITIES), Type.Null()], {
  description: 'Highest severity among the failing or accepted findings; null for a compliant control',
});
const ControlCounts = Type.Object(
  Object.fromEntries(CONTROL_STATUSES.map((status) => [status, Type.Integer({ minimum: 0 })])) as Record<
    (typeof CONTROL_STATUSES)[number],
    ReturnType<typeof Type.Integer>
  >,
);
const EvidenceRequirements = Type.Array(Type.String(), {
  description: 'With options.include_evidence_requirements: the evidence items the registry lists for the control',
});

const AnalysisOptionsEcho = Type.Object(
  {
    include_resolved: Type.Boolean(),
    min_confidence: Fraction,
    include_remediation: Type.Boolean(),
    include_evidence_requirements: Type.Boolean(),
    include_cross_framework: Type.Boolean(),
    max_evidence_age_days: Type.Optional(Type.Integer({ minimum: 1, description: 'Absent on analyses stored before scoring 2.1.0' })),
  },
  { description: 'The options the analysis ran with, defaults filled in' },
);

const VariantAGap = Type.Object({
  control: Type.Object({ id: Type.String(), title: Type.String() }),
  status: Assessed,
  confidence: Fraction,
  severity: Severity,
  remediation: Type.Optional(Type.Object({ priority: Type.Integer(), effort: Effort, guidance: Type.String(), steps: Type.Array(Type.String()) })),
  evidence_requirements: Type.Optional(EvidenceRequirements),
});

const StaleStatus = StringEnum(CONTROL_STATUSES, { description: 'The status without the stale evidence: not_assessed when nothing else reached the control' });
const StaleNote =
  'Controls that passing evidence past options.max_evidence_age_days reached (docs/scoring.md); absent on analyses stored before result format 1.2.0';
const LastObserved = Type.String({ format: 'date-time', description: 'The latest observation among its stale passing findings' });
const VariantAStale = Type.Object({ control: Type.Object({ id: Type.String(), title: Type.String() }), status: StaleStatus, last_observed_at: LastObserved });

const ControlRef = Type.Object({ id: Type.String(), title: Type.String(), category: Type.String() });

const VariantBGap = Type.Object({
  control: ControlRef,
  status: Assessed,
  severity: Severity,
  confidence: Fraction,
  findings: Type.Array(
    Type.Object({
      finding_id: Type.String(),
      signal_id: Type.String(),
      finding_status: StringEnum(FINDING_STATUSES),
      relationship: Relationship,
      confidence: Fraction,
    }),
  ),
  resources: Type.Array(Type.Integer({ minimum: 0 }), { description: "Indices into data.resources: the resources this gap's findings name" }),
  remediation: Type.Optional(
    Type.Object({ priority: PriorityLabel, priority_rank: Type.Integer(), effort: Effort, guidance: Type.String(), steps: Type.Array(Type.String()) }),
  ),
  evidence_requirements: Type.Optional(EvidenceRequirements),
});

/** Set on an account's own framework (docs/custom-frameworks.md): the revision of it assessed. */
const CustomMarks = {
  custom: Type.Optional(Type.Literal(true, { description: "An account's own framework" })),
  revision: Type.Optional(Type.Integer({ minimum: 1, description: 'The stored version of the custom framework assessed (with `version`, its label)' })),
};

const FrameworkResult = Type.Object({
  name: Type.String(),
  version: Type.String(),
  ...CustomMarks,
  posture: Type.Object({
    status: StringEnum(POSTURE_STATUSES),
    score: Score,
    coverage: Fraction,
    controls_total: Type.Integer({ minimum: 0 }),
    controls_compliant: Type.Integer({ minimum: 0 }),
    controls_partial: Type.Integer({ minimum: 0 }),
    controls_non_compliant: Type.Integer({ minimum: 0 }),
    controls_not_assessed: Type.Integer({ minimum: 0 }),
    critical_gaps: Type.Integer({ minimum: 0 }),
    high_gaps: Type.Integer({ minimum: 0 }),
  }),
  gaps: Type.Array(VariantBGap),
  compliant: Type.Array(
    Type.Object({
      control: ControlRef,
      status: Assessed,
      confidence: Fraction,
      validated_by: Type.Array(Type.Object({ finding_id: Type.String(), signal_id: Type.String(), finding_status: StringEnum(FINDING_STATUSES) })),
    }),
  ),
  stale_evidence: Type.Optional(
    Type.Array(
      Type.Object({
        control: ControlRef,
        status: StaleStatus,
        last_observed_at: LastObserved,
        findings: Type.Array(
          Type.Object({
            finding_id: Type.String(),
            signal_id: Type.String(),
            finding_status: StringEnum(FINDING_STATUSES),
            observed_at: Type.String({ format: 'date-time' }),
          }),
        ),
      }),
      { description: StaleNote },
    ),
  ),
});

const CommonGap = Type.Object({
  signal_id: Type.String(),
  description: Type.String(),
  affects_frameworks: Type.Array(Type.String()),
  controls_affected: Type.Array(Type.Object({ framework: Type.String(), control_id: Type.String() })),
  remediation_overlap: Type.String(),
});

const FrameworkSynergy = Type.Object({
  primary_framework: Type.String(),
  synergy_with: Type.String(),
  overlap_percentage: Type.Number({ minimum: 0, maximum: 100 }),
  note: Type.String(),
});

/**
 * An analysis of a scanner file (POST /v1/gap-analysis/import): the file's results whose rule
 * resolved to no signal, which `findings.unmapped` counts too (docs/ingest.md).
 */
export const NotRecognisedResults = Type.Object(
  {
    results: Type.Integer({ minimum: 1, description: 'Results of the file whose rule resolved to no signal' }),
    of: Type.Integer({ minimum: 1, description: 'Results in the file' }),
    rule_ids: Type.Array(Type.String(), { maxItems: 20, description: 'Their rule ids, most failures first, at most 20' }),
    more: Type.Integer({ minimum: 0, description: 'Rule ids beyond those listed' }),
    message: Type.String({ description: '"N of M results were not recognised: …"' }),
  },
  { description: 'Results of the imported file that no signal recognises' },
);
export type NotRecognisedResults = Static<typeof NotRecognisedResults>;

export const SuggestedRule = Type.Object({
  tool_id: Type.String(),
  rule_id: Type.String(),
  rule_name: Type.String(),
  controls_reached: Type.Integer({ minimum: 1, description: "How many of the controls the team's tools do not reach this rule reaches" }),
  control_ids: Type.Array(Type.String()),
});

/** What would assess the rest of an analysis's frameworks (docs/posture.md). */
export const CoveragePlanSchema = Type.Object(
  {
    tools: Type.Array(Type.String(), { description: "The registry's tools among the findings' sources (source.tool)" }),
    other_sources: Type.Array(Type.String(), { description: 'Sources the registry maps no rule of' }),
    min_confidence: Fraction,
    frameworks: Type.Array(
      Type.Object({
        framework: Type.String(),
        controls_total: Type.Integer({ minimum: 0 }),
        assessable: Type.Integer({ minimum: 0, description: 'Controls some rule of the tools reaches' }),
        not_reached: Type.Array(Type.String(), { description: 'Controls no rule of the tools reaches, in control order' }),
        reachable_by_other_tools: Type.Integer({ minimum: 0, description: "Of those, how many some other tool's rule reaches" }),
        suggested_rules: Type.Array(SuggestedRule, { description: "Other tools' rules that would reach them, most reached first (at most 10)" }),
        more_suggested_rules: Type.Integer({ minimum: 0 }),
      }),
    ),
  },
  {
    description:
      'For each framework, what the tools the findings came from can assess and which other rules would assess the rest; absent on analyses stored before result format 1.2.0',
  },
);

/** `data` of POST /v1/gap-analysis and GET /v1/gap-analysis/{id}: Variant A and Variant B fields side by side. */
export const AnalysisResultData = Type.Object(
  {
    analysis_id: Type.String({ description: 'Variant A name of the id' }),
    id: Type.String({ description: 'Variant B name of the id' }),
    created_at: Type.String({ format: 'date-time' }),
    status: Type.Literal('completed'),
    frameworks_requested: Type.Array(Type.String()),
    options: AnalysisOptionsEcho,
    scope: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'The scope the analysis is filed under (docs/posture.md); null for none; absent on analyses stored before result format 1.2.0',
      }),
    ),
    summary: Type.Object({
      overall_posture: StringEnum(POSTURE_STATUSES),
      posture_score: Score,
      coverage: Fraction,
      total_controls: Type.Integer({ minimum: 0 }),
      total_controls_assessed: Type.Integer({ minimum: 0 }),
      controls_by_status: ControlCounts,
      critical_gaps: Type.Integer({ minimum: 0 }),
      high_risk_gaps: Type.Integer({ minimum: 0 }),
      findings: Type.Object({
        submitted: Type.Integer({ minimum: 0 }),
        analyzed: Type.Integer({ minimum: 0 }),
        excluded_resolved: Type.Integer({ minimum: 0 }),
        unmapped: Type.Integer({ minimum: 0 }),
        stale_passing: Type.Optional(
          Type.Integer({
            minimum: 0,
            description: 'Passing findings past options.max_evidence_age_days, set aside (docs/scoring.md); absent before result format 1.2.0',
          }),
        ),
        observed_from: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Earliest observed_at of the findings' }),
        observed_to: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Latest observed_at of the findings' }),
        sources: Type.Array(Type.String(), { description: 'The tools the findings name (source.tool), sorted' }),
        not_recognised: Type.Optional(NotRecognisedResults),
      }),
    }),
    posture: Type.Object({ status: StringEnum(POSTURE_STATUSES), score: Score }),
    frameworks: Type.Array(
      Type.Object({
        code: Type.String(),
        name: Type.String(),
        version: Type.String(),
        posture: Type.Object({ status: StringEnum(POSTURE_STATUSES), score: Score, coverage: Fraction }),
        controls_by_status: ControlCounts,
        ...CustomMarks,
        gaps: Type.Array(VariantAGap),
        stale_evidence: Type.Optional(Type.Array(VariantAStale, { description: StaleNote })),
      }),
      { description: 'Variant A: one entry per requested framework' },
    ),
    by_framework: Type.Record(Type.String(), FrameworkResult, { description: 'Variant B: keyed by framework code' }),
    cross_framework_insights: Type.Object({ common_gaps: Type.Array(CommonGap) }),
    cross_framework: Type.Object({ common_gaps: Type.Array(CommonGap), framework_synergies: Type.Array(FrameworkSynergy) }),
    resources: Type.Array(Type.Object({ type: Type.Optional(Type.String()), id: Type.Optional(Type.String()), provider: Type.Optional(Type.String()) }), {
      description: 'Each resource (artifact) the findings name, once; gaps refer to them by index',
    }),
    coverage_plan: Type.Optional(CoveragePlanSchema),
  },
  { description: 'A gap analysis result' },
);

export const AnalysisResultMeta = Type.Object({
  version: Type.String({ description: 'Result format version' }),
  scoring_version: Type.String({ description: 'Version of the scoring method (docs/scoring.md)' }),
  registry_version: Type.String(),
  processing_time_ms: Type.Number({ minimum: 0 }),
});

/** The whole stored/returned body of an analysis. */
export const AnalysisResult = Type.Object({ data: AnalysisResultData, meta: AnalysisResultMeta });
export type AnalysisResult = Static<typeof AnalysisResult>;

const ComparedControl = { control_id: Type.String(), framework: Type.String(), title: Type.String() };
const FrameworkScores = {
  baseline_score: Score,
  current_score: Score,
  controls_improved: Type.Integer({ minimum: 0 }),
  controls_regressed: Type.Integer({ minimum: 0 }),
  controls_no_longer_assessed: Type.Integer({
    minimum: 0,
    description: 'Assessed in the baseline, not in the current analysis: neither resolved nor improved',
  }),
};
const ComparedAnalysis = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  posture_score: Score,
  overall_posture_score: Score,
});

/** `data` of POST /v1/gap-analysis/compare: Variant A and Variant B fields side by side. */
export const ComparisonData = Type.Object({
  comparison_id: Type.String(),
  summary: Type.Object({
    baseline_score: Score,
    current_score: Score,
    score_change: Type.Union([Type.Number(), Type.Null()]),
    overall_change: StringEnum(['improved', 'regressed', 'unchanged', 'not_comparable'] as const),
  }),
  changes: Type.Object({
    improved: Type.Integer({ minimum: 0 }),
    regressed: Type.Integer({ minimum: 0 }),
    new_gaps: Type.Integer({ minimum: 0 }),
    resolved: Type.Integer({ minimum: 0 }),
    no_longer_assessed: Type.Integer({
      minimum: 0,
      description: 'Controls assessed in the baseline and not in the current analysis (a narrower scan), counted apart from resolved and improved',
    }),
  }),
  by_framework: Type.Array(Type.Object({ framework: Type.String(), ...FrameworkScores })),
  frameworks_compared: Type.Array(Type.String()),
  frameworks_only_in_baseline: Type.Array(Type.String()),
  frameworks_only_in_current: Type.Array(Type.String()),
  comparison: Type.Object({
    baseline: ComparedAnalysis,
    current: ComparedAnalysis,
    trend: Type.Object({
      direction: StringEnum(['improving', 'declining', 'stable', 'not_comparable'] as const),
      score_change: Type.Union([Type.Number(), Type.Null()]),
      percentage_change: Type.Union([Type.Number(), Type.Null()]),
    }),
    gaps_resolved: Type.Array(Type.Object({ ...ComparedControl, resolved_at: Type.String({ format: 'date-time' }), now: StringEnum(CONTROL_STATUSES) })),
    gaps_added: Type.Array(Type.Object({ ...ComparedControl, status: StringEnum(CONTROL_STATUSES), detected_at: Type.String({ format: 'date-time' }) })),
    gaps_unchanged: Type.Optional(
      Type.Array(Type.Object({ ...ComparedControl, status: StringEnum(CONTROL_STATUSES), days_open: Type.Integer({ minimum: 0 }) }), {
        description: 'With options.include_unchanged',
      }),
    ),
    no_longer_assessed: Type.Array(Type.Object({ ...ComparedControl, baseline_status: Assessed }), {
      description: 'Controls assessed in the baseline and not in the current analysis: the newer scan did not look, which is no fix',
    }),
    by_framework: Type.Record(Type.String(), Type.Object(FrameworkScores)),
  }),
});
export type ComparisonData = Static<typeof ComparisonData>;

export const VersionOnlyMeta = Type.Object({ version: Type.String() });

/** `data` of GET /v1/gap-analysis/summary. */
export const AnalysisListData = Type.Object({
  analyses: Type.Array(
    Type.Object({
      id: Type.String(),
      analysis_id: Type.String(),
      created_at: Type.String({ format: 'date-time' }),
      expires_at: Type.String({ format: 'date-time' }),
      frameworks: Type.Array(Type.String()),
      posture_score: Score,
      status: StringEnum(POSTURE_STATUSES, { description: 'The overall posture (Variant B name)' }),
      overall_posture: StringEnum(POSTURE_STATUSES),
      analysis_status: Type.Literal('completed'),
      critical_gaps: Type.Integer({ minimum: 0 }),
      high_gaps: Type.Integer({ minimum: 0 }),
    }),
  ),
  trend: Type.Object({
    direction: StringEnum(['improving', 'declining', 'stable', 'insufficient_data'] as const),
    score_change: Type.Union([Type.Number(), Type.Null()]),
  }),
});

export const AnalysisListMeta = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  page: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'null when the page was asked for with `cursor`' }),
  per_page: Type.Integer({ minimum: 1 }),
  total_pages: Type.Integer({ minimum: 0 }),
  limit: Type.Integer({ minimum: 1 }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the page after this one (null when this page is the last): the way to read deep into a long list',
  }),
});
