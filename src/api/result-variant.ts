import { Type } from '@sinclair/typebox';
import { StringEnum } from '../schemas/string-enum.js';
import { RESULT_VARIANTS, resultInVariant, type ResultVariant } from '../gap/variant.js';
import type { RouteContext } from '../http/route.js';
import type { StoredAnalysis } from '../store/types.js';

/**
 * `?variant=a|b` on the routes that answer with an analysis result: one of the spec's two shapes
 * alone, a third (A) or two-thirds (B) of the bytes. Without it the answer carries both
 * (docs/api.md). What is stored is always both, so a later GET may ask for either.
 */
export const VariantQuery = {
  variant: Type.Optional(
    StringEnum(RESULT_VARIANTS, {
      description:
        'Answer with one spec variant alone: a (analysis_id, summary, frameworks, cross_framework_insights) or b (id, posture, by_framework, cross_framework, resources); created_at, status, frameworks_requested, options and meta are in both. Without it, both side by side.',
    }),
  ),
};

export function requestedVariant(ctx: RouteContext): ResultVariant | undefined {
  return (ctx.query as { variant?: ResultVariant } | undefined)?.variant;
}

/**
 * A stored analysis's bytes in the variant the request asks for. Analyses stored before the
 * byte spans of their members were kept have them found by reading the payload, in a worker.
 */
export async function storedInVariant(ctx: RouteContext, stored: StoredAnalysis): Promise<Buffer> {
  const variant = requestedVariant(ctx);
  if (!variant) return stored.payload;
  const spans = stored.entry.data_members ?? (await ctx.services.pool.run('dataMemberSpans', { payload: stored.payload }));
  return resultInVariant(stored.payload, spans, variant);
}
