/**
 * Read model over the compiled registry (registry/compile.ts). Opened once per thread; every
 * lookup is synchronous: an lmdb `get` (with lmdb's value cache) of a precomputed record or id
 * list, never a scan of the whole registry, and no read transaction outlives the call.
 *
 * Returned records and lists are shared with the cache: treat them as read-only (copy before
 * changing). They are plain objects, ready to serialize.
 */
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import MiniSearch from 'minisearch';
import { defaultRegistryDir } from '../paths.js';
import type {
  ArtifactType,
  ArtifactTypeRef,
  ControlCrosswalk,
  ControlDetail,
  ControlListItem,
  CrosswalkRelationship,
  DomainDetail,
  DomainListItem,
  FindingTemplate,
  FindingTemplateDetail,
  FrameworkDetail,
  FrameworkListItem,
  FrameworkOverlap,
  MappingRecord,
  OverlapStats,
  RegistryManifest,
  RegistryStats,
  SecurityTool,
  SignalCoverage,
  SignalCoverageSummary,
  SignalDetail,
  SignalListItem,
  ToolMapping,
  ToolRuleMatch,
} from '../schemas/registry.js';
import { keys, LAYOUT_VERSION, mappingNumber, normalizeFrameworkSpelling, SEARCH_OPTIONS, type MappingIdList, type StoredControlDetail } from './layout.js';
import { readManifest } from './manifest.js';
import type { GapFacts } from '../gap/gap-index.js';
import { ruleIdCandidates, type RuleIdContext, type RuleIdMatch } from './rule-ids.js';

export type { RuleIdContext, RuleIdMatch } from './rule-ids.js';

/** A scanner rule id resolved to the registry's rule (Registry.resolveToolRule). */
export interface ResolvedToolRule {
  tool_id: string;
  /** The canonical id (rule-ids/<tool>.txt spelling). */
  rule_id: string;
  /** exact: as given (any case); form: a regular spelling of the id; alias: the alias table. */
  matched_by: RuleIdMatch;
  /** alias only: why the two ids name one rule. */
  basis?: string;
  /** The finding templates the rule maps to (each with its signal id), as /v1/tool-mappings/lookup answers. */
  mappings: ToolRuleMatch[];
}

export interface SignalFilter {
  domain?: string;
  category?: string;
  severity?: string;
  /** All of these tags. */
  tags?: readonly string[];
}

export interface MappingFilter {
  framework?: string;
  signal_id?: string;
  control_id?: string;
  min_confidence?: number;
}

export interface ArtifactTypeFilter {
  category?: string;
  subcategory?: string;
  provider?: string;
  /** Case-insensitive substring of id, name or description. */
  q?: string;
}

export interface FindingTemplateFilter {
  signal_id?: string;
  category?: string;
  severity?: string;
  status?: string;
  domain?: string;
  /** Case-insensitive substring of id, title or description. */
  q?: string;
}

export interface ToolMappingFilter {
  tool_id?: string;
  finding_template_id?: string;
  confidence?: string;
  /** Case-insensitive substring of rule id or rule name. */
  q?: string;
}

export interface ToolFilter {
  category?: string;
  /** Case-insensitive substring of name, vendor or description. */
  q?: string;
}

export interface ControlCrosswalkFilter {
  /** A control of framework a. */
  control_id?: string;
  min_strength?: number;
  relationship?: CrosswalkRelationship;
}

export interface CoverageFilter {
  framework?: string;
  /** Default 2. */
  min_frameworks?: number;
}

export interface PageOptions {
  offset?: number;
  limit?: number;
}

export interface Page<T> {
  /** Matches before paging. */
  total: number;
  items: T[];
}

export interface SearchHit {
  id: string;
  /** Relevance relative to the best hit of the same query: 1 for the best, down to 0. */
  score: number;
}

export interface CrosswalkSummary {
  total_crosswalks: number;
  relationship_breakdown: Record<CrosswalkRelationship, number>;
}

const EMPTY: readonly never[] = Object.freeze([]);

