/**
 * Integrity checks over the schema-valid sources, and the linked model they produce: unique ids,
 * id formats, every reference resolves (framework, control, signal, artifact type, template, tool,
 * crosswalk row, scanner rule id), the primary-mapping rule, unique titles. Every problem is
 * recorded with its file and JSON path; nothing stops at the first one.
 */
import { DOMAIN_CODES, SIGNAL_CATEGORIES, type ArtifactTypeSource, type SignalMappingSource, type ToolSource } from '../../src/schemas/registry-source.js';
import { FRAMEWORK_CODES } from '../../src/core/vocabulary.js';
import { expandCrosswalk, isCrosswalkFramework, ROW_RELATIONSHIPS } from './crosswalk-pairs.js';
import type { Issues } from './issues.js';
import {
  byString,
  type ControlNode,
  type CrosswalkNode,
  type DomainNode,
  type FrameworkNode,
  type ObjectiveNode,
  type RegistryModel,
  type SignalNode,
  type TemplateNode,
  type RuleAliasNode,
  type ToolMappingNode,
} from './model.js';
import type { Located, ParsedSources } from './read-sources.js';

const DOMAINS = DOMAIN_CODES.join('|');
const CATEGORIES = SIGNAL_CATEGORIES.join('|');
const NAME = '[A-Z0-9]+(?:-[A-Z0-9]+){0,3}';
export const SIGNAL_ID = new RegExp(`^CSR-(${DOMAINS})-(${CATEGORIES})-${NAME}-(\\d{3,4})$`);
export const TEMPLATE_ID = new RegExp(`^FT-(${DOMAINS})-(${CATEGORIES})-${NAME}-\\d{3,4}-\\d{3}$`);
const ARTIFACT_TYPE_ID = /^([a-z]+)\.([a-z0-9_]+)\.([a-z0-9_]+)$/;
/** An authored GEN signal (one that belongs to several frameworks equally) needs primary mappings into at least this many frameworks. */
const GEN_PRIMARY_FRAMEWORKS = 3;

const stemOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
const where = (located: { file: string; path: string }) => `${located.file} ${located.path}`;

/** Registers ids of one kind and reports duplicates with both locations. */
class IdRegistry<T> {
  readonly byId = new Map<string, Located<T>>();
  constructor(
    private readonly kind: string,
    private readonly issues: Issues,
  ) {}

  add(id: string, located: Located<T>): boolean {
    const first = this.byId.get(id);
    if (first) {
      this.issues.error(located.file, `${located.path}/id`, `duplicate ${this.kind} id '${id}' (first defined at ${where(first)})`);
      return false;
    }
    this.byId.set(id, located);
    return true;
  }
}

function checkFrameworks(parsed: ParsedSources, issues: Issues): Map<string, FrameworkNode> {
  const frameworks = new Map<string, FrameworkNode>();
  for (const file of parsed.frameworks) {
    const { doc } = file;
    if (stemOf(file.file) !== doc.code) {
      issues.error(file.file, '/code', `framework code '${doc.code}' does not match the file name (expected frameworks/${doc.code}.yaml)`);
      continue;
    }
    const node: FrameworkNode = {
      code: doc.code,
      listing_code: doc.listing_code,
      name: doc.name,
      version: doc.version,
      edition: doc.edition ?? '',
      description: doc.description,
      source: doc.source ?? '',
      category: doc.category,
      gap_analysis: doc.gap_analysis,
      controls: [],
      byId: new Map(),
    };
    for (const { path, value } of file.records) {
      if (node.byId.has(value.id)) {
        issues.error(file.file, `${path}/id`, `duplicate control id '${value.id}' in framework ${doc.code}`);
        continue;
      }
      const control: ControlNode = {
        framework: doc.code,
        id: value.id,
        title: value.title ?? '',
        category: value.category,
        level: value.level,
        flags: value.flags ?? {},
        index: node.controls.length,
      };
      node.controls.push(control);
      node.byId.set(value.id, control);
    }
    frameworks.set(doc.code, node);
  }
  for (const code of FRAMEWORK_CODES) {
    if (!frameworks.has(code) && !parsed.unusable.frameworks.has(code)) {
      issues.warn(`frameworks/${code}.yaml`, '', `framework ${code} has no catalog file`);
    }
  }
  return new Map(FRAMEWORK_CODES.filter((code) => frameworks.has(code)).map((code) => [code, frameworks.get(code)!]));
}

