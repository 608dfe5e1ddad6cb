import { Type } from '@sinclair/typebox';
import { StringEnum } from '../schemas/string-enum.js';
import { RESULT_VARIANTS, resultInVariant, type DataMemberSpans, type ResultVariant } from '../gap/variant.js';
import type { CompressedFileReply, FileReply, RouteContext } from '../http/route.js';
import type { AnalysisRead } from '../store/analyses.js';

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
 * A stored analysis's bytes in the variant the request asks for, as a reply. Without a variant,
 * an analysis kept compressed is a CompressedFileReply: decompressed only for a client that does
 * not take br. Analyses stored before the byte spans of their members were kept have them found
 * by reading the payload, in a worker. A variant's bytes are new memory: once sent, they are kept
 * for a worker's next answer, rather than left for the HTTP thread's collector (which starts a
 * full GC for every 64 MB of such memory: src/pool.ts, AnswerBuffers).
 */
export async function storedAnswer(
  ctx: RouteContext,
  stored: AnalysisRead,
): Promise<Pick<FileReply, 'file' | 'afterSend'> | Pick<CompressedFileReply, 'brotli' | 'identityLength' | 'identity'>> {
  const variant = requestedVariant(ctx);
  if (!variant && stored.compressed) return { brotli: stored.compressed.brotli, identityLength: stored.compressed.length, identity: stored.answer };
  const payload = await stored.answer();
  if (!variant) return { file: payload };
  const spans = stored.entry.data_members ?? (await ctx.services.pool.run('dataMemberSpans', { payload }, undefined, ctx.closed));
  return answerInVariant(ctx, payload, spans, variant);
}

/** The variant's bytes cut from `payload`, given to the workers' answer memory once sent. */
export function answerInVariant(ctx: RouteContext, payload: Buffer, spans: DataMemberSpans, variant: ResultVariant): Pick<FileReply, 'file' | 'afterSend'> {
  const file = resultInVariant(payload, spans, variant);
  return { file, afterSend: () => ctx.services.pool.answerBuffers.give(file.buffer) };
}