/** Ids present in every list (lists are sorted; the result keeps the first list's order). */
function intersect(lists: ReadonlyArray<readonly string[]>): readonly string[] {
  if (lists.length === 0) return EMPTY;
  if (lists.length === 1) return lists[0];
  const [smallest, ...rest] = [...lists].sort((a, b) => a.length - b.length);
  const sets = rest.map((list) => new Set(list));
  const keep = new Set(smallest.filter((id) => sets.every((set) => set.has(id))));
  return lists[0].filter((id) => keep.has(id));
}

function slice<T>(items: readonly T[], page: PageOptions | undefined): readonly T[] {
  if (!page) return items;
  const offset = Math.max(0, page.offset ?? 0);
  return page.limit === undefined ? items.slice(offset) : items.slice(offset, offset + Math.max(0, page.limit));
}

function includesText(text: string, q: string | undefined): boolean {
  return !q || text.includes(q.toLowerCase());
}

export class RegistryNotBuiltError extends Error {
  constructor(dir: string, reason: string) {
    super(`registry index at ${dir} is not usable: ${reason}; run \`csr registry build\``);
    this.name = 'RegistryNotBuiltError';
  }
}

/** 600 UTF-16 units are at most 1,800 UTF-8 bytes, under LMDB's 1,978-byte key limit. */
const MAX_KEY_CHARS = 600;

/** Recent search answers kept per thread (least recently used dropped first). */
const SEARCH_CACHE_ENTRIES = 1000;

export interface RegistryOpenOptions {
  /**
   * Entries lmdb's value cache holds strongly (the rest are held weakly). The default keeps
   * every record a process reads, about 30 MB once the gap index has read them all: right for
   * the HTTP thread's registry GETs, wasted in a worker whose gap index already holds the facts
   * it reads — and a larger live heap makes every full GC pause longer.
   */
  cacheEntries?: number;
  /** Load the search index at open (the HTTP thread) or on first search (workers never search). */
  searchIndex?: 'eager' | 'lazy';
}

export class Registry {
  private search_: MiniSearch | undefined;
  private readonly searchCache = new Map<string, readonly SearchHit[]>();
  private readonly aliases: Record<string, string>;

  private constructor(
    readonly dir: string,
    readonly manifest: RegistryManifest,
    private readonly db: Pick<RootDatabase, 'get' | 'close'>,
  ) {
    this.aliases = this.get<Record<string, string>>(keys.frameworkAliases) ?? {};
  }

  private searchIndex(): MiniSearch {
    this.search_ ??= MiniSearch.loadJSON(this.get<string>(keys.searchIndex) ?? JSON.stringify(new MiniSearch(SEARCH_OPTIONS)), SEARCH_OPTIONS);
    return this.search_;
  }

  /** Opens the current build of a registry dir read-only. */
  static open(dir: string = defaultRegistryDir, options: RegistryOpenOptions = {}): Registry {
    const manifest = readManifest(dir);
    if (!manifest) throw new RegistryNotBuiltError(dir, 'no manifest.json');
    if (manifest.layout_version !== LAYOUT_VERSION) {
      throw new RegistryNotBuiltError(dir, `build has index layout ${manifest.layout_version}, this code reads layout ${LAYOUT_VERSION}`);
    }
    let db: RootDatabase;
    try {
      db = open({ path: join(dir, manifest.build), readOnly: true, cache: options.cacheEntries === undefined ? true : { cacheSize: options.cacheEntries } });
    } catch (error) {
      throw new RegistryNotBuiltError(dir, `cannot open build ${manifest.build}: ${(error as Error).message}`);
    }
    const registry = new Registry(dir, manifest, db);
    if ((options.searchIndex ?? 'eager') === 'eager') registry.searchIndex();
    return registry;
  }

