/**
 * Turns the checked model and its derivations into the key/value entries of the compiled index
 * (layout in src/registry/layout.ts). Everything a request needs is precomputed here: records
 * ready to serialize, sorted id lists per filter value, the serialized search index.
 */
import MiniSearch from 'minisearch';
import { SEVERITIES } from '../../src/core/vocabulary.js';
import type {
  ArtifactType,
  ControlCrosswalk,
  ControlListItem,
  DomainDetail,
  DomainListItem,
  FindingTemplate,
  FindingTemplateDetail,
  FrameworkDetail,
  FrameworkListItem,
  FrameworkOverlap,
  MappedSignalRef,
  MappingRecord,
  OverlapStats,
  RegistryStats,
  RelatedControl,
  SecurityTool,
  SignalDetail,
  ToolMapping,
} from '../../src/schemas/registry.js';
import {
  keys,
  LAYOUT_VERSION,
  mappingId,
  normalizeFrameworkSpelling,
  SEARCH_OPTIONS,
  toolMappingId,
  type MappingIdList,
  type StoredControlDetail,
} from '../../src/registry/layout.js';
import { allMappings, controlCrosswalks, crosswalkPairs, flipCrosswalk, frameworkOverlaps, frameworkRank, signalCoverage } from './derive.js';
import { byString, type RegistryModel, type TemplateNode } from './model.js';

export interface CompiledIndex {
  entries: Map<string, unknown>;
  counts: Record<string, number>;
}

/** Appends value to the list under key, creating it. */
function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const severityCounts = () => Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<(typeof SEVERITIES)[number], number>;

function signalDetail(signal: RegistryModel['signals'][number], successors: string[] | undefined): SignalDetail {
  return {
    id: signal.id,
    domain: signal.domain,
    category: signal.category,
    title: signal.title,
    description: signal.description,
    severity: signal.severity,
    tags: signal.tags,
    version: signal.version,
    status: successors ? 'superseded' : 'active',
    ...(successors ? { superseded_by: successors } : {}),
    detection: { artifact_types: signal.detection.artifact_types, conditions: signal.detection.conditions },
    remediation_hint: signal.remediation_hint,
    effort: signal.effort,
    created: signal.created,
    updated: signal.updated,
  };
}

function templateRecord(template: TemplateNode): FindingTemplate {
  const { domain: _domain, ...record } = template;
  return record;
}

