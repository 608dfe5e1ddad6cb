/**
 * Records of the compiled registry: what registry/compile.ts writes into the LMDB index and what
 * the read model (src/registry) returns. They are plain objects, ready to serialize; responses pick
 * or rename fields from them (e.g. control_title → control_name in bulk mapping results).
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './string-enum.js';
import { ArtifactTypeSource, FindingTemplateSource, Effort, ProvenanceKind, Relationship, Severity, ToolConfidence, ToolSource } from './registry-source.js';

const SeverityCounts = Type.Object({
  critical: Type.Integer(),
  high: Type.Integer(),
  medium: Type.Integer(),
  low: Type.Integer(),
  info: Type.Integer(),
});

export const SIGNAL_STATUSES = ['active', 'superseded'] as const;

export const SignalListItem = Type.Object({
  id: Type.String(),
  domain: Type.String(),
  category: Type.String(),
  title: Type.String(),
  description: Type.String(),
  severity: Severity,
  tags: Type.Array(Type.String()),
  version: Type.String(),
  status: StringEnum(SIGNAL_STATUSES, {
    description:
      'active: findings land here. superseded: a broad signal of an earlier registry version, still served so existing references resolve; its rules moved to the signals in superseded_by.',
  }),
  superseded_by: Type.Optional(
    Type.Array(Type.String(), { description: 'Only on a superseded signal: the signals, each one checkable condition, that took over its scanner rules.' }),
  ),
});
export type SignalListItem = Static<typeof SignalListItem>;

export const SignalDetail = Type.Composite([
  SignalListItem,
  Type.Object({
    detection: Type.Object({ artifact_types: Type.Array(Type.String()), conditions: Type.Array(Type.String()) }),
    remediation_hint: Type.String(),
    effort: Effort,
    created: Type.String(),
    updated: Type.String(),
  }),
]);
export type SignalDetail = Static<typeof SignalDetail>;

export const MappingProvenance = Type.Object({
  kind: ProvenanceKind,
  source: Type.Optional(Type.String()),
  via: Type.Optional(Type.String()),
  rules: Type.Optional(Type.Array(Type.String())),
  /** scanner_rule: the tool's framework map the claim is read from, with its version. */
  framework_version: Type.Optional(Type.String()),
  /** objective: the security objective the signal evidences, through which the control is reached. */
  objective: Type.Optional(Type.String()),
  /** objective: the objective compared with the control (NIST IR 8477: equal, subset_of, superset_of, intersects_with). */
  set_relationship: Type.Optional(Type.String()),
});
export type MappingProvenance = Static<typeof MappingProvenance>;

export const MappingRecord = Type.Object({
  id: Type.String(),
  signal_id: Type.String(),
  framework: Type.String(),
  control_id: Type.String(),
  control_title: Type.String(),
  relationship: Relationship,
  confidence: Type.Number(),
  rationale: Type.String(),
  provenance: MappingProvenance,
  /** true for mappings the compiler derived (through a security objective or a published crosswalk), false for mappings authored on the signal. */
  derived: Type.Boolean(),
});
export type MappingRecord = Static<typeof MappingRecord>;

export const DomainListItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  signal_count: Type.Integer(),
  categories: Type.Array(Type.String()),
});
export type DomainListItem = Static<typeof DomainListItem>;

export const DomainDetail = Type.Composite([
  DomainListItem,
  Type.Object({
    description: Type.String(),
    /** Category code → its description, from the domain header. */
    category_descriptions: Type.Record(Type.String(), Type.String()),
    stats: Type.Object({ by_category: Type.Record(Type.String(), Type.Integer()), by_severity: SeverityCounts }),
  }),
]);
export type DomainDetail = Static<typeof DomainDetail>;

export const FrameworkListItem = Type.Object({
  code: Type.String(),
  listing_code: Type.String(),
  name: Type.String(),
  version: Type.String(),
  category: Type.String(),
  control_count: Type.Integer(),
  description: Type.String(),
  gap_analysis: Type.Boolean(),
});
export type FrameworkListItem = Static<typeof FrameworkListItem>;

