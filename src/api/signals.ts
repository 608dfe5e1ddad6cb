import { Type } from '@sinclair/typebox';
import { notFound } from '../core/errors.js';
import type { Registry } from '../registry/registry.js';
import { json, type Route, type RouteContext } from '../http/route.js';
import { DOMAIN_CODES, SIGNAL_CATEGORIES } from '../schemas/registry-source.js';
import { SEVERITIES } from '../core/vocabulary.js';
import { BulkSignalsBody, BulkSignalsResult, PagesMeta, SignalDetail, SignalList, SignalMappings } from '../schemas/api.js';
import { pageMeta, pageParams, pageWindow, QuerySchema, resolveFramework, type PageQuery } from './query.js';
import { StringEnum } from '../schemas/string-enum.js';

const SignalsQuery = QuerySchema({
  domain: StringEnum(DOMAIN_CODES, { description: 'Domain code' }),
  category: StringEnum(SIGNAL_CATEGORIES, { description: 'Signal category' }),
  severity: StringEnum(SEVERITIES),
  tag: Type.Array(Type.String({ minLength: 1 }), { maxItems: 20, description: 'Repeatable; a signal must carry every tag given' }),
  ...pageParams(20, 100),
});

interface SignalsQuery extends PageQuery {
  domain?: string;
  category?: string;
  severity?: string;
  tag?: string[];
}

/** Signals in id order; the id lists per filter value are precomputed, a page reads only its own records. */
function listSignals({ query, services }: RouteContext<SignalsQuery>) {
  const { registry } = services;
  const ids = registry.signalIds({ domain: query.domain, category: query.category, severity: query.severity, tags: query.tag });
  const { offset, limit } = pageWindow(query);
  const data = ids.slice(offset, offset + limit).map((id) => registry.signalItem(id)!);
  return json(data, pageMeta(ids.length, query, true));
}

/** A signal id as written, or in upper case when only that is known: ids are upper case, clients type them in any. */
function knownSignalId(registry: Registry, id: string): string | undefined {
  if (registry.signal(id)) return id;
  const upper = id.toUpperCase();
  return upper !== id && registry.signal(upper) ? upper : undefined;
}

function getSignal({ params, services }: RouteContext) {
  const id = knownSignalId(services.registry, params.id);
  if (!id) throw notFound('Signal', params.id);
  return json(services.registry.signal(id));
}

const SignalMappingsQuery = QuerySchema({
  framework: Type.String({ minLength: 1, description: 'Framework code (gap-analysis or listing spelling, any case)' }),
});

function signalMappings({ params, query, services }: RouteContext<{ framework?: string }>) {
  const { registry } = services;
  const framework = query.framework === undefined ? undefined : resolveFramework(registry, 'framework', query.framework);
  const id = knownSignalId(registry, params.id);
  if (!id) throw notFound('Signal', params.id);
  return json({ signal_id: id, mappings: registry.mappingsOfSignal(id, framework) });
}

function bulkSignals({ body, services }: RouteContext<unknown, BulkSignalsBody>) {
  let found = 0;
  const results = body.ids.map((id) => {
    const known = knownSignalId(services.registry, id);
    const signal = known && services.registry.signal(known);
    if (!signal) return { id, status: 'not_found' as const };
    found++;
    return { id, status: 'found' as const, signal: { id: signal.id, canonical_name: signal.title, severity: signal.severity, domain: signal.domain } };
  });
  return json({ results, summary: { total: body.ids.length, found, not_found: body.ids.length - found } });
}

export const signalRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/signals',
    registryRead: true,
    tier: 'community',
    tag: 'signals',
    summary: 'List signals (list fields), filtered by domain, category, severity and tags, in id order',
    query: SignalsQuery,
    response: SignalList,
    meta: PagesMeta,
    handler: listSignals,
  },
  {
    method: 'POST',
    path: '/v1/signals/bulk',
    tier: 'community',
    tag: 'signals',
    summary: 'Look up to 100 signals by id; unknown ids come back as not_found entries',
    body: BulkSignalsBody,
    response: BulkSignalsResult,
    handler: bulkSignals,
  },
  {
    method: 'GET',
    path: '/v1/signals/:id',
    registryRead: true,
    tier: 'community',
    tag: 'signals',
    summary: 'A signal with detection, remediation hint, effort and dates',
    response: SignalDetail,
    handler: getSignal,
  },
  {
    method: 'GET',
    path: '/v1/signals/:id/mappings',
    registryRead: true,
    tier: 'community',
    tag: 'signals',
    summary: "A signal's control mappings (authored and derived), optionally of one framework",
    query: SignalMappingsQuery,
    response: SignalMappings,
    handler: signalMappings,
  },
];
