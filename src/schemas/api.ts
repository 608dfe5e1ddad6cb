/**
 * Schemas of the registry API: response `data` and `meta` of each read endpoint (spec parts 2 and 4,
 * used by the OpenAPI document), request bodies, and the object schemas that /v1/validate checks
 * against (signal, finding, artifact, mapping).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  ArtifactType,
  ArtifactTypeRef,
  ControlCrosswalk,
  ControlDetail,
  DomainDetail,
  DomainListItem,
  FindingTemplate,
  FrameworkDetail,
  FrameworkListItem,
  FrameworkOverlap,
  MappedSignalRef,
  MappingRecord,
  OverlapStats,
  RegistryStats,
  SecurityTool,
  SignalCoverage,
  SignalCoverageSummary,
  SignalDetail,
  SignalListItem,
  TemplateToolMapping,
  ToolMapping,
  ToolRuleMatch,
  CROSSWALK_RELATIONSHIPS,
  SIGNAL_STATUSES,
} from './registry.js';
import {
  ARTIFACT_CATEGORIES,
  ARTIFACT_STATUSES,
  DOMAIN_CODES,
  EFFORTS,
  PROVIDERS,
  PROVENANCE_KINDS,
  RELATIONSHIPS,
  SET_RELATIONSHIPS,
  SIGNAL_CATEGORIES,
  SIGNAL_ID_PATTERN,
} from './registry-source.js';
import { FindingInput } from './gap.js';
import { FRAMEWORK_CODES, SEVERITIES } from '../core/vocabulary.js';
import { CustomFrameworkDetail, CustomFrameworkListItem } from './custom-framework.js';
import { StringEnum } from './string-enum.js';

// ---- meta ----

const Total = Type.Integer({ minimum: 0 });
const RegistryVersion = {
  version: Type.String({ description: 'Registry release (semantic version)' }),
  generated_at: Type.String({ format: 'date-time', description: 'When this registry index was built' }),
};

export const TotalMeta = Type.Object({ total: Total });
export const PageMeta = Type.Object({ total: Total, page: Type.Integer(), per_page: Type.Integer() });
export const PagesMeta = Type.Object({ total: Total, page: Type.Integer(), per_page: Type.Integer(), total_pages: Type.Integer() });
export const WindowMeta = Type.Object({ total: Total, limit: Type.Integer(), offset: Type.Integer(), has_more: Type.Boolean() });
export const VersionMeta = Type.Object(RegistryVersion);
export const CatalogPageMeta = Type.Object({ ...RegistryVersion, total: Total, page: Type.Integer(), per_page: Type.Integer() });
export const CatalogTotalMeta = Type.Object({ ...RegistryVersion, total: Total });
export const ArtifactTypePageMeta = Type.Object({
  ...RegistryVersion,
  ocsf_version: Type.String(),
  total: Total,
  page: Type.Integer(),
  per_page: Type.Integer(),
});
export const ArtifactTypeMeta = Type.Object({ ...RegistryVersion, ocsf_version: Type.String() });
export const ResolveMeta = Type.Object({ ...RegistryVersion, total_requested: Total, total_matched: Total });
export const SearchMeta = Type.Object({ total: Total, query: Type.String(), page: Type.Integer(), per_page: Type.Integer() });
export const MappingsMeta = Type.Object({
  total: Total,
  page: Type.Integer(),
  per_page: Type.Integer(),
  filters_applied: Type.Object({
    framework: Type.Union([Type.String(), Type.Null()]),
    min_confidence: Type.Number(),
    signal_id: Type.Optional(Type.String()),
    control_id: Type.Optional(Type.String()),
  }),
});
export const CrosswalkWindowMeta = Type.Object({ ...RegistryVersion, total: Total, limit: Type.Integer(), offset: Type.Integer(), has_more: Type.Boolean() });

// ---- signals, mappings, domains, search, stats ----

export const SignalList = Type.Array(SignalListItem);
export { SignalDetail, RegistryStats, DomainDetail };

/** A mapping as the signal-mappings and mapping-list endpoints return it (the compiled record). */
export const SignalMappings = Type.Object({ signal_id: Type.String(), mappings: Type.Array(MappingRecord) });
export const MappingList = Type.Array(MappingRecord);