function attachControlProse(parsed: ParsedSources, frameworks: Map<string, FrameworkNode>, issues: Issues): void {
  const seen = new Map<string, string>();
  for (const file of parsed.controlProse) {
    const code = file.doc.framework;
    const stem = stemOf(file.file);
    if (stem !== code && !stem.startsWith(`${code}-`)) {
      issues.error(
        file.file,
        '/framework',
        `framework '${code}' does not match the file name (expected controls/${code}.yaml or controls/${code}-<part>.yaml)`,
      );
      continue;
    }
    const framework = frameworks.get(code);
    if (!framework) {
      if (!parsed.unusable.frameworks.has(code)) issues.error(file.file, '/framework', `framework '${code}' has no catalog in frameworks/`);
      continue;
    }
    for (const { path, value } of file.records) {
      const control = framework.byId.get(value.id);
      if (!control) {
        issues.error(file.file, `${path}/id`, `control '${value.id}' does not exist in framework ${code}`);
        continue;
      }
      const key = `${code}|${value.id}`;
      const first = seen.get(key);
      if (first) {
        issues.error(file.file, `${path}/id`, `control '${value.id}' already has prose at ${first}`);
        continue;
      }
      seen.set(key, `${file.file} ${path}`);
      if (value.title != null && control.title) {
        issues.error(
          file.file,
          `${path}/title`,
          `control '${value.id}' has an official title ('${control.title}'); a title is allowed only where the catalog title is null`,
        );
      }
      control.prose = value;
    }
  }
  for (const framework of frameworks.values()) {
    for (const control of framework.controls) {
      if (!control.title) control.title = control.prose?.title ?? `${framework.code} ${control.id}`;
    }
  }
}

function checkDomains(parsed: ParsedSources, issues: Issues): Map<string, DomainNode> {
  const domains = new Map<string, DomainNode>();
  const partDomains = new Map<string, string>();
  for (const file of parsed.signalFiles) {
    const { doc } = file;
    const stem = stemOf(file.file);
    const isMain = stem === doc.domain;
    if (!isMain && !stem.startsWith(`${doc.domain}-`)) {
      issues.error(
        file.file,
        '/domain',
        `domain '${doc.domain}' does not match the file name (expected signals/${doc.domain}.yaml or signals/${doc.domain}-<part>.yaml)`,
      );
      continue;
    }
    if (isMain) {
      for (const field of ['name', 'description', 'categories'] as const) {
        if (doc[field] === undefined) issues.error(file.file, `/${field}`, `is required in the domain header file signals/${doc.domain}.yaml`);
      }
      const categories: Record<string, string> = {};
      for (const [code, description] of Object.entries(doc.categories ?? {})) {
        if (!(SIGNAL_CATEGORIES as readonly string[]).includes(code)) {
          issues.error(file.file, `/categories/${code}`, `is not a signal category (one of ${SIGNAL_CATEGORIES.join(', ')})`);
        } else categories[code] = description;
      }
      domains.set(doc.domain, { code: doc.domain, name: doc.name ?? doc.domain, description: doc.description ?? '', categories });
    } else {
      for (const field of ['name', 'description', 'categories'] as const) {
        if (doc[field] !== undefined) issues.error(file.file, `/${field}`, `belongs in the domain header file signals/${doc.domain}.yaml, not in a part file`);
      }
      if (!partDomains.has(doc.domain)) partDomains.set(doc.domain, file.file);
    }
  }
  for (const [domain, file] of partDomains) {
    if (!domains.has(domain)) issues.error(file, '/domain', `domain ${domain} has no header file signals/${domain}.yaml`);
  }
  return new Map(DOMAIN_CODES.filter((code) => domains.has(code)).map((code) => [code, domains.get(code)!]));
}

/** Creative Commons NonCommercial licences (CC BY-NC, BY-NC-SA, BY-NC-ND) and other non-commercial terms. */
const NON_COMMERCIAL = /\bBY-NC\b|non-?commercial/i;

