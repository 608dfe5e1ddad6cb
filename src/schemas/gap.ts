import { Type, type Static } from '@sinclair/typebox';
import { FINDING_STATUSES, SEVERITIES } from '../core/vocabulary.js';
import { SIGNAL_ID_PATTERN } from './registry-source.js';
import { StringEnum } from './string-enum.js';

/**
 * A finding as submitted (spec 2.6), the one schema for a finding: the create and import routes,
 * /v1/validate, the engine and the OpenAPI document all use it. status and observed_at may be
 * absent (Variant B); absent status reads as open. A well-formed signal id that the registry does
 * not hold is refused by the create route (GAP_SIGNAL_NOT_FOUND), not by the schema.
 */
export const FindingInput = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 256 }),
    signal_id: Type.String({ pattern: SIGNAL_ID_PATTERN, maxLength: 128, description: 'CSR-<DOMAIN>-<CATEGORY>-<NAME...>-<NNN>' }),
    status: Type.Optional(StringEnum(FINDING_STATUSES)),
    observed_at: Type.Optional(Type.String({ format: 'date-time' })),
    severity: Type.Optional(
      Type.Object({
        level: StringEnum(SEVERITIES),
        score: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
      }),
    ),
    artifact: Type.Optional(
      Type.Object({
        type: Type.Optional(Type.String({ maxLength: 256 })),
        id: Type.Optional(Type.String({ maxLength: 1024 })),
        provider: Type.Optional(Type.String({ maxLength: 64 })),
      }),
    ),
  },
  { description: 'Scanner finding; fields beyond these are accepted and ignored.' },
);
export type FindingInput = Static<typeof FindingInput>;

export const AnalysisOptionsInput = Type.Object(
  {
    include_resolved: Type.Boolean({ default: false }),
    min_confidence: Type.Number({ minimum: 0, maximum: 1, default: 0.7 }),
    include_remediation: Type.Boolean({ default: true }),
    include_evidence_requirements: Type.Boolean({ default: false }),
    include_cross_framework: Type.Boolean({ default: true }),
    // DEFAULT_MAX_EVIDENCE_AGE_DAYS of src/gap/scoring.ts (test/gap/evidence-age.test.ts holds them equal).
    max_evidence_age_days: Type.Integer({
      minimum: 1,
      maximum: 3650,
      default: 90,
      description: 'Passing findings observed longer ago than this many days earn no credit (docs/scoring.md)',
    }),
  },
  { additionalProperties: false },
);

/**
 * What a caller names the thing an analysis looks at (an account, a cluster, a product): analyses
 * of one scope form its posture history (docs/posture.md). Printable text, no control characters.
 */
export const Scope = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
  description: 'The scope the analysis belongs to (an account, a cluster, a product): docs/posture.md',
});

const AnalysisRequestFields = {
  frameworks: Type.Array(Type.String(), { minItems: 1, description: 'Gap-analysis framework codes (or their aliases)' }),
  scope: Type.Optional(Scope),
  // Absent options read as {}, which the defaults of each option then fill.
  options: Type.Optional(Type.Partial(AnalysisOptionsInput, { additionalProperties: false, default: {} })),
};

/** POST /v1/gap-analysis: findings and the frameworks to assess them against. */
export const CreateAnalysisBody = Type.Object({ findings: Type.Array(FindingInput), ...AnalysisRequestFields }, { additionalProperties: false });

/**
 * The same request with its findings left unchecked: the worker checks this first, then the tier
 * limits, then each finding against FindingInput, so an oversized request is refused before
 * thousands of findings are checked (docs/lifecycle.md).
 */
export const AnalysisRequestEnvelope = Type.Object({ findings: Type.Array(Type.Unknown()), ...AnalysisRequestFields }, { additionalProperties: false });
export type CreateAnalysisBody = Static<typeof CreateAnalysisBody>;

export const CompareBody = Type.Object(
  {
    baseline_id: Type.String({ minLength: 1 }),
    current_id: Type.String({ minLength: 1 }),
    options: Type.Optional(Type.Object({ include_unchanged: Type.Optional(Type.Boolean({ default: false })) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type CompareBody = Static<typeof CompareBody>;
