/** Finding templates, scanner tool mappings and security tools (spec 4.7, Teams). */
import { Type } from '@sinclair/typebox';
import { notFound } from '../core/errors.js';
import { json, type Route, type RouteContext } from '../http/route.js';
import { DOMAIN_CODES, TEMPLATE_STATUSES, TOOL_CATEGORIES, TOOL_CONFIDENCES } from '../schemas/registry-source.js';
import { SEVERITIES } from '../core/vocabulary.js';
import {
  CatalogPageMeta,
  CatalogTotalMeta,
  FindingTemplateList,
  FindingTemplateView,
  SecurityToolList,
  ToolMappingList,
  ToolRuleMatches,
  VersionMeta,
} from '../schemas/api.js';
import { pageParams, pageWindow, QuerySchema, registryMeta, type PageQuery } from './query.js';
import { StringEnum } from '../schemas/string-enum.js';
import type { FindingTemplateFilter, ToolMappingFilter } from '../registry/registry.js';

const TemplatesQuery = QuerySchema({
  signal_id: Type.String({ minLength: 1 }),
  category: Type.String({ minLength: 1, description: 'Template category, e.g. encryption, access (any case)' }),
  severity: StringEnum(SEVERITIES),
  status: StringEnum(TEMPLATE_STATUSES),
  domain: StringEnum(DOMAIN_CODES, { description: 'Domain code of the template signal' }),
  q: Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive text in id, title or description' }),
  ...pageParams(50, 100),
});

type TemplatesQuery = PageQuery & FindingTemplateFilter;

/** Finding templates in id order. */
function listTemplates({ query, services }: RouteContext<TemplatesQuery>) {
  const { registry } = services;
  const page = registry.findingTemplates(query, pageWindow(query));
  return json(page.items, { ...registryMeta(registry), total: page.total, page: query.page, per_page: query.per_page });
}

function getTemplate({ params, services }: RouteContext) {
  const detail = services.registry.findingTemplateDetail(params.id);
  if (!detail) throw notFound('Finding template', params.id);
  const { applicable_artifacts: _artifacts, detection: _detection, remediation: _remediation, ...view } = detail;
  return json(view, registryMeta(services.registry));
}

const ToolMappingsQuery = QuerySchema({
  tool_id: Type.String({ minLength: 1 }),
  finding_template_id: Type.String({ minLength: 1 }),
  confidence: StringEnum(TOOL_CONFIDENCES),
  q: Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive text in rule id or rule name' }),
  ...pageParams(50, 100),
});

type ToolMappingsQuery = PageQuery & ToolMappingFilter;

/** Tool mappings in id order (tool, then rule order of the tool's source file). */
function listToolMappings({ query, services }: RouteContext<ToolMappingsQuery>) {
  const { registry } = services;
  const page = registry.toolMappings(query, pageWindow(query));
  return json(page.items, { ...registryMeta(registry), total: page.total, page: query.page, per_page: query.per_page });
}

const LookupQuery = QuerySchema(
  {
    tool_id: Type.String({ minLength: 1, description: 'Security tool id, e.g. prowler' }),
    rule_id: Type.String({ minLength: 1, description: "The tool's rule id (any case)" }),
  },
  ['tool_id', 'rule_id'],
);

/** What a scanner rule means. An unknown tool is 404; a rule the registry does not map is an empty list. */
function lookup({ query, services }: RouteContext<{ tool_id: string; rule_id: string }>) {
  const { registry } = services;
  if (!registry.tool(query.tool_id)) throw notFound('Security tool', query.tool_id);
  // Any spelling the registry recognises (Trivy KSV001, Security Hub per-standard ids, aliases): docs/registry.md.
  const matches = registry.resolveToolRule(query.tool_id, query.rule_id)?.mappings ?? [];
  return json(matches, { ...registryMeta(registry), total: matches.length });
}

const ToolsQuery = QuerySchema({
  category: StringEnum(TOOL_CATEGORIES),
  q: Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive text in name, vendor or description' }),
});

/** Security tools in the order of the registry's tools file; no pagination (spec 4.7). */
function listTools({ query, services }: RouteContext<{ category?: string; q?: string }>) {
  const tools = services.registry.tools(query);
  return json(tools, { ...registryMeta(services.registry), total: tools.length });
}

export const catalogRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/finding-templates',
    registryRead: true,
    tier: 'teams',
    tag: 'finding-templates',
    summary: 'List finding templates, filtered by signal, category, severity, status, domain and text',
    query: TemplatesQuery,
    response: FindingTemplateList,
    meta: CatalogPageMeta,
    handler: listTemplates,
  },
  {
    method: 'GET',
    path: '/v1/finding-templates/:id',
    registryRead: true,
    tier: 'teams',
    tag: 'finding-templates',
    summary: 'A finding template with its signal and the scanner rules mapped to it',
    response: FindingTemplateView,
    meta: VersionMeta,
    handler: getTemplate,
  },
  {
    method: 'GET',
    path: '/v1/tool-mappings',
    registryRead: true,
    tier: 'teams',
    tag: 'tool-mappings',
    summary: 'List scanner rule to finding template mappings, filtered by tool, template, confidence and text',
    query: ToolMappingsQuery,
    response: ToolMappingList,
    meta: CatalogPageMeta,
    handler: listToolMappings,
  },
  {
    method: 'GET',
    path: '/v1/tool-mappings/lookup',
    registryRead: true,
    tier: 'teams',
    tag: 'tool-mappings',
    summary: 'The finding templates a scanner rule maps to',
    query: LookupQuery,
    response: ToolRuleMatches,
    meta: CatalogTotalMeta,
    errors: ['not_found'],
    handler: lookup,
  },
  {
    method: 'GET',
    path: '/v1/security-tools',
    registryRead: true,
    tier: 'teams',
    tag: 'security-tools',
    summary: 'List the security tools with their mapping counts',
    query: ToolsQuery,
    response: SecurityToolList,
    meta: CatalogTotalMeta,
    handler: listTools,
  },
];