function checkCrosswalks(parsed: ParsedSources, frameworks: Map<string, FrameworkNode>, issues: Issues): CrosswalkNode[] {
  const out: CrosswalkNode[] = [];
  for (const file of parsed.crosswalks) {
    const { doc } = file;
    const stem = stemOf(file.file);
    if (stem !== `${doc.framework_a}__${doc.framework_b}`) {
      issues.error(
        file.file,
        '',
        `frameworks ${doc.framework_a} and ${doc.framework_b} do not match the file name (expected crosswalks/${doc.framework_a}__${doc.framework_b}.yaml)`,
      );
      continue;
    }
    let usable = true;
    for (const side of ['framework_a', 'framework_b'] as const) {
      if (!isCrosswalkFramework(doc[side], frameworks)) {
        issues.error(file.file, `/${side}`, `framework '${doc[side]}' is not in the registry`);
        usable = false;
      }
    }
    const rows = [];
    for (const { path, value } of file.records) {
      const [a, b, relationship] = value;
      if (!(ROW_RELATIONSHIPS as readonly string[]).includes(relationship)) {
        issues.error(file.file, `${path}/2`, `relationship '${relationship}' must be one of ${ROW_RELATIONSHIPS.join(', ')}`);
        continue;
      }
      rows.push({ a, b, relationship });
    }
    // A non-commercial licence does not cover serving the rows from a commercial API.
    if (doc.licence && NON_COMMERCIAL.test(doc.licence) && doc.serve !== false) {
      issues.error(
        file.file,
        '/serve',
        `must be false: the licence '${doc.licence}' does not allow serving the rows or mappings derived from them commercially`,
      );
    }
    if (usable)
      out.push({
        stem,
        file: file.file,
        framework_a: doc.framework_a,
        framework_b: doc.framework_b,
        publisher: doc.publisher,
        serve: doc.serve !== false,
        rows,
      });
  }
  return out.sort((x, y) => byString(x.stem, y.stem));
}

function checkArtifactTypes(parsed: ParsedSources, issues: Issues): Map<string, ArtifactTypeSource> {
  const ids = new IdRegistry<ArtifactTypeSource>('artifact type', issues);
  const resources = new Map<string, string>();
  for (const located of parsed.artifactTypes) {
    const { file, path, value } = located;
    const match = ARTIFACT_TYPE_ID.exec(value.id);
    if (!match) {
      issues.error(file, `${path}/id`, `artifact type id '${value.id}' must be <category>.<subcategory>.<name> (lower case, dot separated)`);
      continue;
    }
    if (match[1] !== value.category)
      issues.error(file, `${path}/id`, `artifact type id '${value.id}' starts with '${match[1]}' but its category is '${value.category}'`);
    if (match[2] !== value.subcategory)
      issues.error(file, `${path}/id`, `artifact type id '${value.id}' has subcategory part '${match[2]}' but its subcategory is '${value.subcategory}'`);
    if (!ids.add(value.id, located)) continue;
    value.provider_mappings.forEach((mapping, i) => {
      const key = `${mapping.provider}|${mapping.resource_type.toLowerCase()}`;
      const first = resources.get(key);
      if (first && first !== value.id) {
        issues.warn(
          file,
          `${path}/provider_mappings/${i}`,
          `${mapping.provider} resource type '${mapping.resource_type}' is also mapped by '${first}'; resolve answers the first by id`,
        );
      } else resources.set(key, value.id);
    });
  }
  return new Map([...ids.byId.entries()].map(([id, located]) => [id, located.value]));
}

function checkTools(parsed: ParsedSources, issues: Issues): Map<string, ToolSource> {
  const ids = new IdRegistry<ToolSource>('tool', issues);
  for (const located of parsed.tools) ids.add(located.value.id, located);
  return new Map([...ids.byId.entries()].map(([id, located]) => [id, located.value]));
}

interface SignalContext {
  parsed: ParsedSources;
  issues: Issues;
  frameworks: Map<string, FrameworkNode>;
  domains: Map<string, DomainNode>;
  artifactTypes: Map<string, ArtifactTypeSource>;
  tools: Map<string, ToolSource>;
  crosswalks: Map<string, CrosswalkNode>;
  /** stem|framework|control → via control ids that the crosswalk relates to it. */
  crosswalkVia: Map<string, Set<string>>;
  /** Signal ids an objectives file assigns to an objective or lists as unassigned. */
  accounted: Set<string>;
  /** Signal ids a supersessions file lists: kept for old references, held to no mapping rule of new signals. */
  superseded: Set<string>;
}

