/**
 * Schemas of the files under registry/sources (see docs/registry-sources.md). The compiler
 * validates every file against these before any integrity check, so a typo in a field name or an
 * enum value is reported with its file and JSON path. Records are closed (no unknown fields).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { FRAMEWORK_CODES, GAP_FRAMEWORK_CODES, SEVERITIES } from '../core/vocabulary.js';
import { StringEnum } from './string-enum.js';

/** `T | null` as one JSON-schema type list, so a failure reads "must be string,null", not an anyOf tree. */
function Nullable<T extends TSchema>(schema: T) {
  // A JSON copy drops TypeBox's symbol keys, so the result is a plain schema of kind Unsafe.
  const { type, ...rest } = JSON.parse(JSON.stringify(schema)) as { type: string };
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
}

function Closed<T extends Record<string, TSchema>>(properties: T) {
  return Type.Object(properties, { additionalProperties: false });
}

const Text = Type.String({ minLength: 1 });

export const DOMAIN_CODES = [...GAP_FRAMEWORK_CODES, 'GEN'] as const;
export const SIGNAL_CATEGORIES = [
  'ACCESS',
  'ADMIN',
  'ASSET',
  'AUDIT',
  'BCP',
  'COMMS',
  'CONFIG',
  'CRYPTO',
  'DATA',
  'DEV',
  'GOV',
  'IDENTITY',
  'IR',
  'NET',
  'PHYS',
  'PRIVACY',
  'RISK',
  'TECH',
  'TRAIN',
  'VENDOR',
  'VULN',
] as const;
export const RELATIONSHIPS = ['primary', 'supporting', 'partial'] as const;
/** The form of a signal id (docs/registry.md): CSR-<DOMAIN>-<CATEGORY>-<NAME of 1-4 words>-<NNN or NNNN>. */
export const SIGNAL_ID_PATTERN = `^CSR-(${DOMAIN_CODES.join('|')})-(${SIGNAL_CATEGORIES.join('|')})-[A-Z0-9]+(-[A-Z0-9]+){0,3}-[0-9]{3,4}$`;
export const PROVENANCE_KINDS = ['expert', 'crosswalk', 'scanner_rule', 'objective'] as const;
/** NIST IR 8477 set-theory relationships, read as "the objective is <relationship> the control". */
export const SET_RELATIONSHIPS = ['equal', 'subset_of', 'superset_of', 'intersects_with'] as const;
export const EFFORTS = ['low', 'medium', 'high'] as const;
export const FRAMEWORK_CATEGORIES = ['healthcare', 'financial', 'government', 'general'] as const;
export const ARTIFACT_CATEGORIES = ['cloud', 'endpoint', 'network', 'application', 'data', 'identity'] as const;
export const ARTIFACT_STATUSES = ['active', 'deprecated'] as const;
export const PROVIDERS = ['aws', 'azure', 'gcp', 'oci', 'alibaba'] as const;
export const TEMPLATE_STATUSES = ['ACTIVE', 'DRAFT', 'DEPRECATED'] as const;
export const TOOL_CONFIDENCES = ['HIGH', 'MEDIUM', 'LOW'] as const;
export const TOOL_CATEGORIES = ['cloud', 'container', 'sast', 'iac', 'sca', 'secrets', 'dast', 'network', 'endpoint', 'identity'] as const;

