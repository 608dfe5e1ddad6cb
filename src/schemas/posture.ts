/** Posture history (GET /v1/posture/history, docs/posture.md): query and answer. */
import { Type } from '@sinclair/typebox';
import { POSTURE_STATUSES } from '../core/vocabulary.js';
import { Scope } from './gap.js';
import { StringEnum } from './string-enum.js';

const Score = Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()]);
const Fraction = Type.Number({ minimum: 0, maximum: 1 });
const Status = StringEnum(POSTURE_STATUSES);

export const HISTORY_MAX_ANALYSES = 1000;

export const HistoryQuery = Type.Object({
  scope: Scope,
  framework: Type.Optional(Type.String({ minLength: 1, description: 'Only analyses that assessed this framework (any accepted spelling, or a custom code)' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Analyses created at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Analyses created at or before this time' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: HISTORY_MAX_ANALYSES,
      default: HISTORY_MAX_ANALYSES,
      description: `The newest this many analyses of the window (at most ${HISTORY_MAX_ANALYSES})`,
    }),
  ),
});

const FrameworkPoint = Type.Object({
  score: Score,
  status: Status,
  coverage: Fraction,
  controls_assessed: Type.Integer({ minimum: 0 }),
  controls_total: Type.Integer({ minimum: 0 }),
});

const PointAt = Type.Union([
  Type.Object({ analysis_id: Type.String(), created_at: Type.String({ format: 'date-time' }), score: Score, status: Status }),
  Type.Null(),
]);

export const PostureHistoryData = Type.Object({
  scope: Type.String(),
  framework: Type.Union([Type.String(), Type.Null()], { description: 'The framework asked for, canonical; null for all' }),
  analyses: Type.Array(
    Type.Object({
      analysis_id: Type.String(),
      created_at: Type.String({ format: 'date-time' }),
      expires_at: Type.String({ format: 'date-time' }),
      overall: Type.Object(
        { score: Score, status: Status, coverage: Fraction },
        { description: "The analysis's own overall posture, over all its frameworks" },
      ),
      frameworks: Type.Record(Type.String(), FrameworkPoint, { description: 'By framework code (only the one asked for, with `framework`)' }),
    }),
    { description: 'Oldest first' },
  ),
  trend: Type.Record(
    Type.String(),
    Type.Object({
      analyses: Type.Integer({ minimum: 0 }),
      first: PointAt,
      latest: PointAt,
      previous: PointAt,
      score_change: Type.Union([Type.Number(), Type.Null()], { description: 'latest − first' }),
      change_since_previous: Type.Union([Type.Number(), Type.Null()], { description: 'latest − previous' }),
      direction: StringEnum(['improving', 'declining', 'stable', 'insufficient_data'] as const),
    }),
    { description: 'By framework code, over the analyses shown' },
  ),
});

export const PostureHistoryMeta = Type.Object({
  total: Type.Integer({ minimum: 0, description: 'Live analyses of the scope in the window' }),
  returned: Type.Integer({ minimum: 0 }),
  truncated: Type.Boolean({ description: 'More analyses are in the window than `limit`: the oldest are left out' }),
  limit: Type.Integer({ minimum: 1 }),
});

export const COVERAGE_SUGGESTIONS_DEFAULT = 20;
export const COVERAGE_SUGGESTIONS_MAX = 500;

export const CoverageQuery = Type.Object({
  tools: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), {
      maxItems: 64,
      description: 'The tools a team runs, registry tool ids, comma-separated (tools=prowler,checkov) or repeated (docs/posture.md)',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: COVERAGE_SUGGESTIONS_MAX,
      default: COVERAGE_SUGGESTIONS_DEFAULT,
      description: `Suggested rules to list (at most ${COVERAGE_SUGGESTIONS_MAX})`,
    }),
  ),
});

const ControlItem = Type.Object({ id: Type.String(), title: Type.String() });

/** GET /v1/frameworks/{code}/coverage with tools, or of a registry framework: what the tools assess and what would assess the rest. */
export const CoveragePlanData = Type.Object({
  framework: Type.Object({
    code: Type.String(),
    name: Type.String(),
    version: Type.String(),
    custom: Type.Boolean(),
    revision: Type.Optional(Type.Integer({ minimum: 1, description: 'A custom framework: the stored version' })),
  }),
  tools: Type.Array(Type.String(), { description: 'The tools asked about, canonical ids, sorted' }),
  min_confidence: Fraction,
  summary: Type.Object({
    controls_total: Type.Integer({ minimum: 0 }),
    assessable: Type.Integer({ minimum: 0, description: 'Controls some rule of the tools reaches' }),
    not_reached: Type.Integer({ minimum: 0, description: 'Controls no rule of the tools reaches' }),
    reachable_by_other_tools: Type.Integer({ minimum: 0, description: "Of those, how many some other tool's rule reaches" }),
    unreachable: Type.Integer({ minimum: 0, description: 'Controls no rule of any tool in the registry reaches' }),
    coverage: Type.Number({ minimum: 0, maximum: 1, description: 'assessable / controls_total' }),
  }),
  assessable: Type.Array(ControlItem, { description: 'In control order' }),
  not_reached: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), reachable_by_other_tools: Type.Boolean() }), {
    description: 'In control order',
  }),
  suggested_rules: Type.Array(
    Type.Object({
      tool_id: Type.String(),
      rule_id: Type.String(),
      rule_name: Type.String(),
      controls_reached: Type.Integer({ minimum: 1 }),
      control_ids: Type.Array(Type.String()),
    }),
    { description: "Other tools' rules reaching not_reached controls, most reached first, then by tool and rule id; at most `limit`" },
  ),
  suggested_total: Type.Integer({ minimum: 0, description: 'How many such rules there are' }),
});