function checkProvenance(ctx: SignalContext, file: string, path: string, mapping: SignalMappingSource): void {
  const { issues } = ctx;
  const p = mapping.provenance;
  const at = `${path}/provenance`;
  if (p.kind === 'expert') {
    for (const field of ['source', 'via', 'rules', 'framework_version'] as const) {
      if (p[field] !== undefined) issues.error(file, `${at}/${field}`, `is not used by provenance kind expert`);
    }
    return;
  }
  if (p.kind === 'crosswalk') {
    if (p.rules !== undefined) issues.error(file, `${at}/rules`, 'is not used by provenance kind crosswalk');
    if (p.framework_version !== undefined) issues.error(file, `${at}/framework_version`, 'is not used by provenance kind crosswalk');
    if (!p.source || !p.via) {
      if (!p.source) issues.error(file, `${at}/source`, 'is required for provenance kind crosswalk (the crosswalk file stem)');
      if (!p.via) issues.error(file, `${at}/via`, 'is required for provenance kind crosswalk (the control the row starts from)');
      return;
    }
    if (!ctx.crosswalks.has(p.source)) {
      issues.error(file, `${at}/source`, `crosswalk '${p.source}' does not exist in crosswalks/`);
      return;
    }
    if (!ctx.crosswalks.get(p.source)!.serve) {
      issues.error(file, `${at}/source`, `crosswalk '${p.source}' is not served (serve: false, its licence), so no mapping may follow it`);
      return;
    }
    if (!ctx.crosswalkVia.get(`${p.source}|${mapping.framework}|${mapping.control}`)?.has(p.via)) {
      issues.error(file, `${at}/via`, `crosswalk ${p.source} has no row relating '${p.via}' to ${mapping.framework} ${mapping.control}`);
    }
    return;
  }
  if (p.via !== undefined) issues.error(file, `${at}/via`, 'is not used by provenance kind scanner_rule');
  if (!p.source || !p.rules) {
    if (!p.source) issues.error(file, `${at}/source`, 'is required for provenance kind scanner_rule (the tool id)');
    if (!p.rules) issues.error(file, `${at}/rules`, 'is required for provenance kind scanner_rule (the tool rule ids)');
    return;
  }
  if (!ctx.tools.has(p.source)) {
    if (!ctx.parsed.unusable.tools.has(p.source)) issues.error(file, `${at}/source`, `tool '${p.source}' does not exist in tools.yaml`);
    return;
  }
  const known = ctx.parsed.ruleIds.get(p.source);
  if (!known) return;
  p.rules.forEach((rule, i) => {
    if (!known.has(rule)) issues.error(file, `${at}/rules/${i}`, `rule id '${rule}' is not a ${p.source} rule (rule-ids/${p.source}.txt)`);
  });
}