// Request bodies refuse fields they do not know: a misspelt filter must not be silently ignored.
const Strict = { additionalProperties: false } as const;

export const BulkSignalsBody = Type.Object(
  {
    ids: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 100, description: 'Signal ids, at most 100' }),
  },
  Strict,
);
export type BulkSignalsBody = Static<typeof BulkSignalsBody>;

export const BulkSignalsResult = Type.Object({
  results: Type.Array(
    Type.Object({
      id: Type.String(),
      status: StringEnum(['found', 'not_found'] as const),
      signal: Type.Optional(Type.Object({ id: Type.String(), canonical_name: Type.String(), severity: Type.String(), domain: Type.String() })),
    }),
  ),
  summary: Type.Object({ total: Total, found: Total, not_found: Total }),
});

export const BulkMappingsBody = Type.Object(
  {
    signal_ids: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 100, description: 'Signal ids, at most 100' }),
    framework: Type.Optional(Type.String({ description: 'Framework code (gap-analysis or listing spelling, any case)' })),
    min_confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  Strict,
);
export type BulkMappingsBody = Static<typeof BulkMappingsBody>;

export const BulkMappingsResult = Type.Object({
  results: Type.Array(
    Type.Object({
      signal_id: Type.String(),
      status: StringEnum(['found', 'not_found'] as const),
      mappings: Type.Array(Type.Object({ framework: Type.String(), control_id: Type.String(), control_name: Type.String(), confidence: Type.Number() })),
    }),
  ),
  summary: Type.Object({ total_signals: Total, total_mappings: Total }),
});

export const DomainList = Type.Array(DomainListItem);

export const SearchHits = Type.Array(
  Type.Object({ id: Type.String(), domain: Type.String(), title: Type.String(), severity: Type.String(), score: Type.Number({ minimum: 0, maximum: 1 }) }),
);

// ---- frameworks and controls ----

/** The registry's frameworks (custom: false), then an Enterprise account's own (docs/custom-frameworks.md). */
export const FrameworkList = Type.Array(
  Type.Union([Type.Composite([FrameworkListItem, Type.Object({ custom: Type.Literal(false) })]), CustomFrameworkListItem]),
);

/** GET /v1/frameworks/{code}: a registry framework, or one of the account's own with its definition. */
export const FrameworkView = Type.Union([Type.Composite([FrameworkDetail, Type.Object({ custom: Type.Literal(false) })]), CustomFrameworkDetail]);

export const FrameworkControls = Type.Object({
  framework: Type.Object({
    code: Type.String(),
    name: Type.String(),
    version: Type.String(),
    custom: Type.Boolean({ description: "true for the account's own framework" }),
    revision: Type.Optional(Type.Integer({ minimum: 1, description: 'Custom frameworks: the stored version shown' })),
  }),
  controls: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      category: Type.String(),
      description: Type.String(),
      mapped_signals: Type.Integer({ description: 'Number of distinct signals mapped to the control' }),
      signal_ids: Type.Array(Type.String()),
    }),
  ),
});

export const ControlList = Type.Array(
  Type.Object({
    id: Type.String(),
    framework: Type.String(),
    title: Type.String(),
    category: Type.String(),
    description: Type.String(),
    level: Type.Union([Type.String(), Type.Null()]),
    mapped_signals: Type.Array(MappedSignalRef),
  }),
);
export { ControlDetail };

// ---- artifact types, templates, tool mappings, tools ----

export const ArtifactTypeList = Type.Array(ArtifactType);
export { ArtifactType };

export const ResolveBody = Type.Object(
  {
    resources: Type.Array(
      Type.Object(
        {
          provider: Type.String({ minLength: 1, description: 'aws, azure, gcp, oci or alibaba (any case)' }),
          resource_type: Type.String({ minLength: 1, maxLength: 512 }),
        },
        Strict,
      ),
      { maxItems: 100, description: 'Provider resources, at most 100' },
    ),
  },
  Strict,
);
export type ResolveBody = Static<typeof ResolveBody>;

