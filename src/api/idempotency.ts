import { createHash } from 'node:crypto';
import { ApiError, invalidParameter } from '../core/errors.js';
import type { CompressedFileReply, FileReply, RouteContext } from '../http/route.js';
import type { IdempotencyRecord } from '../store/types.js';
import { readAnalysis } from '../store/analyses.js';
import { storedAnswer } from './result-variant.js';

/**
 * Idempotency-Key on the POSTs that store, as Stripe does: the first request with a key stores
 * its result and the key together (one transaction); a retry with the same key and the same body
 * within the window gets that result again, byte for byte, with `Idempotent-Replayed: true`; the
 * same key with another body, other parameters or on another operation is 422
 * idempotency_key_reused. Keys are per account. docs/api.md.
 */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
export const IDEMPOTENCY_WINDOW_MS = IDEMPOTENCY_WINDOW_HOURS * 3_600_000;
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Visible ASCII, 1–255 characters: room for a UUID or a client's own scheme, nothing that needs escaping. */
const KEY_SYNTAX = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentRequest {
  key: string;
  operation: string;
  fingerprint: string;
}

/**
 * What a stored request is: the operation's name, and for an operation whose query shapes what is
 * stored (the import's format, frameworks and options), those parameters as parsed.
 */
export interface IdempotentOperation {
  name: string;
  parameters?: Record<string, unknown>;
}

/**
 * The request's key, operation and fingerprint, or undefined without the header. The fingerprint
 * covers the operation, its parameters (keys sorted, so their order in the query does not count)
 * and the body bytes.
 */
export function idempotentRequest(ctx: RouteContext, operation: string, parameters?: Record<string, unknown>): IdempotentRequest | undefined {
  const key = ctx.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (!KEY_SYNTAX.test(key)) {
    throw invalidParameter('Idempotency-Key', key.slice(0, 300), { reason: 'must be 1 to 255 visible ASCII characters' });
  }
  const hash = createHash('sha256').update(operation).update('\n');
  if (parameters) hash.update(JSON.stringify(parameters, Object.keys(parameters).sort())).update('\n');
  const fingerprint = hash.update(ctx.rawBody ?? new Uint8Array()).digest('hex');
  return { key, operation, fingerprint };
}

/** The record to store with the result. */
export function idempotencyRecord(request: IdempotentRequest, account: string, analysisId: string, status: number, now: Date): IdempotencyRecord {
  return {
    account,
    key: request.key,
    operation: request.operation,
    fingerprint: request.fingerprint,
    analysis_id: analysisId,
    status,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS).toISOString(),
  };
}

/** A retry answers what the first request answered; a different request under the key is refused. */
export async function replay(ctx: RouteContext, request: IdempotentRequest, record: IdempotencyRecord): Promise<FileReply | CompressedFileReply> {
  if (record.fingerprint !== request.fingerprint) {
    throw new ApiError('idempotency_key_reused', { key: request.key, window_hours: IDEMPOTENCY_WINDOW_HOURS, operation: record.operation });
  }
  const stored = await readAnalysis(ctx.services.analyses, record.analysis_id, ctx.account.name, ctx.services.now());
  return {
    status: record.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Analysis-Expires-At': stored.entry.expires_at, [REPLAYED_HEADER]: 'true' },
    ...(await storedAnswer(ctx, stored)),
  };
}