function checkSignals(ctx: SignalContext): SignalNode[] {
  const { parsed, issues, frameworks, domains, artifactTypes } = ctx;
  const ids = new IdRegistry<unknown>('signal', issues);
  const titles = new Map<string, string>();
  const sequences = new Map<string, string>();
  const signals: SignalNode[] = [];
  for (const file of parsed.signalFiles) {
    const domain = file.doc.domain;
    const header = domains.get(domain);
    for (const located of file.records) {
      const { path, value: signal } = located;
      const fileName = file.file;
      let ok = ids.add(signal.id, located);
      const match = SIGNAL_ID.exec(signal.id);
      if (!match) {
        issues.error(fileName, `${path}/id`, `signal id '${signal.id}' must match CSR-<DOMAIN>-<CATEGORY>-<NAME (1-4 words of A-Z0-9)>-<NNN>`);
        ok = false;
      } else {
        if (match[1] !== domain) {
          issues.error(fileName, `${path}/id`, `signal id '${signal.id}' has domain part ${match[1]} but is in the ${domain} domain file`);
          ok = false;
        }
        if (match[2] !== signal.category) {
          issues.error(fileName, `${path}/id`, `signal id '${signal.id}' has category part ${match[2]} but its category is ${signal.category}`);
          ok = false;
        }
        const sequenceKey = `${domain}|${match[3]}`;
        const first = sequences.get(sequenceKey);
        if (first && first !== signal.id) {
          issues.error(fileName, `${path}/id`, `sequence ${match[3]} of '${signal.id}' is already used in domain ${domain} by '${first}'`);
        } else sequences.set(sequenceKey, signal.id);
      }
      if (header && !(signal.category in header.categories)) {
        issues.error(
          fileName,
          `${path}/category`,
          `category ${signal.category} is not declared in the ${domain} domain header (categories: ${Object.keys(header.categories).join(', ')})`,
        );
      }
      const titleKey = signal.title.trim().toLowerCase();
      const sameTitle = titles.get(titleKey);
      if (sameTitle && sameTitle !== signal.id) {
        issues.error(fileName, `${path}/title`, `title is not unique: '${sameTitle}' has the same title`);
      } else titles.set(titleKey, signal.id);

      signal.detection.artifact_types.forEach((type, i) => {
        if (!artifactTypes.has(type) && !parsed.unusable.artifactTypes.has(type)) {
          issues.error(fileName, `${path}/detection/artifact_types/${i}`, `artifact type '${type}' does not exist in artifact-types.yaml`);
        }
      });

      const mapped = new Set<string>();
      const primaryFrameworks = new Set<string>();
      signal.mappings.forEach((mapping, i) => {
        const at = `${path}/mappings/${i}`;
        const framework = frameworks.get(mapping.framework);
        if (!framework) {
          if (!parsed.unusable.frameworks.has(mapping.framework))
            issues.error(fileName, `${at}/framework`, `framework ${mapping.framework} has no catalog in frameworks/`);
        } else if (!framework.byId.has(mapping.control)) {
          issues.error(fileName, `${at}/control`, `control '${mapping.control}' does not exist in framework ${mapping.framework}`);
        }
        const key = `${mapping.framework}|${mapping.control}`;
        if (mapped.has(key)) issues.error(fileName, `${at}/control`, `${mapping.framework} ${mapping.control} is mapped twice by this signal`);
        mapped.add(key);
        if (mapping.relationship === 'primary') primaryFrameworks.add(mapping.framework);
        checkProvenance(ctx, fileName, at, mapping);
      });
      if (!signal.mappings.length) {
        // A technical signal reaches controls through the objectives it evidences (or is listed as evidencing none).
        if (domain !== 'GEN') issues.error(fileName, `${path}/mappings`, `signal '${signal.id}' has no mappings`);
        else if (!ctx.accounted.has(signal.id) && !parsed.unusable.objectives.has(signal.id)) {
          issues.error(fileName, `${path}/mappings`, `signal '${signal.id}' has no mappings and no objectives file assigns it (or lists it as unassigned)`);
        }
      } else if (domain === 'GEN') {
        if (primaryFrameworks.size < GEN_PRIMARY_FRAMEWORKS && !ctx.superseded.has(signal.id)) {
          issues.error(
            fileName,
            `${path}/mappings`,
            `GEN signal '${signal.id}' needs primary mappings into at least ${GEN_PRIMARY_FRAMEWORKS} frameworks (has ${primaryFrameworks.size}${primaryFrameworks.size ? `: ${[...primaryFrameworks].join(', ')}` : ''})`,
          );
        }
      } else if (!primaryFrameworks.has(domain)) {
        issues.error(fileName, `${path}/mappings`, `signal '${signal.id}' has no primary mapping into its own framework ${domain}`);
      }
      if (ok) signals.push({ ...signal, domain, file: fileName, path });
      else parsed.unusable.signals.add(signal.id);
    }
  }
  return signals.sort((a, b) => byString(a.id, b.id));
}

function checkTemplates(
  parsed: ParsedSources,
  issues: Issues,
  signalById: Map<string, SignalNode>,
  artifactTypes: Map<string, ArtifactTypeSource>,
): TemplateNode[] {
  const ids = new IdRegistry<unknown>('finding template', issues);
  const out: TemplateNode[] = [];
  for (const located of parsed.templates) {
    const { file, path, value: template } = located;
    let ok = ids.add(template.id, located);
    const match = TEMPLATE_ID.exec(template.id);
    if (!match) {
      issues.error(file, `${path}/id`, `finding template id '${template.id}' must match FT-<DOMAIN>-<CATEGORY>-<NAME>-<NNN>-<NNN>`);
      ok = false;
    }
    const signal = signalById.get(template.signal_id);
    if (!signal) {
      if (!parsed.unusable.signals.has(template.signal_id)) issues.error(file, `${path}/signal_id`, `signal '${template.signal_id}' does not exist`);
      ok = false;
    } else if (match && template.id.slice(3, -4) !== signal.id.slice(4)) {
      issues.warn(
        file,
        `${path}/id`,
        `finding template id '${template.id}' does not repeat its signal id '${signal.id}' (expected FT-${signal.id.slice(4)}-<NNN>)`,
      );
    }
    template.applicable_artifacts.forEach((type, i) => {
      if (!artifactTypes.has(type) && !parsed.unusable.artifactTypes.has(type)) {
        issues.error(file, `${path}/applicable_artifacts/${i}`, `artifact type '${type}' does not exist in artifact-types.yaml`);
      }
    });
    if (ok && signal) out.push({ ...template, domain: signal.domain });
    else parsed.unusable.templates.add(template.id);
  }
  return out.sort((a, b) => byString(a.id, b.id));
}