export const ResolveResult = Type.Array(
  Type.Object({
    provider: Type.String(),
    resource_type: Type.String(),
    artifact_type: Type.Union([ArtifactTypeRef, Type.Null()]),
    matched: Type.Boolean(),
  }),
);

export const FindingTemplateList = Type.Array(FindingTemplate);

/** Spec 2.11: the detail replaces applicable_artifacts, detection and remediation with signal and tool_mappings. */
export const FindingTemplateView = Type.Object({
  id: Type.String(),
  signal_id: Type.String(),
  version: Type.String(),
  status: Type.String(),
  title: Type.String(),
  description: Type.String(),
  severity: Type.String(),
  category: Type.String(),
  signal: Type.Object({ id: Type.String(), name: Type.String(), domain: Type.String(), category: Type.String() }),
  tool_mappings: Type.Array(TemplateToolMapping),
});

export const ToolMappingList = Type.Array(ToolMapping);
export const ToolRuleMatches = Type.Array(ToolRuleMatch);
export const SecurityToolList = Type.Array(SecurityTool);

// ---- crosswalks ----

export const OverlapView = Type.Composite([
  FrameworkOverlap,
  Type.Object({
    controls: Type.Optional(Type.Array(ControlCrosswalk, { description: 'With include_controls=true: the control crosswalks of the pair (up to limit)' })),
  }),
]);
export const CrosswalkOverlaps = Type.Union([
  Type.Object({ overlaps: Type.Array(FrameworkOverlap), stats: OverlapStats }),
  Type.Object({ overlap: OverlapView }),
]);

export const ControlCrosswalks = Type.Object({
  crosswalks: Type.Array(ControlCrosswalk),
  summary: Type.Object({
    total_crosswalks: Total,
    relationship_breakdown: Type.Object(
      Object.fromEntries(CROSSWALK_RELATIONSHIPS.map((r) => [r, Total])) as Record<(typeof CROSSWALK_RELATIONSHIPS)[number], typeof Total>,
    ),
  }),
});

const CoverageListItem = Type.Omit(SignalCoverage, ['is_multi_framework']);
export const SignalCoverageView = Type.Union([Type.Object({ signals: Type.Array(CoverageListItem), summary: SignalCoverageSummary }), SignalCoverage]);

// ---- validation (spec 4.3, 2.14) ----

export const SCHEMA_TYPES = ['signal', 'finding', 'artifact', 'mapping'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];
/** Version of the object schemas below; bump on any change to them. */
export const VALIDATION_SCHEMA_VERSION = '1.0.0';

const Text = Type.String({ minLength: 1 });
const Confidence = Type.Number({ minimum: 0, maximum: 1 });
const SemVer = Type.String({ pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$' });
const Closed = <T extends Record<string, TSchema>>(properties: T) => Type.Object(properties, { additionalProperties: false });

/** A signal as the registry publishes it (spec 2.2); the detail fields are optional. */
export const SignalObject = Closed({
  id: Type.String({ pattern: SIGNAL_ID_PATTERN, description: 'CSR-<DOMAIN>-<CATEGORY>-<NAME...>-<NNN>' }),
  domain: StringEnum(DOMAIN_CODES),
  category: StringEnum(SIGNAL_CATEGORIES),
  title: Type.String({ minLength: 1, maxLength: 220 }),
  description: Text,
  severity: StringEnum(SEVERITIES),
  tags: Type.Array(Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }), { minItems: 1 }),
  version: SemVer,
  detection: Type.Optional(Closed({ artifact_types: Type.Array(Text), conditions: Type.Array(Text) })),
  remediation_hint: Type.Optional(Text),
  effort: Type.Optional(StringEnum(EFFORTS)),
  created: Type.Optional(Type.String({ format: 'date' })),
  updated: Type.Optional(Type.String({ format: 'date' })),
  // Registry 2.0.0: served signals say whether they are superseded (docs/registry.md).
  status: Type.Optional(StringEnum(SIGNAL_STATUSES)),
  superseded_by: Type.Optional(Type.Array(Type.String())),
});

