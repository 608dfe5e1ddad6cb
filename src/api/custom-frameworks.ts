/**
 * Custom frameworks (Enterprise, spec 8.2): an account defines, versions and deletes its own
 * frameworks, in the JSON form, as an OSCAL catalog or as a spreadsheet, and reads which of their
 * controls the registry's signals can assess. The reads shared with the registry's frameworks
 * (GET /v1/frameworks, /v1/frameworks/{code}, /v1/frameworks/{code}/controls) are in frameworks.ts.
 * docs/custom-frameworks.md describes the forms, the evidence rule and the limits.
 */
import { Type } from '@sinclair/typebox';
import { ApiError, invalidParameter, notFound } from '../core/errors.js';
import { json, type Reply, type Route, type RouteContext } from '../http/route.js';
import type { Registry } from '../registry/registry.js';
import { hasCustomFrameworks, ownFramework, resolvedFramework } from '../custom-frameworks/account.js';
import { toolRuleIndexOf } from '../registry/tool-rules.js';
import { coverageAnswer, toolsOf } from '../posture/coverage.js';
import { COVERAGE_SUGGESTIONS_DEFAULT, CoverageQuery, CoveragePlanData } from '../schemas/posture.js';
import { codeTakenByRegistry, type FrameworkMeta } from '../custom-frameworks/define.js';
import { INLINE_FRAMEWORK_MAX_BYTES, readFramework, type ReadFrameworkTask } from '../custom-frameworks/read-task.js';
import { ownedBytes } from './gap-analysis.js';
import { DEFAULT_MIN_CONFIDENCE } from '../custom-frameworks/inheritance.js';
import {
  controlCategories,
  CUSTOM_FRAMEWORK_LIMITS,
  frameworkInvalid,
  type CustomFrameworkSummary,
  type StoredCustomFramework,
} from '../custom-frameworks/model.js';
import { FRAMEWORK_MEDIA_TYPES, XLSX_MEDIA_TYPE } from '../custom-frameworks/read.js';
import { csvTemplate, xlsxTemplate, type TemplateExample } from '../custom-frameworks/spreadsheet.js';
import {
  CustomFrameworkBody,
  CustomFrameworkCoverage,
  CustomFrameworkDeleted,
  CustomFrameworkDetail,
  CustomFrameworkQuery,
  type CustomControl,
} from '../schemas/custom-framework.js';
import { StringEnum } from '../schemas/string-enum.js';

const NOT_CUSTOM = 'Custom framework';

/** A framework as GET /v1/frameworks lists it beside the registry's. */
export function customListItem(framework: CustomFrameworkSummary) {
  return {
    code: framework.code,
    listing_code: framework.code,
    name: framework.name,
    version: framework.version,
    category: 'custom' as const,
    control_count: framework.control_count,
    description: framework.description,
    gap_analysis: true as const,
    custom: true as const,
    revision: framework.revision,
    source_format: framework.source_format,
    created_at: framework.created_at,
    updated_at: framework.updated_at,
  };
}

/** The definition as GET answers it: the JSON form's fields with their defaults, so it can be sent back with PUT. */
export function customDetail(framework: StoredCustomFramework) {
  return {
    ...customListItem(framework),
    control_categories: controlCategories(framework.controls),
    versions: framework.versions,
    controls: framework.controls,
  };
}

/** The body read and checked: inline when small, on a worker thread otherwise. */
async function readDefinition(ctx: RouteContext<FrameworkMeta>, current?: StoredCustomFramework) {
  const body = ctx.rawBody ?? Buffer.alloc(0);
  const task: ReadFrameworkTask = {
    body,
    contentType: ctx.headers['content-type'],
    query: { ...ctx.query },
    ...(current && { current: { code: current.code, name: current.name, description: current.description } }),
  };
  let output;
  if (body.byteLength <= INLINE_FRAMEWORK_MAX_BYTES) output = await readFramework(ctx.services.registry, task);
  else {
    const owned = ownedBytes(body);
    output = await ctx.services.pool.run('readFramework', { ...task, body: owned }, [owned.buffer as ArrayBuffer], ctx.closed);
  }
  if (!output.ok) throw new ApiError(output.error.code, output.error.details, { message: output.error.message });
  return output;
}