function checkToolMappings(parsed: ParsedSources, issues: Issues, tools: Map<string, ToolSource>, templateIds: Set<string>): ToolMappingNode[] {
  const out: ToolMappingNode[] = [];
  const seen = new Map<string, string>();
  for (const file of parsed.toolMappingFiles) {
    const toolId = file.doc.tool_id;
    if (stemOf(file.file) !== toolId) {
      issues.error(file.file, '/tool_id', `tool_id '${toolId}' does not match the file name (expected tool-mappings/${toolId}.yaml)`);
      continue;
    }
    if (!tools.has(toolId)) {
      if (!parsed.unusable.tools.has(toolId)) issues.error(file.file, '/tool_id', `tool '${toolId}' does not exist in tools.yaml`);
      continue;
    }
    const known = parsed.ruleIds.get(toolId);
    for (const { path, value } of file.records) {
      let ok = true;
      if (known && !known.has(value.rule_id)) {
        issues.error(file.file, `${path}/rule_id`, `rule id '${value.rule_id}' is not a ${toolId} rule (rule-ids/${toolId}.txt)`);
        ok = false;
      }
      if (!templateIds.has(value.template)) {
        if (!parsed.unusable.templates.has(value.template)) issues.error(file.file, `${path}/template`, `finding template '${value.template}' does not exist`);
        ok = false;
      }
      const key = `${toolId}|${value.rule_id}|${value.template}`;
      const first = seen.get(key);
      if (first) {
        issues.error(file.file, path, `duplicate tool mapping (${toolId}, ${value.rule_id}, ${value.template}) (first at ${first})`);
        ok = false;
      } else seen.set(key, `${file.file} ${path}`);
      if (ok) out.push({ tool_id: toolId, rule_id: value.rule_id, rule_name: value.rule_name, template: value.template, confidence: value.confidence });
    }
  }
  return out.sort((a, b) => byString(a.tool_id, b.tool_id) || byString(a.rule_id, b.rule_id) || byString(a.template, b.template));
}

function accountedSignals(parsed: ParsedSources): Set<string> {
  const out = new Set<string>();
  for (const file of parsed.objectiveFiles) {
    for (const list of Object.values(file.doc.assignments)) for (const entry of list) out.add(typeof entry === 'string' ? entry : entry.signal);
    for (const entry of file.doc.unassigned ?? []) out.add(entry.signal);
  }
  return out;
}

/** A primary link is `equal` or a core `subset_of`; more than this many into one framework must be split into finer objectives. */
export const MAX_PRIMARY_LINKS_PER_FRAMEWORK = 3;

/**
 * Objectives: unique ids, links to controls that exist (each pair once, `core` only on subset_of,
 * at most MAX_PRIMARY_LINKS_PER_FRAMEWORK primary links into one framework), assignments naming
 * existing objectives and signals, no signal both assigned and listed as unassigned.
 */
