import { Type, type Static } from '@sinclair/typebox';
import { invalidParameter, notFound } from '../core/errors.js';
import { json, type Route, type RouteContext } from '../http/route.js';
import type { Registry } from '../registry/registry.js';
import type { ControlListItem } from '../schemas/registry.js';
import { FRAMEWORK_CATEGORIES } from '../schemas/registry-source.js';
import { ControlDetail, ControlList, FrameworkControls, FrameworkList, FrameworkView, PagesMeta, TotalMeta } from '../schemas/api.js';
import { hasCustomFrameworks, ownFramework, ownFrameworks, resolvedFramework } from '../custom-frameworks/account.js';
import { controlCategories } from '../custom-frameworks/model.js';
import { customDetail, customListItem } from './custom-frameworks.js';
import { frameworkCodes, pageMeta, pageParams, pageWindow, QuerySchema, resolveFramework, type PageQuery, type PageWindow } from './query.js';
import { StringEnum } from '../schemas/string-enum.js';

const FrameworksQuery = QuerySchema({ category: StringEnum(FRAMEWORK_CATEGORIES, { description: 'Framework category' }) });

/**
 * Frameworks in the registry's order: the 11 gap-analysis frameworks, then the listing-only ones;
 * then an Enterprise account's own, by code (category custom: listed when no category is asked for).
 */
async function listFrameworks({ query, services, account }: RouteContext<{ category?: string }>) {
  const frameworks: Array<Record<string, unknown>> = services.registry.frameworks(query.category).map((framework) => ({ ...framework, custom: false }));
  if (query.category === undefined) for (const own of await ownFrameworks(services.customFrameworks, account)) frameworks.push(customListItem(own));
  return json(frameworks, { total: frameworks.length });
}

/** A registry framework, or one of the account's own with its definition (another account's is not found). */
async function getFramework({ params, services, account }: RouteContext) {
  const framework = services.registry.framework(params.code);
  if (framework) return json({ ...framework, custom: false });
  const own = await ownFramework(services.customFrameworks, account, params.code);
  if (!own) throw notFound('Framework', params.code);
  return json(customDetail(own));
}

const FrameworkControlsQuery = QuerySchema({
  category: Type.String({ minLength: 1, description: 'Control category (family) of the framework, any case' }),
  ...pageParams(50, 100),
});

interface ControlsPageQuery extends PageQuery {
  category?: string;
}

/**
 * A framework's controls in catalog order, each with the count and ids of the signals mapped to it;
 * for a custom framework, its direct and inherited signals (docs/custom-frameworks.md).
 */
async function frameworkControls(ctx: RouteContext<ControlsPageQuery>) {
  const { params, query, services } = ctx;
  const { registry } = services;
  const framework = registry.framework(params.code);
  if (!framework) return customFrameworkControls(ctx);
  if (query.category !== undefined) checkControlCategory(registry, framework.code, query.category);
  const controls = registry.controls(framework.code, query.category);
  const { offset, limit } = pageWindow(query);
  const data = {
    framework: { code: framework.code, name: framework.name, version: framework.version, custom: false },
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

async function customFrameworkControls({ params, query, services, account }: RouteContext<ControlsPageQuery>) {
  const framework = await ownFramework(services.customFrameworks, account, params.code);
  if (!framework) throw notFound('Framework', params.code);
  const { controls: resolved } = resolvedFramework(framework, services.registry);
  let indexes = framework.controls.map((_, i) => i);
  if (query.category !== undefined) {
    const categories = controlCategories(framework.controls);
    const wanted = query.category.toLowerCase();
    if (!categories.some((c) => c.toLowerCase() === wanted))
      throw invalidParameter('category', query.category, { valid_values: categories, reason: `is not a control category of ${framework.code}` });
    indexes = indexes.filter((i) => framework.controls[i].category.toLowerCase() === wanted);
  }
  const { offset, limit } = pageWindow(query);
  const data = {
    framework: { code: framework.code, name: framework.name, version: framework.version, custom: true, revision: framework.revision },
    controls: indexes.slice(offset, offset + limit).map((i) => {
      const control = framework.controls[i];
      const signalIds = resolved[i].mappings.map((m) => m.signal_id);
      return {
        id: control.id,
        title: control.title,
        category: control.category,
        description: control.description,
        mapped_signals: signalIds.length,
        signal_ids: signalIds,
      };
    }),
  };
  return json(data, pageMeta(indexes.length, query, true));
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

/** Typed by the published schema, so a field the schema requires cannot be dropped (as mapping_id once was). */
function controlView(c: ControlListItem): Static<typeof ControlList>[number] {
  const mappedSignals = c.mapped_signals.map((m) => ({
    signal_id: m.signal_id,
    confidence: m.confidence,
    relationship: m.relationship,
    mapping_id: m.mapping_id,
  }));
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
    accountOwned: hasCustomFrameworks,
    handler: listFrameworks,
  },
  {
    method: 'GET',
    path: '/v1/frameworks/:code',
    tier: 'community',
    tag: 'frameworks',
    summary: "A framework's details (code in any accepted spelling); an Enterprise account's own framework with its definition",
    response: FrameworkView,
    handler: getFramework,
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
    accountOwned: hasCustomFrameworks,
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