export const Severity = StringEnum(SEVERITIES);
export type Severity = Static<typeof Severity>;
export const Relationship = StringEnum(RELATIONSHIPS);
export type Relationship = Static<typeof Relationship>;
export const ProvenanceKind = StringEnum(PROVENANCE_KINDS);
export type ProvenanceKind = Static<typeof ProvenanceKind>;
export const SetRelationship = StringEnum(SET_RELATIONSHIPS);
export type SetRelationship = Static<typeof SetRelationship>;
export const Effort = StringEnum(EFFORTS);
export type Effort = Static<typeof Effort>;
export const DomainCode = StringEnum(DOMAIN_CODES);
export type DomainCode = Static<typeof DomainCode>;
export const FrameworkCode = StringEnum(FRAMEWORK_CODES);
export type FrameworkCode = Static<typeof FrameworkCode>;
export const FrameworkCategory = StringEnum(FRAMEWORK_CATEGORIES);
export type FrameworkCategory = Static<typeof FrameworkCategory>;
export const SignalCategory = StringEnum(SIGNAL_CATEGORIES);
export type SignalCategory = Static<typeof SignalCategory>;
export const ArtifactCategory = StringEnum(ARTIFACT_CATEGORIES);
export type ArtifactCategory = Static<typeof ArtifactCategory>;
export const Provider = StringEnum(PROVIDERS);
export type Provider = Static<typeof Provider>;
export const TemplateStatus = StringEnum(TEMPLATE_STATUSES);
export type TemplateStatus = Static<typeof TemplateStatus>;
export const ToolConfidence = StringEnum(TOOL_CONFIDENCES);
export type ToolConfidence = Static<typeof ToolConfidence>;
export const ToolCategory = StringEnum(TOOL_CATEGORIES);
export type ToolCategory = Static<typeof ToolCategory>;

const SemVer = Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$' });
const IsoDate = Type.String({ format: 'date' });
const Confidence = Type.Number({ minimum: 0, maximum: 1 });

// ---- frameworks/<CODE>.yaml (catalog facts, imported) ----

const FlagValue = Type.Unsafe<boolean | string | string[] | null>({
  type: ['boolean', 'string', 'array', 'null'],
  items: { type: 'string' },
});

export const CatalogControl = Closed({
  id: Text,
  title: Nullable(Type.String()),
  category: Text,
  level: Nullable(Type.String()),
  flags: Type.Optional(Type.Record(Type.String(), FlagValue)),
});
export type CatalogControl = Static<typeof CatalogControl>;

export const FrameworkCatalogFile = Closed({
  code: FrameworkCode,
  listing_code: Text,
  name: Text,
  version: Text,
  edition: Type.Optional(Type.String()),
  category: FrameworkCategory,
  /** What the framework is and whom it binds, in our words (the rest of the file is catalog fact). */
  description: Text,
  gap_analysis: Type.Boolean(),
  source: Type.Optional(Type.String()),
  /** The licence of the catalog's source (docs/registry-sources.md, Licences: what it allows, what we serve). */
  licence: Type.Optional(Text),
  controls: Type.Array(CatalogControl, { minItems: 1 }),
});
export type FrameworkCatalogFile = Static<typeof FrameworkCatalogFile>;

// ---- controls/<CODE>.yaml (our prose) ----

export const ControlProse = Closed({
  id: Text,
  title: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  technical: Type.Boolean(),
  description: Text,
  guidance: Text,
  evidence: Type.Array(Text, { minItems: 1, maxItems: 6 }),
});
export type ControlProse = Static<typeof ControlProse>;

export const ControlProseFile = Closed({
  framework: FrameworkCode,
  controls: Type.Array(ControlProse),
});
export type ControlProseFile = Static<typeof ControlProseFile>;

// ---- signals/<DOMAIN>.yaml ----

export const Provenance = Closed({
  kind: ProvenanceKind,
  /** crosswalk: the crosswalk file stem; scanner_rule: the tool id. */
  source: Type.Optional(Text),
  /** crosswalk: the control the crosswalk row starts from. */
  via: Type.Optional(Text),
  /** scanner_rule: the tool's rule ids. */
  rules: Type.Optional(Type.Array(Text, { minItems: 1 })),
  /** scanner_rule: the tool's framework map the claim is read from, with its version (e.g. `hipaa_aws @ 3e000faa3109`). */
  framework_version: Type.Optional(Text),
});
export type Provenance = Static<typeof Provenance>;

export const SignalMappingSource = Closed({
  framework: FrameworkCode,
  control: Text,
  relationship: Relationship,
  confidence: Confidence,
  rationale: Text,
  provenance: Provenance,
});
export type SignalMappingSource = Static<typeof SignalMappingSource>;