function checkObjectives(
  parsed: ParsedSources,
  issues: Issues,
  frameworks: Map<string, FrameworkNode>,
  signalById: Map<string, SignalNode>,
): Pick<RegistryModel, 'objectives' | 'objectiveById' | 'objectivesOfSignal' | 'unassignedSignals' | 'partialEvidence'> {
  const ids = new IdRegistry<unknown>('objective', issues);
  const objectiveById = new Map<string, ObjectiveNode>();
  for (const file of parsed.objectiveFiles) {
    const family = stemOf(file.file);
    if (file.doc.family !== family)
      issues.error(file.file, '/family', `family '${file.doc.family}' does not match the file name (expected objectives/${file.doc.family}.yaml)`);
    for (const located of file.records) {
      const { path, value } = located;
      let ok = ids.add(value.id, located);
      if (!value.id.startsWith(`OBJ-${family}-`)) {
        issues.error(file.file, `${path}/id`, `objective id '${value.id}' must start with OBJ-${family}-`);
        ok = false;
      }
      const seen = new Set<string>();
      const primaries = new Map<string, number>();
      value.links.forEach((link, i) => {
        const at = `${path}/links/${i}`;
        const framework = frameworks.get(link.framework);
        if (!framework) {
          if (!parsed.unusable.frameworks.has(link.framework))
            issues.error(file.file, `${at}/framework`, `framework ${link.framework} has no catalog in frameworks/`);
        } else if (!framework.byId.has(link.control)) {
          issues.error(file.file, `${at}/control`, `control '${link.control}' does not exist in framework ${link.framework}`);
        }
        const key = `${link.framework}|${link.control}`;
        if (seen.has(key)) issues.error(file.file, `${at}/control`, `${link.framework} ${link.control} is linked twice by this objective`);
        seen.add(key);
        if (link.core !== undefined && link.relationship !== 'subset_of') issues.error(file.file, `${at}/core`, 'is used only with relationship subset_of');
        if (link.relationship === 'equal' || (link.relationship === 'subset_of' && link.core))
          primaries.set(link.framework, (primaries.get(link.framework) ?? 0) + 1);
      });
      for (const [code, n] of primaries) {
        if (n > MAX_PRIMARY_LINKS_PER_FRAMEWORK)
          issues.error(
            file.file,
            `${path}/links`,
            `${n} primary links (equal or core subset_of) into ${code}; at most ${MAX_PRIMARY_LINKS_PER_FRAMEWORK}: split the objective`,
          );
      }
      if (ok) objectiveById.set(value.id, { ...value, family, author: file.doc.author, file: file.file, path, signals: [] });
    }
  }
  const objectivesOfSignal = new Map<string, string[]>();
  const unassignedSignals = new Map<string, string>();
  const partialEvidence = new Set<string>();
  for (const file of parsed.objectiveFiles) {
    for (const [objectiveId, list] of Object.entries(file.doc.assignments)) {
      const objective = objectiveById.get(objectiveId);
      if (!objective) {
        if (!ids.byId.has(objectiveId)) issues.error(file.file, `/assignments/${objectiveId}`, `objective '${objectiveId}' does not exist`);
        continue;
      }
      list.forEach((entry, i) => {
        const signalId = typeof entry === 'string' ? entry : entry.signal;
        if (typeof entry !== 'string') partialEvidence.add(`${signalId}|${objectiveId}`);
        if (!signalById.has(signalId)) {
          if (!parsed.unusable.signals.has(signalId)) issues.error(file.file, `/assignments/${objectiveId}/${i}`, `signal '${signalId}' does not exist`);
          return;
        }
        const current = objectivesOfSignal.get(signalId) ?? [];
        if (current.includes(objectiveId))
          issues.error(file.file, `/assignments/${objectiveId}/${i}`, `signal '${signalId}' is assigned to ${objectiveId} twice`);
        else {
          current.push(objectiveId);
          objective.signals.push(signalId);
        }
        objectivesOfSignal.set(signalId, current);
      });
    }
    (file.doc.unassigned ?? []).forEach((entry, i) => {
      if (!signalById.has(entry.signal) && !parsed.unusable.signals.has(entry.signal))
        issues.error(file.file, `/unassigned/${i}/signal`, `signal '${entry.signal}' does not exist`);
      else unassignedSignals.set(entry.signal, entry.reason);
    });
  }
  // A family may hand a signal on ("belongs to family X"); an assignment elsewhere settles it.
  for (const signalId of objectivesOfSignal.keys()) unassignedSignals.delete(signalId);
  for (const list of objectivesOfSignal.values()) list.sort(byString);
  const objectives = [...objectiveById.values()].sort((a, b) => byString(a.id, b.id));
  for (const objective of objectives) objective.signals.sort(byString);
  return { objectives, objectiveById, objectivesOfSignal, unassignedSignals, partialEvidence };
}

function checkSupersessions(parsed: ParsedSources, issues: Issues, signalById: Map<string, SignalNode>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of parsed.supersessionFiles) {
    for (const { path, value } of file.records) {
      if (!signalById.has(value.signal_id)) {
        if (!parsed.unusable.signals.has(value.signal_id)) issues.error(file.file, `${path}/signal_id`, `signal '${value.signal_id}' does not exist`);
        continue;
      }
      if (out.has(value.signal_id)) {
        issues.error(file.file, `${path}/signal_id`, `signal '${value.signal_id}' is superseded twice`);
        continue;
      }
      const successors = value.superseded_by.filter((id, i) => {
        if (signalById.has(id) && id !== value.signal_id) return true;
        if (!parsed.unusable.signals.has(id)) issues.error(file.file, `${path}/superseded_by/${i}`, `successor '${id}' does not exist`);
        return false;
      });
      if (successors.length) out.set(value.signal_id, successors);
    }
  }
  return out;
}

