/**
 * Posture history of a scope (Teams and up, docs/posture.md): the analyses filed under it, oldest
 * first, with each framework's score, status and coverage and its trend. Reads the small posture
 * records only, never the analyses' results.
 */
import { invalidParameter } from '../core/errors.js';
import { json, type Route, type RouteContext } from '../http/route.js';
import { ownFrameworks } from '../custom-frameworks/account.js';
import { postureHistory } from '../posture/history.js';
import { HISTORY_MAX_ANALYSES, HistoryQuery, PostureHistoryData, PostureHistoryMeta } from '../schemas/posture.js';

interface Query {
  scope: string;
  framework?: string;
  from?: string;
  to?: string;
  limit?: number;
}

/** A registry framework in any accepted spelling, or one of the account's own. */
export async function analysedFrameworkCode(ctx: RouteContext, parameter: string, value: string): Promise<string> {
  const { services, account } = ctx;
  const builtIn = services.registry.resolveFrameworkCode(value);
  if (builtIn && services.registry.gapFrameworkCodes().includes(builtIn)) return builtIn;
  const own = (await ownFrameworks(services.customFrameworks, account)).map((f) => f.code);
  const code = own.find((candidate) => candidate === value.toUpperCase());
  if (code) return code;
  throw invalidParameter(parameter, value, {
    valid_values: [...services.registry.gapFrameworkCodes(), ...own],
    reason: 'is not a gap-analysis framework code',
  });
}

async function history(ctx: RouteContext<Query>) {
  const { services, account, query } = ctx;
  const framework = query.framework === undefined ? undefined : await analysedFrameworkCode(ctx, 'framework', query.framework);
  if (query.from !== undefined && query.to !== undefined && Date.parse(query.from) > Date.parse(query.to))
    throw invalidParameter('to', query.to, { reason: 'is before from' });
  const limit = query.limit ?? HISTORY_MAX_ANALYSES;
  const { total, items } = await services.posture.history(account.name, query.scope, { framework, from: query.from, to: query.to, limit }, services.now());
  const view = postureHistory(items, framework);
  return json({ scope: query.scope, framework: framework ?? null, ...view }, { total, returned: items.length, truncated: total > items.length, limit });
}

export const postureRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/posture/history',
    tier: 'teams',
    tierError: 'GAP_TIER_REQUIRED',
    tag: 'posture',
    summary: "A scope's analyses in time order with each framework's score, status and coverage, and the trend",
    query: HistoryQuery,
    response: PostureHistoryData,
    meta: PostureHistoryMeta,
    handler: history,
  },
];