  /**
   * A read model over a build's entries before they are written: the compiler derives the records
   * that are views of other records (the gap facts) through the same reads the service makes.
   */
  static overEntries(entries: ReadonlyMap<string, unknown>, manifest: RegistryManifest): Registry {
    return new Registry('(being compiled)', manifest, { get: (key: string) => entries.get(key), close: async () => undefined });
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  private get<T>(key: string): T | undefined {
    // No registry key comes near this; a longer one (an id a client made up) cannot exist, and
    // LMDB refuses keys over ~2 KB, so it is simply not found.
    if (key.length > MAX_KEY_CHARS) return undefined;
    return this.db.get(key) as T | undefined;
  }

  private list(key: string): readonly string[] {
    return this.get<string[]>(key) ?? EMPTY;
  }

  // ---- signals ----

  signal(id: string): SignalDetail | undefined {
    return this.get<SignalDetail>(keys.signal(id));
  }

  /** The list fields of a signal (no detection, remediation, dates). */
  signalItem(id: string): SignalListItem | undefined {
    const s = this.signal(id);
    if (!s) return undefined;
    const item: SignalListItem = {
      id: s.id,
      domain: s.domain,
      category: s.category,
      title: s.title,
      description: s.description,
      severity: s.severity,
      tags: s.tags,
      version: s.version,
      status: s.status,
    };
    if (s.superseded_by) item.superseded_by = s.superseded_by;
    return item;
  }

  /** Sorted ids of the signals matching every given filter. */
  signalIds(filter: SignalFilter = {}): readonly string[] {
    const lists: Array<readonly string[]> = [];
    if (filter.domain) lists.push(this.list(keys.signalsByDomain(filter.domain.toUpperCase())));
    if (filter.category) lists.push(this.list(keys.signalsByCategory(filter.category.toUpperCase())));
    if (filter.severity) lists.push(this.list(keys.signalsBySeverity(filter.severity.toLowerCase())));
    for (const tag of filter.tags ?? []) lists.push(this.list(keys.signalsByTag(tag.toLowerCase())));
    return lists.length ? intersect(lists) : this.list(keys.signalsAll);
  }

  /** Sorted ids of the signals with at least one mapping (authored or derived) into a framework. */
  signalIdsOfFramework(framework: string): readonly string[] {
    const code = this.resolveFrameworkCode(framework);
    return code ? this.list(keys.signalsByFramework(code)) : EMPTY;
  }

  /** Full-text search over signal id, title (boost 3), tags (boost 2) and description. */
  search(q: string, options: { domain?: string } = {}): readonly SearchHit[] {
    if (!q.trim()) return [];
    const domain = options.domain?.toUpperCase();
    // Fuzzy prefix search costs about a millisecond and queries repeat: keep recent answers.
    const cacheKey = `${domain ?? ''}|${q.trim().toLowerCase()}`;
    const cached = this.searchCache.get(cacheKey);
    if (cached) {
      this.searchCache.delete(cacheKey);
      this.searchCache.set(cacheKey, cached);
      return cached;
    }
    const results = this.searchIndex().search(q, domain ? { filter: (r) => r.domain === domain } : undefined);
    const top = results[0]?.score ?? 0;
    const hits = results.map((r) => ({ id: String(r.id), score: top ? Math.round((r.score / top) * 10_000) / 10_000 : 0 }));
    this.searchCache.set(cacheKey, hits);
    if (this.searchCache.size > SEARCH_CACHE_ENTRIES) this.searchCache.delete(this.searchCache.keys().next().value!);
    return hits;
  }

  stats(): RegistryStats {
    return this.get<RegistryStats>(keys.stats)!;
  }

  // ---- mappings ----

  mapping(id: string): MappingRecord | undefined {
    const n = mappingNumber(id);
    return n === undefined ? undefined : this.mappingByNumber(n);
  }

  /** Mapping numbers are contiguous per signal: find the signal by binary search over its first number. */
  private mappingByNumber(n: number): MappingRecord | undefined {
    const starts = this.get<number[]>(keys.mappingStarts) ?? [];
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= n) lo = mid;
      else hi = mid - 1;
    }
    if (!starts.length || n < starts[0]) return undefined;
    const signalId = this.list(keys.signalsAll)[lo];
    return this.mappingsOfSignal(signalId)[n - starts[lo]];
  }

  /** Mappings of a signal (authored and derived), optionally of one framework (code or alias). */
  mappingsOfSignal(signalId: string, framework?: string): readonly MappingRecord[] {
    const all = this.get<MappingRecord[]>(keys.mappingsOfSignal(signalId)) ?? EMPTY;
    if (framework === undefined) return all;
    const code = this.resolveFrameworkCode(framework);
    return code ? all.filter((m) => m.framework === code) : EMPTY;
  }

  /** Mapping records in id order matching every filter; pages fetch only the records they return. */
  mappings(filter: MappingFilter = {}, page?: PageOptions): Page<MappingRecord> {
    const min = filter.min_confidence ?? 0;
    let framework: string | undefined;
    if (filter.framework !== undefined) {
      framework = this.resolveFrameworkCode(filter.framework);
      if (!framework) return { total: 0, items: [] };
    }
    if (filter.signal_id !== undefined) {
      const items = this.mappingsOfSignal(filter.signal_id).filter(
        (m) => (!framework || m.framework === framework) && (filter.control_id === undefined || m.control_id === filter.control_id) && m.confidence >= min,
      );
      return { total: items.length, items: [...slice(items, page)] };
    }
    let lists: MappingIdList[];
    if (filter.control_id !== undefined) {
      const frameworks = framework ? [framework] : this.frameworksOfControlId(filter.control_id);
      lists = frameworks.map((f) => this.get<MappingIdList>(keys.mappingsByControl(f, filter.control_id!))).filter((l): l is MappingIdList => !!l);
    } else {
      const list = this.get<MappingIdList>(framework ? keys.mappingsByFramework(framework) : keys.mappingsAll);
      lists = list ? [list] : [];
    }
    let numbers: readonly number[];
    if (lists.length === 1 && min === 0) {
      // The default: the precomputed list is the answer; page it without copying.
      numbers = lists[0].n;
    } else {
      const kept: number[] = [];
      for (const list of lists) list.n.forEach((n, i) => list.confidence[i] >= min && kept.push(n));
      if (lists.length > 1) kept.sort((a, b) => a - b);
      numbers = kept;
    }
    return { total: numbers.length, items: slice(numbers, page).map((n) => this.mappingByNumber(n)!) };
  }

  // ---- domains ----

  domains(): readonly DomainListItem[] {
    return this.get<DomainListItem[]>(keys.domains) ?? EMPTY;
  }

  domain(id: string): DomainDetail | undefined {
    return this.get<DomainDetail>(keys.domain(id.toUpperCase()));
  }

  // ---- frameworks and controls ----

  /** Canonical framework code for a code or listing code in any case/punctuation (nist-csf → NISTCSF). */
  resolveFrameworkCode(input: string): string | undefined {
    return this.aliases[normalizeFrameworkSpelling(input)];
  }

  /** Canonical codes of the frameworks gap analysis assesses, in listing order. */
  gapFrameworkCodes(): string[] {
    return this.frameworks()
      .filter((f) => f.gap_analysis)
      .map((f) => f.code);
  }

  frameworks(category?: string): readonly FrameworkListItem[] {
    const all = this.get<FrameworkListItem[]>(keys.frameworks) ?? EMPTY;
    if (!category) return all;
    const wanted = category.toLowerCase();
    return all.filter((f) => f.category === wanted);
  }

  framework(code: string): FrameworkDetail | undefined {
    const canonical = this.resolveFrameworkCode(code);
    return canonical ? this.get<FrameworkDetail>(keys.framework(canonical)) : undefined;
  }

  /** Controls of a framework in catalog order, optionally of one control category (case-insensitive). */
  controls(framework: string, category?: string): readonly ControlListItem[] {
    const code = this.resolveFrameworkCode(framework);
    if (!code) return EMPTY;
    const all = this.get<ControlListItem[]>(keys.controls(code)) ?? EMPTY;
    if (!category) return all;
    const indexes = this.get<number[]>(keys.controlsByCategory(code, category.toLowerCase()));
    return indexes ? indexes.map((i) => all[i]) : EMPTY;
  }

  /** Control detail; each mapped signal carries its title, severity, rationale (a new object per call). */
  control(framework: string, id: string): ControlDetail | undefined {
    const code = this.resolveFrameworkCode(framework);
    return code ? this.get<StoredControlDetail>(keys.control(code, id)) : undefined;
  }

  /** Codes of the frameworks that have a control with this id (more than one: the id is ambiguous). */
  frameworksOfControlId(id: string): readonly string[] {
    return this.list(keys.frameworksOfControlId(id));
  }

  // ---- artifact types ----

  artifactType(id: string): ArtifactType | undefined {
    return this.get<ArtifactType>(keys.artifactType(id));
  }

  artifactTypeIds(filter: ArtifactTypeFilter = {}): readonly string[] {
    const lists: Array<readonly string[]> = [];
    if (filter.category) lists.push(this.list(keys.artifactTypesByCategory(filter.category.toLowerCase())));
    if (filter.subcategory) lists.push(this.list(keys.artifactTypesBySubcategory(filter.subcategory.toLowerCase())));
    if (filter.provider) lists.push(this.list(keys.artifactTypesByProvider(filter.provider.toLowerCase())));
    const ids = lists.length ? intersect(lists) : this.list(keys.artifactTypesAll);
    return filter.q ? this.withText(ids, keys.artifactTypesText, filter.q) : ids;
  }

  artifactTypes(filter: ArtifactTypeFilter = {}, page?: PageOptions): Page<ArtifactType> {
    const ids = this.artifactTypeIds(filter);
    return { total: ids.length, items: slice(ids, page).map((id) => this.artifactType(id)!) };
  }

  /** The artifact type a provider resource type maps to (resource type compared case-insensitively). */
  resolveArtifactType(provider: string, resourceType: string): ArtifactTypeRef | undefined {
    const id = this.get<string>(keys.artifactTypeByResource(provider.toLowerCase(), resourceType.toLowerCase()));
    const type = id ? this.artifactType(id) : undefined;
    return type && { id: type.id, name: type.name, category: type.category, subcategory: type.subcategory };
  }

  // ---- finding templates ----

  findingTemplate(id: string): FindingTemplate | undefined {
    return this.get<FindingTemplate>(keys.template(id));
  }

  /** The template with its signal {id, name, domain, category} and tool mappings. */
  findingTemplateDetail(id: string): FindingTemplateDetail | undefined {
    return this.get<FindingTemplateDetail>(keys.templateDetail(id));
  }

  findingTemplateIds(filter: FindingTemplateFilter = {}): readonly string[] {
    const lists: Array<readonly string[]> = [];
    if (filter.signal_id) lists.push(this.list(keys.templatesBySignal(filter.signal_id)));
    if (filter.category) lists.push(this.list(keys.templatesByCategory(filter.category.toLowerCase())));
    if (filter.severity) lists.push(this.list(keys.templatesBySeverity(filter.severity.toLowerCase())));
    if (filter.status) lists.push(this.list(keys.templatesByStatus(filter.status.toUpperCase())));
    if (filter.domain) lists.push(this.list(keys.templatesByDomain(filter.domain.toUpperCase())));
    const ids = lists.length ? intersect(lists) : this.list(keys.templatesAll);
    return filter.q ? this.withText(ids, keys.templatesText, filter.q) : ids;
  }

  findingTemplates(filter: FindingTemplateFilter = {}, page?: PageOptions): Page<FindingTemplate> {
    const ids = this.findingTemplateIds(filter);
    return { total: ids.length, items: slice(ids, page).map((id) => this.findingTemplate(id)!) };
  }

  /** The facts gap analysis reads, precomputed by the compiler (one decode per thread). */
  gapFacts(): GapFacts {
    const facts = this.get<GapFacts>(keys.gapFacts);
    if (!facts) throw new RegistryNotBuiltError(this.dir, 'the build has no gap facts');
    return facts;
  }

  templatesOfSignal(signalId: string): FindingTemplate[] {
    return this.list(keys.templatesBySignal(signalId)).map((id) => this.findingTemplate(id)!);
  }

  // ---- tools and tool mappings ----

  tools(filter: ToolFilter = {}): readonly SecurityTool[] {
    const all = this.get<SecurityTool[]>(keys.tools) ?? EMPTY;
    if (!filter.category && !filter.q) return all;
    const category = filter.category?.toLowerCase();
    return all.filter((t) => (!category || t.category === category) && includesText(`${t.name} ${t.vendor} ${t.description}`.toLowerCase(), filter.q));
  }

  tool(id: string): SecurityTool | undefined {
    return this.get<SecurityTool>(keys.tool(id));
  }

  toolMapping(id: string): ToolMapping | undefined {
    return this.get<ToolMapping>(keys.toolMapping(id));
  }

  toolMappingIds(filter: ToolMappingFilter = {}): readonly string[] {
    const lists: Array<readonly string[]> = [];
    if (filter.tool_id) lists.push(this.list(keys.toolMappingsByTool(filter.tool_id)));
    if (filter.finding_template_id) lists.push(this.list(keys.toolMappingsByTemplate(filter.finding_template_id)));
    if (filter.confidence) lists.push(this.list(keys.toolMappingsByConfidence(filter.confidence.toUpperCase())));
    const ids = lists.length ? intersect(lists) : this.list(keys.toolMappingsAll);
    return filter.q ? this.withText(ids, keys.toolMappingsText, filter.q) : ids;
  }

  toolMappings(filter: ToolMappingFilter = {}, page?: PageOptions): Page<ToolMapping> {
    const ids = this.toolMappingIds(filter);
    return { total: ids.length, items: slice(ids, page).map((id) => this.toolMapping(id)!) };
  }

  /**
   * The canonical rule behind a scanner's rule id and what it maps to, or undefined when the
   * registry knows no rule of that tool under that id. Tried in order: the id as given (any
   * case), its regular forms (src/registry/rule-ids.ts: Trivy KSV001 / AVD-KSV-0001, Security
   * Hub per-standard ids, Azure definition paths, kube-bench benchmark/number), then the alias
   * table (renamed Prowler checks, tfsec-era Trivy names). A bare kube-bench number resolves
   * through context.benchmark, else the newest generic CIS benchmark that has it.
   */
  resolveToolRule(toolId: string, ruleId: string, context: RuleIdContext = {}): ResolvedToolRule | undefined {
    const candidates = ruleIdCandidates(toolId, ruleId, context);
    if (toolId === 'kube-bench' && !ruleId.includes('/') && !context.benchmark) {
      for (const benchmark of this.kubeBenchBenchmarks()) candidates.push({ id: `${benchmark}/${ruleId.trim()}`, matched_by: 'form' });
    }
    for (const candidate of candidates) {
      const mappings = this.mappingsOfRule(toolId, candidate.id);
      if (mappings.length) return { tool_id: toolId, rule_id: mappings[0].rule_id, matched_by: candidate.matched_by, mappings };
      const alias = this.get<{ rule_id: string; basis: string }>(keys.toolRuleAlias(toolId, candidate.id.toLowerCase()));
      if (alias) {
        const aliased = this.mappingsOfRule(toolId, alias.rule_id);
        if (aliased.length) return { tool_id: toolId, rule_id: alias.rule_id, matched_by: 'alias', basis: alias.basis, mappings: aliased };
      }
    }
    return undefined;
  }

  /** kube-bench benchmarks with mapped rules: generic CIS ones newest first, then the others by name. */
  private kubeBenchBenchmarks(): readonly string[] {
    return this.get<string[]>(keys.kubeBenchBenchmarks) ?? EMPTY;
  }

  /**
   * What a scanner rule means, for the rule id exactly as the registry spells it (any case): its
   * finding templates. Other spellings go through resolveToolRule (which /v1/tool-mappings/lookup uses).
   */
  lookupToolRule(toolId: string, ruleId: string): ToolRuleMatch[] {
    return this.mappingsOfRule(toolId, ruleId);
  }

  private mappingsOfRule(toolId: string, ruleId: string): ToolRuleMatch[] {
    return this.list(keys.toolRule(toolId, ruleId.toLowerCase())).map((id) => {
      const m = this.toolMapping(id)!;
      const t = this.findingTemplate(m.finding_template_id)!;
      return {
        tool_id: m.tool_id,
        tool_name: m.tool_name,
        rule_id: m.rule_id,
        confidence: m.confidence,
        finding_template: { id: t.id, title: t.title, description: t.description, severity: t.severity, category: t.category, signal_id: t.signal_id },
      };
    });
  }

  // ---- crosswalks ----

  crosswalkOverlaps(): { overlaps: readonly FrameworkOverlap[]; stats: OverlapStats } {
    return (
      this.get<{ overlaps: FrameworkOverlap[]; stats: OverlapStats }>(keys.overlaps) ?? {
        overlaps: EMPTY,
        stats: { total_crosswalks: 0, frameworks_analyzed: 0, average_overlap: 0 },
      }
    );
  }

  /** Overlap of two gap-analysis frameworks (codes or aliases), oriented as asked. */
  crosswalkOverlap(frameworkA: string, frameworkB: string): FrameworkOverlap | undefined {
    const a = this.resolveFrameworkCode(frameworkA);
    const b = this.resolveFrameworkCode(frameworkB);
    return a && b ? this.get<FrameworkOverlap>(keys.overlap(a, b)) : undefined;
  }

  /** Control crosswalk records between two frameworks (control_a in framework a), in catalog order of a then b. */
  controlCrosswalks(
    frameworkA: string,
    frameworkB: string,
    filter: ControlCrosswalkFilter = {},
    page?: PageOptions,
  ): Page<ControlCrosswalk> & { summary: CrosswalkSummary } {
    const a = this.resolveFrameworkCode(frameworkA);
    const b = this.resolveFrameworkCode(frameworkB);
    const all = (a && b && this.get<ControlCrosswalk[]>(keys.controlCrosswalks(a, b))) || EMPTY;
    const min = filter.min_strength ?? 0;
    const matched = all.filter(
      (c) =>
        (filter.control_id === undefined || c.control_a.control_id === filter.control_id) &&
        c.strength >= min &&
        (!filter.relationship || c.relationship === filter.relationship),
    );
    const breakdown: Record<CrosswalkRelationship, number> = { equivalent: 0, related: 0, partial: 0 };
    for (const c of matched) breakdown[c.relationship]++;
    return { total: matched.length, items: [...slice(matched, page)], summary: { total_crosswalks: matched.length, relationship_breakdown: breakdown } };
  }

  signalCoverage(signalId: string): SignalCoverage | undefined {
    return this.get<SignalCoverage>(keys.coverage(signalId));
  }

  /** Coverage records of signals reaching at least min_frameworks frameworks (default 2), in id order. */
  signalCoverages(filter: CoverageFilter = {}, page?: PageOptions): Page<SignalCoverage> & { summary: SignalCoverageSummary } {
    const min = filter.min_frameworks ?? 2;
    const counts = this.get<Record<string, number>>(keys.coverageCounts) ?? {};
    let ids: readonly string[] = this.list(keys.signalsAll);
    if (filter.framework !== undefined) {
      ids = this.signalIdsOfFramework(filter.framework);
    }
    const matched = ids.filter((id) => (counts[id] ?? 0) >= min);
    const summary: SignalCoverageSummary = {
      total_multi_framework_signals: 0,
      by_framework_count: { '2_frameworks': 0, '3_frameworks': 0, '4_plus_frameworks': 0 },
    };
    for (const id of matched) {
      const n = counts[id];
      if (n >= 2) summary.total_multi_framework_signals++;
      if (n === 2) summary.by_framework_count['2_frameworks']++;
      else if (n === 3) summary.by_framework_count['3_frameworks']++;
      else if (n >= 4) summary.by_framework_count['4_plus_frameworks']++;
    }
    return { total: matched.length, items: slice(matched, page).map((id) => this.signalCoverage(id)!), summary };
  }

  /** Keeps the ids whose search text (under textKey) contains q, case-insensitively. */
  private withText(ids: readonly string[], textKey: string, q: string): readonly string[] {
    const text = this.get<Record<string, string>>(textKey) ?? {};
    const wanted = q.toLowerCase();
    return ids.filter((id) => text[id]?.includes(wanted));
  }
}