export const SignalSource = Closed({
  id: Text,
  category: SignalCategory,
  /** Technical signals carry the condition's full name, which some benchmarks make long. */
  title: Type.String({ minLength: 1, maxLength: 220 }),
  description: Text,
  severity: Severity,
  tags: Type.Array(Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }), { minItems: 2, maxItems: 6 }),
  version: SemVer,
  created: IsoDate,
  updated: IsoDate,
  effort: Effort,
  detection: Closed({
    artifact_types: Type.Array(Text, { minItems: 1 }),
    conditions: Type.Array(Text, { minItems: 1, maxItems: 3 }),
  }),
  remediation_hint: Text,
  mappings: Type.Array(SignalMappingSource),
});
export type SignalSource = Static<typeof SignalSource>;

/** The header (name, description, categories) appears only in signals/<DOMAIN>.yaml, not in part files. */
export const SignalsFile = Closed({
  domain: DomainCode,
  name: Type.Optional(Text),
  description: Type.Optional(Text),
  categories: Type.Optional(Type.Record(Type.String(), Text)),
  signals: Type.Array(SignalSource),
});
export type SignalsFile = Static<typeof SignalsFile>;

// ---- objectives/<FAMILY>.yaml (security objectives and their judged control links) ----

export const ObjectiveLink = Closed({
  framework: FrameworkCode,
  control: Text,
  /** The objective compared with the control (NIST IR 8477). */
  relationship: SetRelationship,
  /** Only with subset_of: the objective is a central part of what the control requires. */
  core: Type.Optional(Type.Boolean()),
  /** Why this pair holds, naming what in the control the objective evidences. */
  rationale: Type.String({ minLength: 40 }),
});
export type ObjectiveLink = Static<typeof ObjectiveLink>;

export const ObjectiveSource = Closed({
  id: Type.String({ pattern: '^OBJ-[A-Z]+(-[A-Z0-9]+){1,6}$' }),
  title: Type.String({ minLength: 1, maxLength: 100 }),
  statement: Text,
  links: Type.Array(ObjectiveLink),
});
export type ObjectiveSource = Static<typeof ObjectiveSource>;

export const ObjectivesFile = Closed({
  family: Type.String({ pattern: '^[A-Z]+$' }),
  name: Text,
  /** Who judged the links; a precision reviewer of these links must be someone else. */
  author: Text,
  objectives: Type.Array(ObjectiveSource),
  /**
   * Objective id → the signals that are instances of it (a failing result shows the objective
   * unmet). `{signal, evidence: partial}` marks a signal whose failure shows the objective may be
   * unmet (it checks one of several ways to meet it, e.g. one log destination): its mappings through
   * this objective are served as supporting at most.
   */
  assignments: Type.Record(Type.String(), Type.Array(Type.Union([Text, Closed({ signal: Text, evidence: StringEnum(['partial'] as const) })]))),
  /** Signals of the family that evidence none of its objectives, with the reason. */
  unassigned: Type.Optional(Type.Array(Closed({ signal: Text, reason: Text }))),
});
export type ObjectivesFile = Static<typeof ObjectivesFile>;

// ---- crosswalks/<A>__<B>.yaml (published rows, imported) ----

export const CrosswalkFile = Closed({
  framework_a: Text,
  framework_b: Text,
  publisher: Text,
  source: Type.Optional(Type.String()),
  relationship_semantics: Type.Optional(Nullable(Type.String())),
  /** The licence of the published mapping (docs/registry-sources.md, Licences). */
  licence: Type.Optional(Text),
  /**
   * false: the licence does not let a commercial service serve the rows or anything that follows
   * from them; the compiler checks the rows but derives no mapping or crosswalk record from them.
   */
  serve: Type.Optional(Type.Boolean()),
  rows: Type.Array(Type.Tuple([Text, Text, Text])),
});
export type CrosswalkFile = Static<typeof CrosswalkFile>;

// ---- artifact-types.yaml ----

export const ProviderMapping = Closed({
  provider: Provider,
  resource_type: Text,
  arn_format: Type.Optional(Text),
  documentation_url: Type.Optional(Type.String({ format: 'uri' })),
});
export type ProviderMapping = Static<typeof ProviderMapping>;

