/**
 * Custom frameworks (Enterprise): an account's own control set, assessed like the registry's
 * frameworks (docs/custom-frameworks.md). The JSON form a client sends, the OSCAL catalog shape
 * we read, and what the /v1/frameworks routes answer about a custom framework.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './string-enum.js';

/** How a signal evidences a control: the registry's mapping relationships. */
export const SIGNAL_RELATIONSHIPS = ['primary', 'supporting', 'partial'] as const;
/** NIST IR 8477 set-theory relationships: the custom control (focal) against a built-in control (reference). */
export const CORRESPONDENCE_RELATIONSHIPS = ['equal', 'subset_of', 'superset_of', 'intersects_with'] as const;
export type CorrespondenceRelationship = (typeof CORRESPONDENCE_RELATIONSHIPS)[number];
/** How a framework was brought in. */
export const CUSTOM_FRAMEWORK_FORMATS = ['json', 'oscal', 'csv', 'xlsx'] as const;
export type CustomFrameworkFormat = (typeof CUSTOM_FRAMEWORK_FORMATS)[number];

/** Codes are stored in upper case; the registry's codes and aliases cannot be taken. */
export const CUSTOM_CODE_PATTERN = '^[A-Za-z][A-Za-z0-9._-]{1,31}$';
/** Letters, digits and the punctuation control catalogs use (NIST's "AC-2(1)", HIPAA's "164.308(a)(1)", GDPR's "Art. 5"). */
export const CONTROL_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9 ._()/:#+-]{0,99}$';

export const DEFAULT_SIGNAL_RELATIONSHIP = 'primary';
export const DEFAULT_SIGNAL_CONFIDENCE = 0.8;

const Text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description && { description }) });

export const CustomSignalLink = Type.Object(
  {
    signal_id: Type.String({ minLength: 1, maxLength: 128, description: 'A registry signal id' }),
    relationship: Type.Optional(StringEnum(SIGNAL_RELATIONSHIPS, { description: 'How the signal evidences the control (default primary)' })),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Confidence of the mapping, 0–1 (default 0.8)' })),
    rationale: Type.Optional(Text(2000, 'Why the signal evidences the control')),
  },
  { additionalProperties: false },
);

export const CustomCorrespondence = Type.Object(
  {
    framework: Type.String({ minLength: 1, maxLength: 64, description: 'A registry framework code (any accepted spelling)' }),
    control_id: Type.String({ minLength: 1, maxLength: 100, description: 'A control of that framework' }),
    relationship: StringEnum(CORRESPONDENCE_RELATIONSHIPS, {
      description: 'NIST IR 8477: this control is equal to, a subset of, a superset of, or intersects with the built-in control',
    }),
  },
  { additionalProperties: false },
);

export const CustomControlInput = Type.Object(
  {
    id: Type.String({ pattern: CONTROL_ID_PATTERN, description: 'Control id, unique in the framework' }),
    title: Type.String({ minLength: 1, maxLength: 500 }),
    description: Type.Optional(Text(20_000)),
    category: Type.Optional(Text(200, 'Control category (family); General when absent')),
    level: Type.Optional(Type.Union([Text(64), Type.Null()])),
    guidance: Type.Optional(Text(20_000)),
    evidence: Type.Optional(Type.Array(Text(1000), { maxItems: 50, description: 'Evidence items an assessor asks for' })),
    signals: Type.Optional(Type.Array(CustomSignalLink, { maxItems: 50, description: 'Signals that evidence the control directly' })),
    corresponds_to: Type.Optional(
      Type.Array(CustomCorrespondence, { maxItems: 20, description: 'Built-in controls whose signal mappings the control inherits' }),
    ),
  },
  { additionalProperties: false },
);
export type CustomControlInput = Static<typeof CustomControlInput>;

/** The JSON form of POST /v1/frameworks and PUT /v1/frameworks/{code}. */
export const CustomFrameworkInput = Type.Object(
  {
    code: Type.Optional(Type.String({ pattern: CUSTOM_CODE_PATTERN, description: 'Framework code (stored in upper case); PUT takes it from the path' })),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    version: Type.String({ minLength: 1, maxLength: 64, description: 'Your version label; a PUT must bring a new one' }),
    description: Type.Optional(Text(10_000)),
    controls: Type.Array(CustomControlInput, { minItems: 1, maxItems: 2000 }),
  },
  { additionalProperties: false, description: 'A custom framework in the JSON form (docs/custom-frameworks.md)' },
);
export type CustomFrameworkInput = Static<typeof CustomFrameworkInput>;

/** An OSCAL catalog (JSON), recognised by its `catalog` root; read as docs/custom-frameworks.md says. */
export const OscalCatalogInput = Type.Object(
  {
    catalog: Type.Object({
      uuid: Type.Optional(Type.String()),
      metadata: Type.Object({ title: Type.String(), version: Type.Optional(Type.String()) }),
      groups: Type.Optional(Type.Array(Type.Object({}))),
      controls: Type.Optional(Type.Array(Type.Object({}))),
    }),
  },
  { description: 'An OSCAL catalog in JSON (groups, controls and their parts)' },
);