export const FrameworkDetail = Type.Composite([
  FrameworkListItem,
  Type.Object({
    edition: Type.String(),
    source: Type.String(),
    /** Control categories (families) in catalog order. */
    control_categories: Type.Array(Type.String()),
  }),
]);
export type FrameworkDetail = Static<typeof FrameworkDetail>;

export const MappedSignalRef = Type.Object({
  signal_id: Type.String(),
  relationship: Relationship,
  confidence: Type.Number(),
  /** The mapping record (MAP-<n>) behind the reference. */
  mapping_id: Type.String(),
});
export type MappedSignalRef = Static<typeof MappedSignalRef>;

export const ControlListItem = Type.Object({
  id: Type.String(),
  framework: Type.String(),
  title: Type.String(),
  category: Type.String(),
  description: Type.String(),
  level: Type.Union([Type.String(), Type.Null()]),
  technical: Type.Union([Type.Boolean(), Type.Null()]),
  /** One entry per mapping (best first); the listing's mapped_signals count is signal_ids.length. */
  mapped_signals: Type.Array(MappedSignalRef),
  signal_ids: Type.Array(Type.String()),
});
export type ControlListItem = Static<typeof ControlListItem>;

export const RelatedControl = Type.Object({
  framework: Type.String(),
  control_id: Type.String(),
  title: Type.String(),
  relationship: Type.String(),
  strength: Type.Number(),
});
export type RelatedControl = Static<typeof RelatedControl>;

export const ControlDetail = Type.Object({
  id: Type.String(),
  framework: Type.String(),
  title: Type.String(),
  category: Type.String(),
  description: Type.String(),
  guidance: Type.String(),
  evidence: Type.Array(Type.String()),
  level: Type.Union([Type.String(), Type.Null()]),
  technical: Type.Union([Type.Boolean(), Type.Null()]),
  flags: Type.Record(Type.String(), Type.Unknown()),
  mapped_signals: Type.Array(
    Type.Composite([MappedSignalRef, Type.Object({ title: Type.String(), severity: Severity, rationale: Type.String(), derived: Type.Boolean() })]),
  ),
  related_controls: Type.Array(RelatedControl),
});
export type ControlDetail = Static<typeof ControlDetail>;

export const ArtifactType = ArtifactTypeSource;
export type ArtifactType = Static<typeof ArtifactType>;

export const ArtifactTypeRef = Type.Object({
  id: Type.String(),
  name: Type.String(),
  category: Type.String(),
  subcategory: Type.String(),
});
export type ArtifactTypeRef = Static<typeof ArtifactTypeRef>;

export const FindingTemplate = FindingTemplateSource;
export type FindingTemplate = Static<typeof FindingTemplate>;

export const TemplateToolMapping = Type.Object({
  tool_id: Type.String(),
  tool_name: Type.String(),
  rule_id: Type.String(),
  confidence: ToolConfidence,
});

export const FindingTemplateDetail = Type.Composite([
  FindingTemplateSource,
  Type.Object({
    signal: Type.Object({ id: Type.String(), name: Type.String(), domain: Type.String(), category: Type.String() }),
    tool_mappings: Type.Array(TemplateToolMapping),
  }),
]);
export type FindingTemplateDetail = Static<typeof FindingTemplateDetail>;

export const ToolMapping = Type.Object({
  id: Type.String(),
  tool_id: Type.String(),
  tool_name: Type.String(),
  finding_template_id: Type.String(),
  rule_id: Type.String(),
  rule_name: Type.String(),
  confidence: ToolConfidence,
});
export type ToolMapping = Static<typeof ToolMapping>;

