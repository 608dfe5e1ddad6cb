/**
 * Pieces shared by the registry read endpoints: query-schema building blocks, page arithmetic,
 * framework-code resolution and the registry meta fields (spec table 2.1).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { invalidParameter } from '../core/errors.js';
import type { Registry } from '../registry/registry.js';

/** page (default 1) and per_page (default and maximum per endpoint, spec 8.3). */
export function pageParams(defaultPerPage: number, maxPerPage: number) {
  return {
    page: Type.Integer({ minimum: 1, default: 1, description: 'Page number, from 1' }),
    per_page: Type.Integer({ minimum: 1, maximum: maxPerPage, default: defaultPerPage, description: `Items per page (at most ${maxPerPage})` }),
  };
}

/** limit/offset of the crosswalk endpoints. */
export function windowParams(defaultLimit: number, maxLimit: number) {
  return {
    limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit, description: `Items to return (at most ${maxLimit})` }),
    offset: Type.Integer({ minimum: 0, default: 0, description: 'Items to skip' }),
  };
}

/**
 * A route's query schema. Every property is optional on the wire (defaults fill page, per_page and
 * friends); `required` names the ones a caller must send.
 */
export function QuerySchema(properties: Record<string, TSchema>, required: readonly string[] = []) {
  const optional = Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, required.includes(name) ? schema : Type.Optional(schema)]));
  return Type.Object(optional);
}

export interface PageQuery {
  page: number;
  per_page: number;
}

export interface PageWindow {
  offset: number;
  limit: number;
}

export function pageWindow(query: PageQuery): PageWindow {
  return { offset: (query.page - 1) * query.per_page, limit: query.per_page };
}

/** meta of a page-numbered list; total_pages only where the spec lists it. */
export function pageMeta(total: number, query: PageQuery, withTotalPages = false): Record<string, number> {
  const meta: Record<string, number> = { total, page: query.page, per_page: query.per_page };
  if (withTotalPages) meta.total_pages = Math.ceil(total / query.per_page);
  return meta;
}

export function windowMeta(total: number, window: PageWindow): { total: number; limit: number; offset: number; has_more: boolean } {
  return { total, limit: window.limit, offset: window.offset, has_more: window.offset + window.limit < total };
}

/**
 * The canonical code for a framework parameter in any accepted spelling (gap-analysis code or
 * listing code, any case), or 400 invalid_parameter listing the codes accepted there.
 */
export function resolveFramework(registry: Registry, parameter: string, value: string, allowed: readonly string[] = frameworkCodes(registry)): string {
  const code = registry.resolveFrameworkCode(value);
  if (code === undefined || !allowed.includes(code)) {
    const reason = code === undefined ? 'is not a known framework code' : `${code} is not one of the frameworks accepted here`;
    throw invalidParameter(parameter, value, { valid_values: allowed, reason });
  }
  return code;
}

/** Canonical codes of every framework in the registry, in listing order. */
export function frameworkCodes(registry: Registry): string[] {
  return registry.frameworks().map((f) => f.code);
}

/** meta.version and meta.generated_at: the registry release and the time this index was built. */
export function registryMeta(registry: Registry): { version: string; generated_at: string } {
  return { version: registry.manifest.registry_version, generated_at: registry.manifest.built_at };
}