/** What POST and PUT take as JSON: the JSON form or an OSCAL catalog. */
export const CustomFrameworkBody = Type.Union([CustomFrameworkInput, OscalCatalogInput]);

/** code, name, version (and description) for the forms that may lack them: OSCAL catalogs and spreadsheets. */
export const CustomFrameworkQuery = Type.Object({
  code: Type.Optional(Type.String({ pattern: CUSTOM_CODE_PATTERN, description: 'Framework code, where the file has none (POST)' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Framework name, where the file has none' })),
  version: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Version label, where the file has none' })),
  description: Type.Optional(Type.String({ maxLength: 10_000, description: 'Description, where the file has none' })),
});

const VersionEntry = Type.Object({
  revision: Type.Integer({ minimum: 1, description: 'Counts the versions stored: 1 at creation, one more at each PUT' }),
  version: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  control_count: Type.Integer({ minimum: 0 }),
  source_format: StringEnum(CUSTOM_FRAMEWORK_FORMATS),
});

const CustomFrameworkHead = {
  code: Type.String(),
  listing_code: Type.String(),
  name: Type.String(),
  version: Type.String(),
  category: Type.Literal('custom'),
  control_count: Type.Integer({ minimum: 0 }),
  description: Type.String(),
  gap_analysis: Type.Literal(true),
  custom: Type.Literal(true),
  revision: Type.Integer({ minimum: 1 }),
  source_format: StringEnum(CUSTOM_FRAMEWORK_FORMATS),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

/** A custom framework as GET /v1/frameworks lists it. */
export const CustomFrameworkListItem = Type.Object(CustomFrameworkHead);

/** A stored control: the JSON form with its defaults filled in and framework codes made canonical. */
export const CustomControl = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  category: Type.String(),
  level: Type.Union([Type.String(), Type.Null()]),
  guidance: Type.String(),
  evidence: Type.Array(Type.String()),
  signals: Type.Array(
    Type.Object({ signal_id: Type.String(), relationship: StringEnum(SIGNAL_RELATIONSHIPS), confidence: Type.Number(), rationale: Type.String() }),
  ),
  corresponds_to: Type.Array(Type.Object({ framework: Type.String(), control_id: Type.String(), relationship: StringEnum(CORRESPONDENCE_RELATIONSHIPS) })),
});
export type CustomControl = Static<typeof CustomControl>;

/** GET /v1/frameworks/{code} of a custom framework, and what POST and PUT answer: the definition, as the JSON form takes it back. */
export const CustomFrameworkDetail = Type.Object({
  ...CustomFrameworkHead,
  control_categories: Type.Array(Type.String()),
  versions: Type.Array(VersionEntry, { description: 'Every version stored, oldest first' }),
  controls: Type.Array(CustomControl),
});

export const CustomFrameworkDeleted = Type.Object({ code: Type.String(), deleted: Type.Literal(true), revision: Type.Integer({ minimum: 1 }) });

/** GET /v1/frameworks/{code}/coverage: which controls the registry's signals and scanner rules can assess. */
export const CustomFrameworkCoverage = Type.Object({
  framework: Type.Object({ code: Type.String(), name: Type.String(), version: Type.String(), revision: Type.Integer({ minimum: 1 }) }),
  summary: Type.Object({
    controls_total: Type.Integer({ minimum: 0 }),
    assessable: Type.Integer({ minimum: 0, description: 'Controls with a signal at or above the default min_confidence (0.7)' }),
    assessable_by_scanner_rules: Type.Integer({ minimum: 0, description: 'Assessable controls with a signal that a scanner rule reports' }),
    below_default_confidence: Type.Integer({
      minimum: 0,
      description: 'Controls whose signals all fall below 0.7: assessed only when an analysis lowers min_confidence',
    }),
    unassessable: Type.Integer({ minimum: 0, description: 'Controls no signal reaches' }),
    coverage: Type.Number({ minimum: 0, maximum: 1, description: 'assessable / controls_total' }),
  }),
  controls: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      category: Type.String(),
      status: StringEnum(['assessable', 'below_default_confidence', 'unassessable'] as const),
      direct_signals: Type.Integer({ minimum: 0 }),
      inherited_signals: Type.Integer({ minimum: 0 }),
      signals_at_default_confidence: Type.Integer({ minimum: 0 }),
      scanner_rules: Type.Integer({ minimum: 0, description: 'Scanner rules (tool, rule id) that report one of its signals at or above 0.7' }),
      unknown_references: Type.Array(Type.String(), { description: 'Signals or built-in controls the current registry no longer has' }),
    }),
  ),
});