async function createFramework(ctx: RouteContext<FrameworkMeta>) {
  const { services, account } = ctx;
  const { format, content } = await readDefinition(ctx);
  if (codeTakenByRegistry(content.code, services.registry)) {
    throw new ApiError(
      'framework_exists',
      { code: content.code, built_in: true },
      { message: `Framework code ${content.code} is a registry framework's (or reserved): a custom framework cannot shadow it` },
    );
  }
  const now = services.now().toISOString();
  const framework: StoredCustomFramework = {
    account: account.name,
    ...content,
    revision: 1,
    control_count: content.controls.length,
    source_format: format,
    created_at: now,
    updated_at: now,
    versions: [{ revision: 1, version: content.version, created_at: now, control_count: content.controls.length, source_format: format }],
  };
  const outcome = await services.customFrameworks.create(framework, CUSTOM_FRAMEWORK_LIMITS.frameworksPerAccount);
  if (!outcome.created && outcome.reason === 'exists') {
    throw new ApiError(
      'framework_exists',
      { code: content.code, built_in: false },
      { message: `Framework code ${content.code} is taken: PUT /v1/frameworks/${content.code} stores a new version` },
    );
  }
  if (!outcome.created) throw new ApiError('framework_limit_reached', { count: outcome.count, limit: CUSTOM_FRAMEWORK_LIMITS.frameworksPerAccount });
  return json(customDetail(framework));
}

async function replaceFramework(ctx: RouteContext<FrameworkMeta>) {
  const { services, account, params } = ctx;
  const code = params.code.toUpperCase();
  const current = await ownFramework(services.customFrameworks, account, code);
  if (!current) throw notFound(NOT_CUSTOM, params.code);
  const { format, content } = await readDefinition(ctx, current);
  if (content.version === current.version) {
    throw frameworkInvalid(
      format,
      format === 'json' ? { pointer: '/version' } : undefined,
      `version ${JSON.stringify(content.version)} is the current version's: a new version needs a new label`,
    );
  }
  const now = services.now().toISOString();
  const stored = await services.customFrameworks.replace({
    ...current,
    ...content,
    control_count: content.controls.length,
    source_format: format,
    updated_at: now,
  });
  if (!stored) throw notFound(NOT_CUSTOM, params.code);
  return json(customDetail(stored));
}

/** The route is Enterprise's alone, so the account may have frameworks. */
async function deleteFramework({ services, account, params }: RouteContext) {
  const removed = await services.customFrameworks.delete(account.name, params.code.toUpperCase());
  if (!removed) throw notFound(NOT_CUSTOM, params.code);
  return json({ code: removed.code, deleted: true, revision: removed.revision });
}

const TemplateQuery = Type.Object({ format: Type.Optional(StringEnum(['csv', 'xlsx'] as const, { description: 'csv (default) or xlsx' })) });

/** The template's example row names a real signal and a real SOC 2 control, so that the template uploads as it is. */
function templateExample(registry: Registry): TemplateExample {
  const control = registry.controls('SOC2').find((c) => c.mapped_signals.some((m) => m.relationship === 'primary'));
  const signal = control?.mapped_signals.find((m) => m.relationship === 'primary');
  if (!control || !signal) return {};
  return { signals: `${signal.signal_id} primary 0.9`, corresponds_to: `SOC2:${control.id} subset_of` };
}