export function buildIndex(model: RegistryModel): CompiledIndex {
  const entries = new Map<string, unknown>();
  const put = (key: string, value: unknown) => {
    if (entries.has(key)) throw new Error(`compiler bug: index key written twice: ${key}`);
    entries.set(key, value);
  };
  const rank = frameworkRank(model);

  // ---- signals ----
  const byDomain = new Map<string, string[]>();
  const byCategory = new Map<string, string[]>();
  const bySeverity = new Map<string, string[]>();
  const byTag = new Map<string, string[]>();
  for (const signal of model.signals) {
    put(keys.signal(signal.id), signalDetail(signal, model.supersededBy.get(signal.id)));
    push(byDomain, signal.domain, signal.id);
    push(byCategory, signal.category, signal.id);
    push(bySeverity, signal.severity, signal.id);
    for (const tag of new Set(signal.tags)) push(byTag, tag, signal.id);
  }
  put(
    keys.signalsAll,
    model.signals.map((s) => s.id),
  );
  for (const [domain, ids] of byDomain) put(keys.signalsByDomain(domain), ids);
  for (const [category, ids] of byCategory) put(keys.signalsByCategory(category), ids);
  for (const [severity, ids] of bySeverity) put(keys.signalsBySeverity(severity), ids);
  for (const [tag, ids] of byTag) put(keys.signalsByTag(tag), ids);

  const search = new MiniSearch(SEARCH_OPTIONS);
  search.addAll(model.signals.map((s) => ({ id: s.id, title: s.title, description: s.description, tags: s.tags.join(' '), domain: s.domain })));
  put(keys.searchIndex, JSON.stringify(search));

  // ---- mappings ----
  const pairs = crosswalkPairs(model);
  const mappings = allMappings(model, pairs);
  const records: MappingRecord[] = mappings.map((m, i) => ({ id: mappingId(i + 1), ...m }));
  const idList = (): MappingIdList => ({ n: [], confidence: [] });
  const all = idList();
  const ofFramework = new Map<string, MappingIdList>();
  const ofControl = new Map<string, MappingIdList>();
  const ofSignal = new Map<string, MappingRecord[]>();
  const signalsOfFramework = new Map<string, Set<string>>();
  const controlSignals = new Map<string, MappingRecord[]>();
  records.forEach((record, i) => {
    const n = i + 1;
    for (const list of [
      all,
      ofFramework.get(record.framework) ?? ofFramework.set(record.framework, idList()).get(record.framework)!,
      ofControl.get(`${record.framework}|${record.control_id}`) ??
        ofControl.set(`${record.framework}|${record.control_id}`, idList()).get(`${record.framework}|${record.control_id}`)!,
    ]) {
      list.n.push(n);
      list.confidence.push(record.confidence);
    }
    push(ofSignal, record.signal_id, record);
    (signalsOfFramework.get(record.framework) ?? signalsOfFramework.set(record.framework, new Set()).get(record.framework)!).add(record.signal_id);
    push(controlSignals, `${record.framework}|${record.control_id}`, record);
  });
  put(keys.mappingsAll, all);
  for (const [framework, list] of ofFramework) put(keys.mappingsByFramework(framework), list);
  for (const [key, list] of ofControl) {
    const [framework, control] = [key.slice(0, key.indexOf('|')), key.slice(key.indexOf('|') + 1)];
    put(keys.mappingsByControl(framework, control), list);
  }
  // One start per signal, in signal order: a signal without mappings starts where the next one does,
  // so the reader's search for the last start <= n lands on the signal that holds mapping n.
  const mappingStarts: number[] = [];
  let next = 1;
  for (const signal of model.signals) {
    const own = ofSignal.get(signal.id) ?? [];
    mappingStarts.push(next);
    next += own.length;
    put(keys.mappingsOfSignal(signal.id), own);
  }
  put(keys.mappingStarts, mappingStarts);
  for (const [framework, ids] of signalsOfFramework) put(keys.signalsByFramework(framework), [...ids].sort(byString));

  // ---- crosswalk records (needed by control detail) ----
  const crosswalks = controlCrosswalks(model, pairs);
  const catalogIndex = (ref: { framework: string; control_id: string }) => model.frameworkByCode.get(ref.framework)!.byId.get(ref.control_id)!.index;
  const related = new Map<string, Array<RelatedControl & { rank: number; index: number }>>();
  const crosswalksOfPair = new Map<string, ControlCrosswalk[]>();
  for (const record of crosswalks) {
    for (const [from, to] of [
      [record.control_a, record.control_b],
      [record.control_b, record.control_a],
    ]) {
      push(related, `${from.framework}|${from.control_id}`, {
        framework: to.framework,
        control_id: to.control_id,
        title: to.title,
        relationship: record.relationship,
        strength: record.strength,
        rank: rank(to.framework),
        index: catalogIndex(to),
      });
    }
    push(crosswalksOfPair, `${record.control_a.framework}|${record.control_b.framework}`, record);
  }
  for (const [pair, list] of crosswalksOfPair) {
    const [a, b] = pair.split('|');
    put(keys.controlCrosswalks(a, b), list);
    const flipped = list.map(flipCrosswalk);
    flipped.sort((x, y) => catalogIndex(x.control_a) - catalogIndex(y.control_a) || catalogIndex(x.control_b) - catalogIndex(y.control_b));
    put(keys.controlCrosswalks(b, a), flipped);
  }

  // ---- frameworks and controls ----
  const frameworkItems: FrameworkListItem[] = [];
  const aliases: Record<string, string> = {};
  const frameworksOfControl = new Map<string, string[]>();
  const signalById = model.signalById;
  for (const framework of model.frameworks) {
    const item: FrameworkListItem = {
      code: framework.code,
      listing_code: framework.listing_code,
      name: framework.name,
      version: framework.version,
      category: framework.category,
      control_count: framework.controls.length,
      description: framework.description,
      gap_analysis: framework.gap_analysis,
    };
    frameworkItems.push(item);
    aliases[normalizeFrameworkSpelling(framework.code)] = framework.code;
    aliases[normalizeFrameworkSpelling(framework.listing_code)] = framework.code;
    const categories: string[] = [];
    const byControlCategory = new Map<string, number[]>();
    const items: ControlListItem[] = framework.controls.map((control, i) => {
      if (!byControlCategory.has(control.category.toLowerCase())) categories.push(control.category);
      push(byControlCategory, control.category.toLowerCase(), i);
      push(frameworksOfControl, control.id, framework.code);
      const mapped = controlSignals.get(`${framework.code}|${control.id}`) ?? [];
      const refs: MappedSignalRef[] = mapped
        .map((m) => ({ signal_id: m.signal_id, relationship: m.relationship, confidence: m.confidence, mapping_id: m.id }))
        .sort((a, b) => b.confidence - a.confidence || byString(a.signal_id, b.signal_id));
      const detail: StoredControlDetail = {
        id: control.id,
        framework: framework.code,
        title: control.title,
        category: control.category,
        description: control.prose?.description ?? '',
        guidance: control.prose?.guidance ?? '',
        evidence: control.prose?.evidence ?? [],
        level: control.level,
        technical: control.prose?.technical ?? null,
        flags: control.flags,
        mapped_signals: mapped
          .map((m) => {
            const signal = model.signalById.get(m.signal_id)!;
            return {
              signal_id: m.signal_id,
              relationship: m.relationship,
              confidence: m.confidence,
              mapping_id: m.id,
              title: signal.title,
              severity: signal.severity,
              rationale: m.rationale,
              derived: m.derived,
            };
          })
          .sort((a, b) => b.confidence - a.confidence || byString(a.signal_id, b.signal_id)),
        related_controls: (related.get(`${framework.code}|${control.id}`) ?? [])
          .sort((a, b) => b.strength - a.strength || a.rank - b.rank || a.index - b.index)
          .map(({ rank: _rank, index: _index, ...ref }) => ref),
      };
      put(keys.control(framework.code, control.id), detail);
      return {
        id: control.id,
        framework: framework.code,
        title: control.title,
        category: control.category,
        description: detail.description,
        level: control.level,
        technical: detail.technical,
        mapped_signals: refs,
        signal_ids: [...new Set(mapped.map((m) => m.signal_id))].sort(byString),
      };
    });
    put(keys.controls(framework.code), items);
    for (const [category, indexes] of byControlCategory) put(keys.controlsByCategory(framework.code, category), indexes);
    const detail: FrameworkDetail = { ...item, edition: framework.edition, source: framework.source, control_categories: categories };
    put(keys.framework(framework.code), detail);
  }
  put(keys.frameworks, frameworkItems);
  put(keys.frameworkAliases, aliases);
  for (const [id, codes] of frameworksOfControl) put(keys.frameworksOfControlId(id), codes);

  // ---- domains and stats ----
  const domainItems: DomainListItem[] = [];
  for (const domain of model.domains) {
    const ids = byDomain.get(domain.code) ?? [];
    const byCat: Record<string, number> = Object.fromEntries(Object.keys(domain.categories).map((c) => [c, 0]));
    const bySev = severityCounts();
    for (const id of ids) {
      const signal = signalById.get(id)!;
      byCat[signal.category] = (byCat[signal.category] ?? 0) + 1;
      bySev[signal.severity]++;
    }
    const item: DomainListItem = { id: domain.code, name: domain.name, signal_count: ids.length, categories: Object.keys(domain.categories) };
    domainItems.push(item);
    const detail: DomainDetail = {
      ...item,
      description: domain.description,
      category_descriptions: domain.categories,
      stats: { by_category: byCat, by_severity: bySev },
    };
    put(keys.domain(domain.code), detail);
  }
  put(keys.domains, domainItems);
  const lastUpdated =
    model.signals
      .map((s) => s.updated)
      .sort()
      .at(-1) ?? '';
  const stats: RegistryStats = {
    registry_version: model.meta.registry_version,
    spec_version: model.meta.spec_version,
    last_updated: lastUpdated ? `${lastUpdated}T00:00:00.000Z` : '',
    total_signals: model.signals.length,
    total_mappings: records.length,
    domains: model.domains.length,
    categories: byCategory.size,
    by_domain: Object.fromEntries(model.domains.map((d) => [d.code, byDomain.get(d.code)?.length ?? 0])),
    by_severity: { ...severityCounts(), ...Object.fromEntries([...bySeverity].map(([s, ids]) => [s, ids.length])) },
  };
  put(keys.stats, stats);
  put(keys.meta, { ...model.meta, layout_version: LAYOUT_VERSION });

  // ---- artifact types ----
  const artifactsByCategory = new Map<string, string[]>();
  const artifactsBySubcategory = new Map<string, string[]>();
  const artifactsByProvider = new Map<string, string[]>();
  const resources = new Map<string, string>();
  for (const type of model.artifactTypes) {
    put(keys.artifactType(type.id), type satisfies ArtifactType);
    push(artifactsByCategory, type.category, type.id);
    push(artifactsBySubcategory, type.subcategory, type.id);
    for (const provider of new Set(type.provider_mappings.map((m) => m.provider))) push(artifactsByProvider, provider, type.id);
    for (const m of type.provider_mappings) {
      const key = keys.artifactTypeByResource(m.provider, m.resource_type.toLowerCase());
      if (!resources.has(key)) resources.set(key, type.id);
    }
  }
  put(
    keys.artifactTypesAll,
    model.artifactTypes.map((t) => t.id),
  );
  put(keys.artifactTypesText, Object.fromEntries(model.artifactTypes.map((t) => [t.id, `${t.id} ${t.name} ${t.description}`.toLowerCase()])));
  for (const [category, ids] of artifactsByCategory) put(keys.artifactTypesByCategory(category), ids);
  for (const [subcategory, ids] of artifactsBySubcategory) put(keys.artifactTypesBySubcategory(subcategory), ids);
  for (const [provider, ids] of artifactsByProvider) put(keys.artifactTypesByProvider(provider), ids);
  for (const [key, id] of resources) put(key, id);

  // ---- tools and tool mappings ----
  const toolById = new Map(model.tools.map((t) => [t.id, t]));
  const toolMappings: ToolMapping[] = model.toolMappings.map((m, i) => ({
    id: toolMappingId(i + 1),
    tool_id: m.tool_id,
    tool_name: toolById.get(m.tool_id)!.name,
    finding_template_id: m.template,
    rule_id: m.rule_id,
    rule_name: m.rule_name,
    confidence: m.confidence,
  }));
  const mappingsByTool = new Map<string, string[]>();
  const mappingsByTemplate = new Map<string, ToolMapping[]>();
  const mappingsByConfidence = new Map<string, string[]>();
  const rules = new Map<string, string[]>();
  for (const m of toolMappings) {
    put(keys.toolMapping(m.id), m);
    push(mappingsByTool, m.tool_id, m.id);
    push(mappingsByTemplate, m.finding_template_id, m);
    push(mappingsByConfidence, m.confidence, m.id);
    push(rules, keys.toolRule(m.tool_id, m.rule_id.toLowerCase()), m.id);
  }
  put(
    keys.toolMappingsAll,
    toolMappings.map((m) => m.id),
  );
  put(keys.toolMappingsText, Object.fromEntries(toolMappings.map((m) => [m.id, `${m.rule_id} ${m.rule_name}`.toLowerCase()])));
  for (const [tool, ids] of mappingsByTool) put(keys.toolMappingsByTool(tool), ids);
  for (const [template, list] of mappingsByTemplate)
    put(
      keys.toolMappingsByTemplate(template),
      list.map((m) => m.id),
    );
  for (const [confidence, ids] of mappingsByConfidence) put(keys.toolMappingsByConfidence(confidence), ids);
  for (const [key, ids] of rules) put(key, ids);
  const benchmarks = [...new Set(model.toolMappings.filter((m) => m.tool_id === 'kube-bench').map((m) => m.rule_id.slice(0, m.rule_id.indexOf('/'))))];
  // Generic CIS benchmarks first, the latest release first: 1.12 … 1.5 are newer than the
  // Kubernetes-version-named 1.24, 1.23, 1.20 (CIS renumbered in 2023).
  const cisVersion = (b: string) => /^cis-(\d+)\.(\d+)$/.exec(b);
  const releaseRank = (m: RegExpExecArray) => (Number(m[2]) >= 20 ? 0 : 1000) + Number(m[1]) * 100 + Number(m[2]);
  put(
    keys.kubeBenchBenchmarks,
    benchmarks.sort((a, b) => {
      const x = cisVersion(a);
      const y = cisVersion(b);
      if (x && y) return releaseRank(y) - releaseRank(x);
      return x ? -1 : y ? 1 : byString(a, b);
    }),
  );
  // Aliases resolve to the canonical rule id (src/registry/rule-ids.ts normalises the regular forms first).
  for (const a of model.ruleAliases) put(keys.toolRuleAlias(a.tool_id, a.alias.toLowerCase()), { rule_id: a.rule_id, basis: a.basis });
  const tools: SecurityTool[] = model.tools.map((t) => ({ ...t, mapping_count: mappingsByTool.get(t.id)?.length ?? 0 }));
  for (const tool of tools) put(keys.tool(tool.id), tool);
  put(keys.tools, tools);

  // ---- finding templates ----
  const templateLists = {
    signal: new Map<string, string[]>(),
    category: new Map<string, string[]>(),
    severity: new Map<string, string[]>(),
    status: new Map<string, string[]>(),
    domain: new Map<string, string[]>(),
  };
  for (const template of model.templates) {
    const record = templateRecord(template);
    const signal = signalById.get(template.signal_id)!;
    put(keys.template(template.id), record);
    const detail: FindingTemplateDetail = {
      ...record,
      signal: { id: signal.id, name: signal.title, domain: signal.domain, category: signal.category },
      tool_mappings: (mappingsByTemplate.get(template.id) ?? []).map((m) => ({
        tool_id: m.tool_id,
        tool_name: m.tool_name,
        rule_id: m.rule_id,
        confidence: m.confidence,
      })),
    };
    put(keys.templateDetail(template.id), detail);
    push(templateLists.signal, template.signal_id, template.id);
    push(templateLists.category, template.category, template.id);
    push(templateLists.severity, template.severity, template.id);
    push(templateLists.status, template.status, template.id);
    push(templateLists.domain, template.domain, template.id);
  }
  put(
    keys.templatesAll,
    model.templates.map((t) => t.id),
  );
  put(keys.templatesText, Object.fromEntries(model.templates.map((t) => [t.id, `${t.id} ${t.title} ${t.description}`.toLowerCase()])));
  for (const [value, ids] of templateLists.signal) put(keys.templatesBySignal(value), ids);
  for (const [value, ids] of templateLists.category) put(keys.templatesByCategory(value), ids);
  for (const [value, ids] of templateLists.severity) put(keys.templatesBySeverity(value), ids);
  for (const [value, ids] of templateLists.status) put(keys.templatesByStatus(value), ids);
  for (const [value, ids] of templateLists.domain) put(keys.templatesByDomain(value), ids);

  // ---- overlaps and coverage ----
  const overlaps = frameworkOverlaps(model, records, crosswalks);
  const overlapStats: OverlapStats = {
    total_crosswalks: overlaps.reduce((sum, o) => sum + o.crosswalk_count, 0),
    frameworks_analyzed: new Set(overlaps.flatMap((o) => [o.framework_a, o.framework_b])).size,
    average_overlap: overlaps.length ? Math.round((10 * overlaps.reduce((sum, o) => sum + o.overlap_percentage, 0)) / overlaps.length) / 10 : 0,
  };
  put(keys.overlaps, {
    overlaps: [...overlaps].sort((a, b) => b.overlap_percentage - a.overlap_percentage || b.shared_signals - a.shared_signals),
    stats: overlapStats,
  });
  for (const o of overlaps) {
    put(keys.overlap(o.framework_a, o.framework_b), o);
    const flipped: FrameworkOverlap = { ...o, framework_a: o.framework_b, framework_b: o.framework_a };
    put(keys.overlap(o.framework_b, o.framework_a), flipped);
  }
  const coverage = signalCoverage(model, records);
  for (const c of coverage) put(keys.coverage(c.signal_id), c);
  put(keys.coverageCounts, Object.fromEntries(coverage.map((c) => [c.signal_id, c.framework_count])));

  return {
    entries,
    counts: {
      frameworks: model.frameworks.length,
      controls: model.frameworks.reduce((sum, f) => sum + f.controls.length, 0),
      domains: model.domains.length,
      signals: model.signals.length,
      mappings: records.length,
      derived_mappings: records.filter((r) => r.derived).length,
      control_crosswalks: crosswalks.length,
      artifact_types: model.artifactTypes.length,
      finding_templates: model.templates.length,
      tools: model.tools.length,
      tool_mappings: toolMappings.length,
    },
  };
}
