import type { HttpMethod, Route } from './route.js';

interface CompiledRoute {
  route: Route;
  segments: string[];
  /** Static segments sort before parameters, so /gap-analysis/summary wins over /gap-analysis/:id. */
  rank: string;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] }
  | { kind: 'not_found' };

export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    const seen = new Set<string>();
    this.compiled = routes.map((route) => {
      const key = `${route.method} ${route.path}`;
      if (seen.has(key)) throw new Error(`Duplicate route ${key}`);
      seen.add(key);
      const segments = route.path.split('/').filter(Boolean);
      return { route, segments, rank: segments.map((s) => (s.startsWith(':') ? '1' : '0')).join('') };
    });
    this.compiled.sort((a, b) => a.rank.localeCompare(b.rank));
  }

  get routes(): Route[] {
    return this.compiled.map((c) => c.route);
  }

  match(method: string, path: string): RouteMatch {
    // HEAD is answered wherever GET is (the adapter sends the headers only).
    const wanted = method === 'HEAD' ? 'GET' : method;
    const parts = path.split('/').filter(Boolean);
    const allowed: HttpMethod[] = [];
    let found: { route: Route; params: Record<string, string> } | undefined;
    let foundRank: string | undefined;
    for (const candidate of this.compiled) {
      if (candidate.segments.length !== parts.length) continue;
      if (foundRank !== undefined && candidate.rank !== foundRank) break;
      const params = matchSegments(candidate.segments, parts);
      if (!params) continue;
      if (candidate.route.method === wanted) {
        found = { route: candidate.route, params };
        break;
      }
      if (!allowed.includes(candidate.route.method)) allowed.push(candidate.route.method);
      foundRank ??= candidate.rank;
    }
    if (found) return { kind: 'found', ...found };
    if (allowed.includes('GET')) allowed.splice(allowed.indexOf('GET') + 1, 0, 'HEAD');
    if (allowed.length) return { kind: 'method_not_allowed', allowed };
    return { kind: 'not_found' };
  }
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(parts[i]);
      } catch {
        return undefined;
      }
      params[segment.slice(1)] = value;
    } else if (segment !== parts[i]) {
      return undefined;
    }
  }
  return params;
}
