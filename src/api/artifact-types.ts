import { Type } from '@sinclair/typebox';
import { notFound } from '../core/errors.js';
import { json, type Route, type RouteContext } from '../http/route.js';
import type { ArtifactTypeFilter, Registry } from '../registry/registry.js';
import { ARTIFACT_CATEGORIES, PROVIDERS } from '../schemas/registry-source.js';
import { ArtifactType, ArtifactTypeList, ArtifactTypeMeta, ArtifactTypePageMeta, ResolveBody, ResolveMeta, ResolveResult } from '../schemas/api.js';
import { pageParams, pageWindow, QuerySchema, registryMeta, type PageQuery } from './query.js';
import { StringEnum } from '../schemas/string-enum.js';

const ArtifactTypesQuery = QuerySchema({
  category: StringEnum(ARTIFACT_CATEGORIES),
  subcategory: Type.String({ minLength: 1, description: 'e.g. compute, storage, iam' }),
  provider: StringEnum(PROVIDERS, { description: 'Types with a resource mapping for this provider' }),
  q: Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive text in id, name or description' }),
  ...pageParams(50, 100),
});

type ArtifactTypesQuery = PageQuery & ArtifactTypeFilter;

function artifactMeta(registry: Registry) {
  return { ...registryMeta(registry), ocsf_version: registry.manifest.ocsf_version };
}

/** Artifact types in id order. */
function listArtifactTypes({ query, services }: RouteContext<ArtifactTypesQuery>) {
  const { registry } = services;
  const page = registry.artifactTypes(query, pageWindow(query));
  return json(page.items, { ...artifactMeta(registry), total: page.total, page: query.page, per_page: query.per_page });
}

function getArtifactType({ params, services }: RouteContext) {
  const type = services.registry.artifactType(params.id);
  if (!type) throw notFound('Artifact type', params.id);
  return json(type, artifactMeta(services.registry));
}

/** Each resource in request order; an unknown provider or resource type is matched: false with artifact_type null. */
function resolve({ body, services }: RouteContext<unknown, ResolveBody>) {
  const { registry } = services;
  let matched = 0;
  const data = body.resources.map(({ provider, resource_type }) => {
    const artifactType = registry.resolveArtifactType(provider, resource_type) ?? null;
    if (artifactType) matched++;
    return { provider, resource_type, artifact_type: artifactType, matched: artifactType !== null };
  });
  return json(data, { ...registryMeta(registry), total_requested: body.resources.length, total_matched: matched });
}

export const artifactTypeRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/artifact-types',
    registryRead: true,
    tier: 'teams',
    tag: 'artifact-types',
    summary: 'List OCSF-aligned artifact types, filtered by category, subcategory, provider and text',
    query: ArtifactTypesQuery,
    response: ArtifactTypeList,
    meta: ArtifactTypePageMeta,
    handler: listArtifactTypes,
  },
  {
    method: 'POST',
    path: '/v1/artifact-types/resolve',
    tier: 'teams',
    tag: 'artifact-types',
    summary: 'Resolve up to 100 provider resource types to artifact types',
    body: ResolveBody,
    response: ResolveResult,
    meta: ResolveMeta,
    handler: resolve,
  },
  {
    method: 'GET',
    path: '/v1/artifact-types/:id',
    registryRead: true,
    tier: 'teams',
    tag: 'artifact-types',
    summary: 'An artifact type by its dotted id',
    response: ArtifactType,
    meta: ArtifactTypeMeta,
    handler: getArtifactType,
  },
];
