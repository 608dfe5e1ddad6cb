import { notFound } from '../core/errors.js';
import { json, type Route, type RouteContext } from '../http/route.js';
import { DomainDetail, DomainList, TotalMeta } from '../schemas/api.js';

/** Domains in the registry's order: the 11 gap-analysis frameworks as listed in the spec, then GEN. */
function listDomains({ services }: RouteContext) {
  const domains = services.registry.domains();
  return json(domains, { total: domains.length });
}

function getDomain({ params, services }: RouteContext) {
  const domain = services.registry.domain(params.id);
  if (!domain) throw notFound('Domain', params.id);
  return json(domain);
}

export const domainRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/domains',
    registryRead: true,
    tier: 'community',
    tag: 'domains',
    summary: 'List the signal domains with signal counts and categories',
    response: DomainList,
    meta: TotalMeta,
    handler: listDomains,
  },
  {
    method: 'GET',
    path: '/v1/domains/:id',
    registryRead: true,
    tier: 'community',
    tag: 'domains',
    summary: 'A domain with its description and signal counts by category and severity (id in any case)',
    response: DomainDetail,
    handler: getDomain,
  },
];
