/**
 * The key layout of the compiled registry LMDB, shared by the compiler (writer) and the read model.
 * Keys are strings (so lmdb's value cache applies); parts are joined with "|", which no framework,
 * control, signal, template, tool or artifact id contains. Values are msgpack-encoded plain objects.
 *
 * Lists of ids are sorted and precomputed per filter value, so a request intersects a few lists
 * instead of scanning records. Bump LAYOUT_VERSION whenever a key or value shape changes: the read
 * model refuses a build of another layout, and the build is then stale.
 */
import type { Options as SearchOptions } from 'minisearch';
import type { ControlDetail } from '../schemas/registry.js';

export const LAYOUT_VERSION = 3;

const join = (...parts: string[]) => parts.join('|');

/** A precomputed mapping list: mapping numbers (MAP-<n> without the prefix) with their confidences. */
export interface MappingIdList {
  n: number[];
  confidence: number[];
}

/**
 * A control detail as stored: complete, mapped signals with their titles and rationales, so a read
 * is one decode (completing thousands of references per read cost more than the bytes saved).
 */
export type StoredControlDetail = ControlDetail;

export const keys = {
  /** Registry versions and layout version: read from the manifest, stored so the content hash covers them. */
  meta: 'meta',
  stats: 'stats',

  signal: (id: string) => join('signal', id),
  signalsAll: 'signals',
  signalsByDomain: (domain: string) => join('signals', 'domain', domain),
  signalsByCategory: (category: string) => join('signals', 'category', category),
  signalsBySeverity: (severity: string) => join('signals', 'severity', severity),
  signalsByTag: (tag: string) => join('signals', 'tag', tag),
  /** Signals with at least one mapping (authored or derived) into the framework. */
  signalsByFramework: (framework: string) => join('signals', 'framework', framework),
  searchIndex: 'search-index',
  /** GapFacts (src/gap/gap-index.ts): what a thread's gap index is built from, in one record. */
  gapFacts: 'gap-facts',

  /** MappingRecord[] of one signal. Mapping numbers are contiguous per signal (sorted by signal id). */
  mappingsOfSignal: (signalId: string) => join('mappings', 'signal', signalId),
  /** First mapping number of each signal, aligned with signalsAll: locates MAP-<n> without a key per mapping. */
  mappingStarts: 'mapping-starts',
  mappingsAll: 'mappings',
  mappingsByFramework: (framework: string) => join('mappings', 'framework', framework),
  mappingsByControl: (framework: string, controlId: string) => join('mappings', 'control', framework, controlId),

  domains: 'domains',
  domain: (id: string) => join('domain', id),

  frameworks: 'frameworks',
  framework: (code: string) => join('framework', code),
  frameworkAliases: 'framework-aliases',
  /** ControlListItem[] in catalog order. */
  controls: (framework: string) => join('controls', framework),
  /** Indexes into controls(framework), keyed by lower-cased control category. */
  controlsByCategory: (framework: string, categoryLower: string) => join('controls', framework, 'category', categoryLower),
  /** ControlDetail whose mapped_signals are MappedSignalRefs; the read model adds titles and rationales. */
  control: (framework: string, id: string) => join('control', framework, id),
  frameworksOfControlId: (id: string) => join('control-frameworks', id),

  artifactType: (id: string) => join('artifact-type', id),
  artifactTypesAll: 'artifact-types',
  artifactTypesByCategory: (category: string) => join('artifact-types', 'category', category),
  artifactTypesBySubcategory: (subcategory: string) => join('artifact-types', 'subcategory', subcategory),
  artifactTypesByProvider: (provider: string) => join('artifact-types', 'provider', provider),
  /** { id: lower-cased "id name description" } for the q filter. */
  artifactTypesText: 'artifact-types-text',
  /** (provider, lower-cased resource type) → artifact type id. */
  artifactTypeByResource: (provider: string, resourceTypeLower: string) => join('artifact-resource', provider, resourceTypeLower),

  template: (id: string) => join('template', id),
  templateDetail: (id: string) => join('template-detail', id),
  templatesAll: 'templates',
  templatesBySignal: (signalId: string) => join('templates', 'signal', signalId),
  templatesByCategory: (category: string) => join('templates', 'category', category),
  templatesBySeverity: (severity: string) => join('templates', 'severity', severity),
  templatesByStatus: (status: string) => join('templates', 'status', status),
  templatesByDomain: (domain: string) => join('templates', 'domain', domain),
  /** { id: lower-cased "id title description" } for the q filter. */
  templatesText: 'templates-text',

  tools: 'tools',
  tool: (id: string) => join('tool', id),
  toolMapping: (id: string) => join('tool-mapping', id),
  toolMappingsAll: 'tool-mappings',
  toolMappingsByTool: (toolId: string) => join('tool-mappings', 'tool', toolId),
  toolMappingsByTemplate: (templateId: string) => join('tool-mappings', 'template', templateId),
  toolMappingsByConfidence: (confidence: string) => join('tool-mappings', 'confidence', confidence),
  /** { id: lower-cased "rule_id rule_name" } for the q filter. */
  toolMappingsText: 'tool-mappings-text',
  /** Tool mapping ids of (tool, lower-cased rule id). */
  toolRule: (toolId: string, ruleId: string) => join('tool-rule', toolId, ruleId),
  /** kube-bench benchmarks with mapped rules, generic CIS newest first (resolves bare recommendation numbers). */
  kubeBenchBenchmarks: 'kube-bench-benchmarks',
  /** (tool, lower-cased alias) → { rule_id, basis }: another spelling of a rule id (rule-aliases/<tool>.yaml). */
  toolRuleAlias: (toolId: string, aliasLower: string) => join('tool-rule-alias', toolId, aliasLower),

  overlaps: 'overlaps',
  overlap: (a: string, b: string) => join('overlap', a, b),
  /** ControlCrosswalk[] oriented a → b (both orientations are stored). */
  controlCrosswalks: (a: string, b: string) => join('control-crosswalks', a, b),
  coverage: (signalId: string) => join('coverage', signalId),
  /** { signal id: framework count } for every signal. */
  coverageCounts: 'coverage-counts',
} as const;

/** MAP-<n> with n zero-padded to five digits, so ids sort like their numbers. */
export function mappingId(n: number): string {
  return `MAP-${String(n).padStart(5, '0')}`;
}

export function mappingNumber(id: string): number | undefined {
  const match = /^MAP-(\d+)$/.exec(id);
  return match ? Number(match[1]) : undefined;
}

export function toolMappingId(n: number): string {
  return `TM-${String(n).padStart(5, '0')}`;
}

/** MiniSearch options: the compiler builds with them and the read model loads with the same. */
export const SEARCH_OPTIONS: SearchOptions = {
  idField: 'id',
  fields: ['id', 'title', 'description', 'tags'],
  storeFields: ['domain'],
  searchOptions: { boost: { title: 3, tags: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
};

/** Framework and alias spellings compare without case or punctuation: nist-csf ≡ NIST CSF ≡ NISTCSF. */
export function normalizeFrameworkSpelling(input: string): string {
  return input.toUpperCase().replace(/[^A-Z0-9]/g, '');
}
