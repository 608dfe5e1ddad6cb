/**
 * The checked registry model: sources after integrity checks, linked and sorted. Every later
 * compile step (derivation, indexes) reads only this.
 */
import type {
  ArtifactTypeSource,
  ControlProse,
  FindingTemplateSource,
  ObjectiveSource,
  RegistryMetaFile,
  SignalSource,
  ToolConfidence,
  ToolSource,
} from '../../src/schemas/registry-source.js';

export interface ControlNode {
  framework: string;
  id: string;
  /** Catalog title, else our prose title, else "<framework> <id>". */
  title: string;
  category: string;
  level: string | null;
  flags: Record<string, unknown>;
  /** Position in the catalog, for catalog order. */
  index: number;
  prose?: ControlProse;
}

export interface FrameworkNode {
  code: string;
  listing_code: string;
  name: string;
  version: string;
  edition: string;
  description: string;
  source: string;
  category: string;
  gap_analysis: boolean;
  controls: ControlNode[];
  byId: Map<string, ControlNode>;
}

export interface DomainNode {
  code: string;
  name: string;
  description: string;
  categories: Record<string, string>;
}

export interface SignalNode extends SignalSource {
  domain: string;
  file: string;
  path: string;
}

/** A security objective with its judged control links (objectives/<FAMILY>.yaml). */
export interface ObjectiveNode extends ObjectiveSource {
  family: string;
  author: string;
  file: string;
  path: string;
  /** The signals assigned to it, sorted. */
  signals: string[];
}

/** One row of a crosswalk file, as published (framework codes of the file, not yet expanded). */
export interface CrosswalkRow {
  a: string;
  b: string;
  relationship: string;
}

export interface CrosswalkNode {
  stem: string;
  file: string;
  framework_a: string;
  framework_b: string;
  publisher: string;
  /** false: its licence forbids serving the rows or what follows from them (checked, never derived from). */
  serve: boolean;
  rows: CrosswalkRow[];
}

export interface TemplateNode extends FindingTemplateSource {
  domain: string;
}

export interface ToolMappingNode {
  tool_id: string;
  rule_id: string;
  rule_name: string;
  template: string;
  confidence: ToolConfidence;
}

/** Another spelling of a tool's rule id (rule-aliases/<tool>.yaml). */
export interface RuleAliasNode {
  tool_id: string;
  alias: string;
  rule_id: string;
  basis: string;
}

export interface RegistryModel {
  meta: RegistryMetaFile;
  /** In canonical order: gap-analysis frameworks, then listing-only ones. */
  frameworks: FrameworkNode[];
  frameworkByCode: Map<string, FrameworkNode>;
  /** In canonical order (the 11 gap-analysis domains, then GEN), only domains that have a header. */
  domains: DomainNode[];
  /** Sorted by id. */
  signals: SignalNode[];
  signalById: Map<string, SignalNode>;
  crosswalks: CrosswalkNode[];
  artifactTypes: ArtifactTypeSource[];
  templates: TemplateNode[];
  tools: ToolSource[];
  toolMappings: ToolMappingNode[];
  /** Sorted by tool, then alias. */
  ruleAliases: RuleAliasNode[];
  /** Superseded signal id → its successors (supersessions/<DOMAIN>.yaml). */
  supersededBy: Map<string, string[]>;
  /** Sorted by id. */
  objectives: ObjectiveNode[];
  objectiveById: Map<string, ObjectiveNode>;
  /** Signal id → the objectives it evidences, sorted. */
  objectivesOfSignal: Map<string, string[]>;
  /** `signal|objective` pairs where the signal is partial evidence of the objective (served as supporting at most). */
  partialEvidence: Set<string>;
  /** Signal id → why it evidences no objective (listed under `unassigned` of a family). */
  unassignedSignals: Map<string, string>;
}

export const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