function checkRuleAliases(parsed: ParsedSources, issues: Issues, tools: Map<string, ToolSource>): RuleAliasNode[] {
  const out: RuleAliasNode[] = [];
  const seen = new Map<string, string>();
  for (const file of parsed.ruleAliasFiles) {
    const toolId = file.doc.tool_id;
    if (!tools.has(toolId)) {
      if (!parsed.unusable.tools.has(toolId)) issues.error(file.file, '/tool_id', `tool '${toolId}' does not exist in tools.yaml`);
      continue;
    }
    const known = parsed.ruleIds.get(toolId);
    for (const { path, value } of file.records) {
      if (known && !known.has(value.rule_id)) {
        issues.error(file.file, `${path}/rule_id`, `rule id '${value.rule_id}' is not a ${toolId} rule (rule-ids/${toolId}.txt)`);
        continue;
      }
      if (known && [...known].some((id) => id.toLowerCase() === value.alias.toLowerCase())) {
        issues.error(file.file, `${path}/alias`, `alias '${value.alias}' is itself a ${toolId} rule id`);
        continue;
      }
      const key = `${toolId}|${value.alias.toLowerCase()}`;
      const first = seen.get(key);
      if (first) {
        issues.error(file.file, `${path}/alias`, `alias '${value.alias}' of ${toolId} is defined twice (first at ${first})`);
        continue;
      }
      seen.set(key, `${file.file} ${path}`);
      out.push({ tool_id: toolId, alias: value.alias, rule_id: value.rule_id, basis: value.basis });
    }
  }
  return out.sort((a, b) => byString(a.tool_id, b.tool_id) || byString(a.alias, b.alias));
}

/** Runs every integrity check; the model holds only records that passed. */
export function buildModel(parsed: ParsedSources, issues: Issues): RegistryModel {
  const frameworks = checkFrameworks(parsed, issues);
  attachControlProse(parsed, frameworks, issues);
  const domains = checkDomains(parsed, issues);
  const crosswalks = checkCrosswalks(parsed, frameworks, issues);
  const crosswalkVia = new Map<string, Set<string>>();
  for (const crosswalk of crosswalks) {
    const expanded = expandCrosswalk(crosswalk, frameworks);
    for (const side of ['a', 'b'] as const) {
      const ids = expanded.unresolved[side];
      if (ids.length) {
        const code = side === 'a' ? crosswalk.framework_a : crosswalk.framework_b;
        issues.warn(
          crosswalk.file,
          '/rows',
          `${ids.length} ${code} control id(s) are not in the registry and are skipped (e.g. ${ids.slice(0, 3).join(', ')})`,
        );
      }
    }
    for (const p of expanded.pairs) {
      for (const [fw, control, via] of [
        [p.fa, p.ca, p.cb],
        [p.fb, p.cb, p.ca],
      ]) {
        const key = `${crosswalk.stem}|${fw}|${control}`;
        const set = crosswalkVia.get(key) ?? new Set<string>();
        set.add(via);
        crosswalkVia.set(key, set);
      }
    }
  }
  const artifactTypes = checkArtifactTypes(parsed, issues);
  const tools = checkTools(parsed, issues);
  const signals = checkSignals({
    parsed,
    issues,
    frameworks,
    domains,
    artifactTypes,
    tools,
    crosswalks: new Map(crosswalks.map((c) => [c.stem, c])),
    crosswalkVia,
    accounted: accountedSignals(parsed),
    superseded: new Set(parsed.supersessionFiles.flatMap((f) => f.records.map((r) => r.value.signal_id))),
  });
  const signalById = new Map(signals.map((s) => [s.id, s]));
  const supersededBy = checkSupersessions(parsed, issues, signalById);
  const templates = checkTemplates(parsed, issues, signalById, artifactTypes);
  const toolMappings = checkToolMappings(parsed, issues, tools, new Set(templates.map((t) => t.id)));
  const objectives = checkObjectives(parsed, issues, frameworks, signalById);
  return {
    meta: parsed.meta ?? { registry_version: '0.0.0', spec_version: '0.0.0', ocsf_version: '0.0.0' },
    frameworks: [...frameworks.values()],
    frameworkByCode: frameworks,
    domains: [...domains.values()],
    signals,
    signalById,
    crosswalks,
    artifactTypes: [...artifactTypes.values()].sort((a, b) => byString(a.id, b.id)),
    templates,
    tools: [...tools.values()].sort((a, b) => byString(a.id, b.id)),
    toolMappings,
    ruleAliases: checkRuleAliases(parsed, issues, tools),
    supersededBy,
    ...objectives,
  };
}