export const ToolRuleMatch = Type.Object({
  tool_id: Type.String(),
  tool_name: Type.String(),
  rule_id: Type.String(),
  confidence: ToolConfidence,
  finding_template: Type.Object({
    id: Type.String(),
    title: Type.String(),
    description: Type.String(),
    severity: Severity,
    category: Type.String(),
    signal_id: Type.String(),
  }),
});
export type ToolRuleMatch = Static<typeof ToolRuleMatch>;

export const SecurityTool = Type.Composite([ToolSource, Type.Object({ mapping_count: Type.Integer() })]);
export type SecurityTool = Static<typeof SecurityTool>;

export const FrameworkOverlap = Type.Object({
  framework_a: Type.String(),
  framework_b: Type.String(),
  shared_signals: Type.Integer(),
  crosswalk_count: Type.Integer(),
  overlap_percentage: Type.Number(),
});
export type FrameworkOverlap = Static<typeof FrameworkOverlap>;

export const OverlapStats = Type.Object({
  total_crosswalks: Type.Integer(),
  frameworks_analyzed: Type.Integer(),
  average_overlap: Type.Number(),
});
export type OverlapStats = Static<typeof OverlapStats>;

export const ControlRef = Type.Object({ framework: Type.String(), control_id: Type.String(), title: Type.String() });
export type ControlRef = Static<typeof ControlRef>;

export const CROSSWALK_RELATIONSHIPS = ['equivalent', 'related', 'partial'] as const;
export const CrosswalkRelationship = StringEnum(CROSSWALK_RELATIONSHIPS);
export type CrosswalkRelationship = Static<typeof CrosswalkRelationship>;

export const ControlCrosswalk = Type.Object({
  control_a: ControlRef,
  control_b: ControlRef,
  shared_signals: Type.Array(Type.String()),
  strength: Type.Number(),
  relationship: CrosswalkRelationship,
  /** Crosswalk file stems that publish the pair, and/or "shared_signals". */
  basis: Type.Array(Type.String()),
});
export type ControlCrosswalk = Static<typeof ControlCrosswalk>;

export const SignalCoverage = Type.Object({
  signal_id: Type.String(),
  frameworks: Type.Array(Type.String()),
  framework_count: Type.Integer(),
  controls_by_framework: Type.Record(Type.String(), Type.Array(Type.String())),
  is_multi_framework: Type.Boolean(),
});
export type SignalCoverage = Static<typeof SignalCoverage>;

export const SignalCoverageSummary = Type.Object({
  total_multi_framework_signals: Type.Integer(),
  by_framework_count: Type.Object({
    '2_frameworks': Type.Integer(),
    '3_frameworks': Type.Integer(),
    '4_plus_frameworks': Type.Integer(),
  }),
});
export type SignalCoverageSummary = Static<typeof SignalCoverageSummary>;

export const RegistryStats = Type.Object({
  registry_version: Type.String(),
  spec_version: Type.String(),
  /** The latest `updated` date of any signal, as an ISO 8601 timestamp (content-derived). */
  last_updated: Type.String(),
  total_signals: Type.Integer(),
  total_mappings: Type.Integer(),
  domains: Type.Integer(),
  categories: Type.Integer(),
  by_domain: Type.Record(Type.String(), Type.Integer()),
  by_severity: SeverityCounts,
});
export type RegistryStats = Static<typeof RegistryStats>;

export const RegistryManifest = Type.Object({
  registry_version: Type.String(),
  spec_version: Type.String(),
  ocsf_version: Type.String(),
  /** Version of the key/value layout; the read model refuses a build of another layout. */
  layout_version: Type.Integer(),
  /** sha256 of the canonical compiled content: same sources, same hash. */
  content_hash: Type.String(),
  /** sha256 of the source bytes and the compiler code; decides staleness. */
  source_hash: Type.String(),
  built_at: Type.String(),
  /** Directory (under the registry dir) that holds this build's LMDB. */
  build: Type.String(),
  counts: Type.Record(Type.String(), Type.Integer()),
});
export type RegistryManifest = Static<typeof RegistryManifest>;
