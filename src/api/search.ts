import { Type } from '@sinclair/typebox';
import { json, type Route, type RouteContext } from '../http/route.js';
import { DOMAIN_CODES } from '../schemas/registry-source.js';
import { RegistryStats, SearchHits, SearchMeta } from '../schemas/api.js';
import { pageParams, pageWindow, QuerySchema, type PageQuery } from './query.js';
import { StringEnum } from '../schemas/string-enum.js';

const SearchQuery = QuerySchema(
  {
    q: Type.String({ minLength: 1, maxLength: 200, description: 'Words to find in signal ids, titles, descriptions and tags' }),
    domain: StringEnum(DOMAIN_CODES, { description: 'Domain code' }),
    ...pageParams(20, 100),
  },
  ['q'],
);

interface SearchQuery extends PageQuery {
  q: string;
  domain?: string;
}

/**
 * Ranked full-text search over the MiniSearch index the compiler built: best hit first, each with
 * its score relative to the best hit (1 down to 0); ties keep the index's order.
 */
function search({ query, services }: RouteContext<SearchQuery>) {
  const { registry } = services;
  const hits = registry.search(query.q, { domain: query.domain });
  const { offset, limit } = pageWindow(query);
  const data = hits.slice(offset, offset + limit).map((hit) => {
    const signal = registry.signalItem(hit.id)!;
    return { id: signal.id, domain: signal.domain, title: signal.title, severity: signal.severity, score: hit.score };
  });
  return json(data, { total: hits.length, query: query.q, page: query.page, per_page: query.per_page });
}

function stats({ services }: RouteContext) {
  return json(services.registry.stats());
}

export const searchRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/search',
    registryRead: true,
    tier: 'community',
    tag: 'search',
    summary: 'Full-text search over signal titles, descriptions and tags, ranked, with a score in 0..1',
    query: SearchQuery,
    response: SearchHits,
    meta: SearchMeta,
    handler: search,
  },
  {
    method: 'GET',
    path: '/v1/stats',
    registryRead: true,
    tier: 'community',
    tag: 'search',
    summary: 'Registry statistics: versions, totals, signals by domain and by severity',
    response: RegistryStats,
    handler: stats,
  },
];