async function template({ query, services }: RouteContext<{ format?: 'csv' | 'xlsx' }>): Promise<Reply> {
  const format = query.format ?? 'csv';
  const example = templateExample(services.registry);
  const headers = { 'Content-Disposition': `attachment; filename="custom-framework-template.${format}"`, 'Cache-Control': 'private, max-age=3600' };
  if (format === 'xlsx') return { headers: { ...headers, 'Content-Type': XLSX_MEDIA_TYPE }, file: await xlsxTemplate(example) };
  return { headers: { ...headers, 'Content-Type': 'text/csv; charset=utf-8' }, file: csvTemplate(example) };
}

/** The scanner rules (tool:rule) that report each signal, from its finding templates' tool mappings. */
const rulesOfSignal = new WeakMap<Registry, Map<string, readonly string[]>>();

function scannerRules(registry: Registry, signalId: string): readonly string[] {
  let bySignal = rulesOfSignal.get(registry);
  if (!bySignal) rulesOfSignal.set(registry, (bySignal = new Map()));
  let rules = bySignal.get(signalId);
  if (!rules) {
    const found = new Set<string>();
    for (const template of registry.templatesOfSignal(signalId)) {
      for (const id of registry.toolMappingIds({ finding_template_id: template.id })) {
        const mapping = registry.toolMapping(id);
        if (mapping) found.add(`${mapping.tool_id}:${mapping.rule_id}`);
      }
    }
    bySignal.set(signalId, (rules = [...found]));
  }
  return rules;
}

/**
 * With `tools`, or for a registry framework: what those tools' rules can assess and which other
 * rules would assess the rest (docs/posture.md). A custom framework without `tools`: which of its
 * controls the registry's signals, and the scanner rules behind them, can assess.
 */
async function coverage({ services, account, params, query }: RouteContext<{ tools?: string[]; limit?: number }>) {
  const { registry } = services;
  const limit = query.limit ?? COVERAGE_SUGGESTIONS_DEFAULT;
  const tools = () => {
    const read = toolsOf(query.tools ?? [], toolRuleIndexOf(registry));
    if (read.unknown.length)
      throw invalidParameter('tools', read.unknown.join(','), {
        valid_values: toolRuleIndexOf(registry).tools,
        reason: 'names a tool the registry does not know',
      });
    return read.tools;
  };
  const builtIn = registry.framework(params.code);
  if (builtIn) {
    const controls = registry.controls(builtIn.code).map((control) => ({ id: control.id, title: control.title, mapped_signals: control.mapped_signals }));
    const plan = { code: builtIn.code, name: builtIn.name, version: builtIn.version, custom: false, controls };
    return json(coverageAnswer(toolRuleIndexOf(registry), plan, tools(), limit, builtIn.code));
  }
  // The account's own frameworks are Enterprise's alone.
  if (!hasCustomFrameworks(account)) throw new ApiError('GAP_TIER_REQUIRED', { required_tier: 'enterprise', current_tier: account.tier });
  const framework = await ownFramework(services.customFrameworks, account, params.code);
  if (!framework) throw notFound(NOT_CUSTOM, params.code);
  const resolved = resolvedFramework(framework, registry);
  if (query.tools !== undefined) {
    const controls = framework.controls.map((control, i) => ({ id: control.id, title: control.title, mapped_signals: resolved.controls[i].mappings }));
    const plan = { code: framework.code, name: framework.name, version: framework.version, custom: true, revision: framework.revision, controls };
    return json(coverageAnswer(toolRuleIndexOf(registry), plan, tools(), limit));
  }
  let assessable = 0;
  let byScanner = 0;
  let below = 0;
  const controls = framework.controls.map((control: CustomControl, i) => {
    const { mappings, unknown } = resolved.controls[i];
    const counted = mappings.filter((m) => m.confidence >= DEFAULT_MIN_CONFIDENCE);
    const rules = new Set(counted.flatMap((m) => scannerRules(registry, m.signal_id)));
    const status = counted.length ? 'assessable' : mappings.length ? 'below_default_confidence' : 'unassessable';
    if (status === 'assessable') assessable += 1;
    if (status === 'assessable' && rules.size) byScanner += 1;
    if (status === 'below_default_confidence') below += 1;
    return {
      id: control.id,
      title: control.title,
      category: control.category,
      status,
      direct_signals: mappings.filter((m) => !m.via).length,
      inherited_signals: mappings.filter((m) => m.via).length,
      signals_at_default_confidence: counted.length,
      scanner_rules: rules.size,
      unknown_references: unknown,
    };
  });
  const total = controls.length;
  return json({
    framework: { code: framework.code, name: framework.name, version: framework.version, revision: framework.revision },
    summary: {
      controls_total: total,
      assessable,
      assessable_by_scanner_rules: byScanner,
      below_default_confidence: below,
      unassessable: total - assessable - below,
      coverage: total ? Math.round((1000 * assessable) / total) / 1000 : 0,
    },
    controls,
  });
}