export const ArtifactTypeSource = Closed({
  id: Text,
  name: Text,
  description: Text,
  category: ArtifactCategory,
  subcategory: Type.String({ pattern: '^[a-z][a-z0-9_]*$' }),
  status: StringEnum(ARTIFACT_STATUSES),
  version: SemVer,
  ocsf: Closed({ object: Text, profile: Nullable(Type.String({ minLength: 1 })) }),
  security_attributes: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]*$' }), Type.Boolean()),
  provider_mappings: Type.Array(ProviderMapping),
});
export type ArtifactTypeSource = Static<typeof ArtifactTypeSource>;

export const ArtifactTypesFile = Closed({
  artifact_types: Type.Array(ArtifactTypeSource),
});
export type ArtifactTypesFile = Static<typeof ArtifactTypesFile>;

// ---- finding-templates/<DOMAIN>.yaml ----

export const FindingTemplateSource = Closed({
  id: Text,
  signal_id: Text,
  version: SemVer,
  status: TemplateStatus,
  title: Text,
  description: Text,
  severity: Severity,
  category: Type.String({ pattern: '^[a-z]+([_-][a-z0-9]+)*$' }),
  applicable_artifacts: Type.Array(Text, { minItems: 1 }),
  detection: Closed({ method: Text, criteria: Type.Array(Text, { minItems: 1 }) }),
  remediation: Closed({ description: Text, steps: Type.Array(Text, { minItems: 1 }) }),
});
export type FindingTemplateSource = Static<typeof FindingTemplateSource>;

export const FindingTemplatesFile = Closed({
  domain: Type.Optional(DomainCode),
  templates: Type.Array(FindingTemplateSource),
});
export type FindingTemplatesFile = Static<typeof FindingTemplatesFile>;

// ---- tools.yaml ----

export const ToolSource = Closed({
  id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]*$' }),
  name: Text,
  vendor: Text,
  category: ToolCategory,
  description: Text,
  website: Type.String({ format: 'uri' }),
  supported_platforms: Type.Array(Text),
  output_formats: Type.Array(Text),
  rule_id_format: Type.Optional(Text),
  open_source: Type.Optional(Type.Boolean()),
  license: Type.Optional(Text),
});
export type ToolSource = Static<typeof ToolSource>;

export const ToolsFile = Closed({ tools: Type.Array(ToolSource) });
export type ToolsFile = Static<typeof ToolsFile>;

// ---- tool-mappings/<tool>.yaml ----

export const ToolMappingSource = Closed({
  rule_id: Text,
  rule_name: Text,
  /** A finding template id. */
  template: Text,
  confidence: ToolConfidence,
});
export type ToolMappingSource = Static<typeof ToolMappingSource>;

export const ToolMappingsFile = Closed({
  tool_id: Text,
  mappings: Type.Array(ToolMappingSource),
});
export type ToolMappingsFile = Static<typeof ToolMappingsFile>;

// ---- rule-aliases/<tool>.yaml ----

export const RuleAliasSource = Closed({
  /** Another spelling under which the tool reports the rule (compared case-insensitively). */
  alias: Text,
  /** The canonical rule id (in rule-ids/<tool>.txt). */
  rule_id: Text,
  /** Why the two ids name one rule. */
  basis: Text,
});
export type RuleAliasSource = Static<typeof RuleAliasSource>;

export const RuleAliasesFile = Closed({
  tool_id: Text,
  aliases: Type.Array(RuleAliasSource),
});
export type RuleAliasesFile = Static<typeof RuleAliasesFile>;

// ---- supersessions/<DOMAIN>.yaml ----

export const SupersessionSource = Closed({
  /** A signal that stays served for existing integrations but is no longer where findings land. */
  signal_id: Text,
  /** The signals that took over its rules, at the grain of one condition. */
  superseded_by: Type.Array(Text, { minItems: 1 }),
});
export type SupersessionSource = Static<typeof SupersessionSource>;

export const SupersessionsFile = Closed({
  domain: DomainCode,
  supersessions: Type.Array(SupersessionSource),
});
export type SupersessionsFile = Static<typeof SupersessionsFile>;

// ---- registry.yaml ----

export const RegistryMetaFile = Closed({
  registry_version: SemVer,
  spec_version: SemVer,
  ocsf_version: SemVer,
});
export type RegistryMetaFile = Static<typeof RegistryMetaFile>;
