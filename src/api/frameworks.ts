import { Type, type Static } from '@sinclair/typebox';
import { invalidParameter, notFound } from '../core/errors.js';
import { json, type Route, type RouteContext } from '../http/route.js';
import type { Registry } from '../registry/registry.js';
import type { ControlListItem } from '../schemas/registry.js';
import { FRAMEWORK_CATEGORIES } from '../schemas/registry-source.js';
import { ControlDetail, ControlList, FrameworkControls, FrameworkList, PagesMeta, TotalMeta } from '../schemas/api.js';
import { frameworkCodes, pageMeta, pageParams, pageWindow, QuerySchema, resolveFramework, type PageQuery, type PageWindow } from './query.js';
import { StringEnum } from '../schemas/string-enum.js';

const FrameworksQuery = QuerySchema({ category: StringEnum(FRAMEWORK_CATEGORIES, { description: 'Framework category' }) });

/** Frameworks in the registry's order: the 11 gap-analysis frameworks, then the listing-only ones. */
function listFrameworks({ query, services }: RouteContext<{ category?: string }>) {
  const frameworks = services.registry.frameworks(query.category);
  return json(frameworks, { total: frameworks.length });
}

const FrameworkControlsQuery = QuerySchema({
  category: Type.String({ minLength: 1, description: 'Control category (family) of the framework, any case' }),
  ...pageParams(50, 100),
});

interface ControlsPageQuery extends PageQuery {
  category?: string;
}

/** A framework's controls in catalog order, each with the count and ids of the signals mapped to it. */
function frameworkControls({ params, query, services }: RouteContext<ControlsPageQuery>) {
  const { registry } = services;
  const framework = registry.framework(params.code);
  if (!framework) throw notFound('Framework', params.code);
  if (query.category !== undefined) checkControlCategory(registry, framework.code, query.category);
  const controls = registry.controls(framework.code, query.category);
  const { offset, limit } = pageWindow(query);
  const data = {
    framework: { code: framework.code, name: framework.name, version: framework.version },
    controls: controls.slice(offset, offset + limit).map((c) => ({
      id: c.id,
      title: c.title,
      category: c.category,
      description: c.description,
      mapped_signals: c.signal_ids.length,
      signal_ids: c.signal_ids,
    })),
  };
  return json(data, pageMeta(controls.length, query, true));
}

const ControlsQuery = QuerySchema({
  framework: Type.String({ minLength: 1, description: 'Framework code (gap-analysis or listing spelling, any case)' }),
  category: Type.String({ minLength: 1, description: 'Control category (family), any case' }),
  ...pageParams(50, 100),
});

interface ControlsQuery extends ControlsPageQuery {
  framework?: string;
}

/** Control categories are a closed set per framework: an unknown one is 400 with the framework's categories. */
function checkControlCategory(registry: Registry, code: string, category: string): void {
  const categories = registry.framework(code)?.control_categories ?? [];
  const wanted = category.toLowerCase();
  if (!categories.some((c) => c.toLowerCase() === wanted)) {
    throw invalidParameter('category', category, { valid_values: categories, reason: `is not a control category of ${code}` });
  }
}

/** Typed by the published schema, so a field the schema requires cannot be dropped again (mapping_id was, issue 13). */
function controlView(c: ControlListItem): Static<typeof ControlList>[number] {
  const mappedSignals = c.mapped_signals.map((m) => ({ signal_id: m.signal_id, confidence: m.confidence, relationship: m.relationship, mapping_id: m.mapping_id }));
  return { id: c.id, framework: c.framework, title: c.title, category: c.category, description: c.description, level: c.level, mapped_signals: mappedSignals };
}

/**
 * Walks the frameworks in listing order and takes the page's window out of each framework's
 * precomputed control list, so only the returned controls are touched.
 */
function pageAcrossFrameworks(registry: Registry, codes: readonly string[], category: string | undefined, window: PageWindow) {
  let total = 0;
  const items: ControlListItem[] = [];
  for (const code of codes) {
    const controls = registry.controls(code, category);
    const start = Math.max(0, window.offset - total);
    const room = window.limit - items.length;
    if (room > 0 && start < controls.length) items.push(...controls.slice(start, start + room));
    total += controls.length;
  }
  return { total, items };
}

function listControls({ query, services }: RouteContext<ControlsQuery>) {
  const { registry } = services;
  const codes = query.framework === undefined ? frameworkCodes(registry) : [resolveFramework(registry, 'framework', query.framework)];
  if (query.framework !== undefined && query.category !== undefined) checkControlCategory(registry, codes[0], query.category);
  const { total, items } = pageAcrossFrameworks(registry, codes, query.category, pageWindow(query));
  return json(items.map(controlView), pageMeta(total, query, true));
}

const ControlQuery = QuerySchema({
  framework: Type.String({ minLength: 1, description: 'Framework code; required when the control id exists in several frameworks' }),
});

function getControl({ params, query, services }: RouteContext<{ framework?: string }>) {
  const { registry } = services;
  let framework: string;
  if (query.framework !== undefined) {
    framework = resolveFramework(registry, 'framework', query.framework);
  } else {
    const candidates = registry.frameworksOfControlId(params.id);
    if (candidates.length === 0) throw notFound('Control', params.id);
    if (candidates.length > 1) {
      throw invalidParameter('framework', undefined, {
        valid_values: candidates,
        reason: `is required: control ${params.id} exists in ${candidates.join(', ')}`,
      });
    }
    framework = candidates[0];
  }
  const control = registry.control(framework, params.id);
  if (!control) throw notFound(`${framework} control`, params.id);
  return json(control);
}

export const frameworkRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/frameworks',
    registryRead: true,
    tier: 'community',
    tag: 'frameworks',
    summary: 'List the frameworks with control counts, optionally of one category',
    query: FrameworksQuery,
    response: FrameworkList,
    meta: TotalMeta,
    handler: listFrameworks,
  },
  {
    method: 'GET',
    path: '/v1/frameworks/:code/controls',
    registryRead: true,
    tier: 'community',
    tag: 'frameworks',
    summary: "A framework's controls in catalog order with their mapped signals (code in any accepted spelling)",
    query: FrameworkControlsQuery,
    response: FrameworkControls,
    meta: PagesMeta,
    handler: frameworkControls,
  },
  {
    method: 'GET',
    path: '/v1/controls',
    registryRead: true,
    tier: 'pro',
    tag: 'controls',
    summary: 'List controls with their mapped signals, across frameworks or of one framework',
    query: ControlsQuery,
    response: ControlList,
    meta: PagesMeta,
    handler: listControls,
  },
  {
    method: 'GET',
    path: '/v1/controls/:id',
    registryRead: true,
    tier: 'pro',
    tag: 'controls',
    summary: 'A control with guidance, evidence, mapped signals and related controls of other frameworks',
    query: ControlQuery,
    response: ControlDetail,
    handler: getControl,
  },
];