const WRITE_ERRORS = [
  'framework_invalid',
  'invalid_json',
  'json_too_deep',
  'unsupported_media_type',
  'payload_too_large',
  'service_busy',
  'task_timeout',
] as const;

export const customFrameworkRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/frameworks',
    tier: 'enterprise',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'frameworks',
    summary: 'Create a custom framework from the JSON form, an OSCAL catalog or a CSV/XLSX spreadsheet (Enterprise)',
    query: CustomFrameworkQuery,
    body: CustomFrameworkBody,
    rawBody: true,
    accepts: FRAMEWORK_MEDIA_TYPES,
    bodyLimit: 'analysis',
    // A large file is read on a worker thread; its body waits for a turn there (src/pool.ts).
    pooled: { bodiesOver: INLINE_FRAMEWORK_MAX_BYTES },
    response: CustomFrameworkDetail,
    errors: [...WRITE_ERRORS, 'framework_exists', 'framework_limit_reached'],
    handler: createFramework,
  },
  {
    method: 'PUT',
    path: '/v1/frameworks/:code',
    tier: 'enterprise',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'frameworks',
    summary: 'Store a new version of a custom framework (any input form; the version label must change)',
    query: CustomFrameworkQuery,
    body: CustomFrameworkBody,
    rawBody: true,
    accepts: FRAMEWORK_MEDIA_TYPES,
    bodyLimit: 'analysis',
    // A large file is read on a worker thread; its body waits for a turn there (src/pool.ts).
    pooled: { bodiesOver: INLINE_FRAMEWORK_MAX_BYTES },
    response: CustomFrameworkDetail,
    errors: [...WRITE_ERRORS],
    handler: replaceFramework,
  },
  {
    method: 'DELETE',
    path: '/v1/frameworks/:code',
    tier: 'enterprise',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'frameworks',
    summary: 'Delete a custom framework (stored analyses that used it stay readable)',
    response: CustomFrameworkDeleted,
    handler: deleteFramework,
  },
  {
    method: 'GET',
    path: '/v1/frameworks/template',
    tier: 'enterprise',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'frameworks',
    summary: 'The spreadsheet template for custom frameworks (csv or xlsx): one control a row, the columns documented',
    query: TemplateQuery,
    produces: ['text/csv; charset=utf-8', XLSX_MEDIA_TYPE],
    bare: true,
    response: Type.String(),
    handler: template,
  },
  {
    method: 'GET',
    path: '/v1/frameworks/:code/coverage',
    tier: 'teams',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'frameworks',
    summary:
      "For the tools a team runs (tools=prowler,checkov), the framework's controls their rules assess, those none reaches, and the other tools' rules that would, ranked; a custom framework without tools: which controls the registry's signals and scanner rules can assess (Enterprise)",
    query: CoverageQuery,
    // A registry framework's answer depends on the path and query alone; an Enterprise account's may be its own framework's.
    registryRead: true,
    accountOwned: hasCustomFrameworks,
    response: Type.Union([CoveragePlanData, CustomFrameworkCoverage]),
    handler: coverage,
  },
];