/** An artifact type definition (spec 2.10). */
export const ArtifactObject = Closed({
  id: Type.String({ pattern: '^[a-z]+\\.[a-z0-9_]+\\.[a-z0-9_]+$', description: '<category>.<subcategory>.<name>' }),
  name: Text,
  description: Text,
  category: StringEnum(ARTIFACT_CATEGORIES),
  subcategory: Type.String({ pattern: '^[a-z][a-z0-9_]*$' }),
  ocsf: Closed({ object: Text, profile: Type.Unsafe<string | null>({ type: ['string', 'null'] }) }),
  security_attributes: Type.Record(Type.String(), Type.Boolean()),
  provider_mappings: Type.Array(
    Closed({
      provider: StringEnum(PROVIDERS),
      resource_type: Text,
      arn_format: Type.Optional(Text),
      documentation_url: Type.Optional(Type.String({ format: 'uri' })),
    }),
  ),
  status: StringEnum(ARTIFACT_STATUSES),
  version: Type.Optional(SemVer),
});

/** A signal-to-control mapping record (spec 2.3). */
export const MappingObject = Closed({
  id: Type.Optional(Type.String()),
  signal_id: Type.String({ pattern: SIGNAL_ID_PATTERN }),
  framework: StringEnum(FRAMEWORK_CODES),
  control_id: Text,
  control_title: Type.Optional(Text),
  relationship: StringEnum(RELATIONSHIPS),
  confidence: Confidence,
  rationale: Text,
  provenance: Type.Optional(
    Closed({
      kind: StringEnum(PROVENANCE_KINDS),
      source: Type.Optional(Text),
      via: Type.Optional(Text),
      rules: Type.Optional(Type.Array(Text)),
      framework_version: Type.Optional(Text),
      objective: Type.Optional(Text),
      set_relationship: Type.Optional(StringEnum(SET_RELATIONSHIPS)),
    }),
  ),
  derived: Type.Optional(Type.Boolean()),
});

export const VALIDATION_SCHEMAS: Record<SchemaType, TSchema> = {
  signal: SignalObject,
  // One schema for a finding: /v1/validate answers exactly what POST /v1/gap-analysis would.
  finding: FindingInput,
  artifact: ArtifactObject,
  mapping: MappingObject,
};

export const ValidationError = Type.Object({
  path: Type.String({ description: 'JSON pointer to the offending value ("" is the object itself)' }),
  message: Type.String(),
  keyword: Type.String({ description: 'The schema keyword that failed, e.g. required, enum, type' }),
});
export type ValidationError = Static<typeof ValidationError>;

export const ValidateBody = Type.Object(
  {
    schema: StringEnum(SCHEMA_TYPES),
    data: Type.Unknown({ description: 'The object to check' }),
  },
  Strict,
);
export type ValidateBody = Static<typeof ValidateBody>;

export const ValidateBatchBody = Type.Object(
  {
    schema: StringEnum(SCHEMA_TYPES),
    items: Type.Array(Type.Unknown(), { maxItems: 100, description: 'Objects to check, at most 100' }),
  },
  Strict,
);
export type ValidateBatchBody = Static<typeof ValidateBatchBody>;

export const ValidationResult = Type.Object({
  valid: Type.Boolean(),
  schema_type: StringEnum(SCHEMA_TYPES),
  schema_version: Type.String(),
  errors: Type.Optional(Type.Array(ValidationError, { description: 'At most 50; errors_total counts them all when there are more' })),
  errors_total: Type.Optional(Type.Integer({ minimum: 0, description: 'Present when errors lists only the first 50' })),
});

export const BatchItemResult = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  valid: Type.Boolean(),
  errors: Type.Optional(Type.Array(ValidationError, { description: 'At most 50; errors_total counts them all when there are more' })),
  errors_total: Type.Optional(Type.Integer({ minimum: 0, description: 'Present when errors lists only the first 50' })),
});
export type BatchItemResult = Static<typeof BatchItemResult>;

export const BatchValidationResult = Type.Object({
  schema_type: StringEnum(SCHEMA_TYPES),
  schema_version: Type.String(),
  results: Type.Array(BatchItemResult),
  summary: Type.Object({ total: Total, valid: Total, invalid: Total }),
});
