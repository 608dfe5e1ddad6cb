import { Type } from '@sinclair/typebox';
import { json, type Route, type RouteContext } from '../http/route.js';
import { BulkMappingsBody, BulkMappingsResult, MappingList, MappingsMeta } from '../schemas/api.js';
import { pageParams, pageWindow, QuerySchema, resolveFramework, type PageQuery } from './query.js';

const MappingsQuery = QuerySchema({
  framework: Type.String({ minLength: 1, description: 'Framework code (gap-analysis or listing spelling, any case)' }),
  signal_id: Type.String({ minLength: 1 }),
  control_id: Type.String({ minLength: 1 }),
  min_confidence: Type.Number({ minimum: 0, maximum: 1, default: 0 }),
  ...pageParams(50, 100),
});

interface MappingsQuery extends PageQuery {
  framework?: string;
  signal_id?: string;
  control_id?: string;
  min_confidence: number;
}

/** Mapping records in mapping-id order; the read model fetches only the records of the page. */
function listMappings({ query, services }: RouteContext<MappingsQuery>) {
  const { registry } = services;
  const framework = query.framework === undefined ? undefined : resolveFramework(registry, 'framework', query.framework);
  const page = registry.mappings(
    { framework, signal_id: query.signal_id, control_id: query.control_id, min_confidence: query.min_confidence },
    pageWindow(query),
  );
  const filters: Record<string, unknown> = { framework: framework ?? null, min_confidence: query.min_confidence };
  if (query.signal_id !== undefined) filters.signal_id = query.signal_id;
  if (query.control_id !== undefined) filters.control_id = query.control_id;
  return json(page.items, { total: page.total, page: query.page, per_page: query.per_page, filters_applied: filters });
}

function bulkMappings({ body, services }: RouteContext<unknown, BulkMappingsBody>) {
  const { registry } = services;
  const framework = body.framework === undefined ? undefined : resolveFramework(registry, 'framework', body.framework);
  const min = body.min_confidence ?? 0;
  let totalMappings = 0;
  const results = body.signal_ids.map((signalId) => {
    if (!registry.signal(signalId)) return { signal_id: signalId, status: 'not_found' as const, mappings: [] };
    const mappings = registry
      .mappingsOfSignal(signalId, framework)
      .filter((m) => m.confidence >= min)
      .map((m) => ({ framework: m.framework, control_id: m.control_id, control_name: m.control_title, confidence: m.confidence }));
    totalMappings += mappings.length;
    return { signal_id: signalId, status: 'found' as const, mappings };
  });
  return json({ results, summary: { total_signals: body.signal_ids.length, total_mappings: totalMappings } });
}

export const mappingRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/mappings',
    registryRead: true,
    tier: 'community',
    tag: 'mappings',
    summary: 'List signal-to-control mapping records, filtered by framework, signal, control and minimum confidence',
    query: MappingsQuery,
    response: MappingList,
    meta: MappingsMeta,
    handler: listMappings,
  },
  {
    method: 'POST',
    path: '/v1/mappings/bulk',
    tier: 'community',
    tag: 'mappings',
    summary: 'Mappings of up to 100 signals; unknown signal ids come back as not_found entries',
    body: BulkMappingsBody,
    response: BulkMappingsResult,
    handler: bulkMappings,
  },
];
