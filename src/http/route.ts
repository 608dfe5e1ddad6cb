import type { TSchema } from '@sinclair/typebox';
import type { Account } from '../store/types.js';
import type { Tier } from '../tiers.js';
import type { ErrorCode } from '../core/errors.js';
import type { Services } from '../services.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a handler sees: plain data, never the socket. */
export interface RouteContext<Query = any, Body = any> {
  requestId: string;
  params: Record<string, string>;
  query: Query;
  body: Body;
  /** The body bytes as received, for routes that hand them to a worker unparsed. */
  rawBody: Buffer | undefined;
  /** Request headers, names in lower case (e.g. idempotency-key). */
  headers: Record<string, string>;
  account: Account;
  services: Services;
  /** Aborts when the client goes away before its answer is written: work for it need not start. */
  readonly closed: AbortSignal;
}

export interface JsonReply {
  status?: number;
  headers?: Record<string, string>;
  json: unknown;
}

/** A file in memory: sent with Content-Length and backpressure. */
export interface FileReply {
  status?: number;
  headers: Record<string, string>;
  file: Buffer | string;
  /** Called once, when nothing reads `file` any more: the answer written, or the client gone. */
  afterSend?: () => void;
}

/**
 * A file kept compressed with brotli (an analysis as stored): sent as it is to a client that
 * chooses br, otherwise `identity()` gives the bytes (decompressing them only then) and they go
 * as a FileReply would.
 */
export interface CompressedFileReply {
  status?: number;
  headers: Record<string, string>;
  brotli: Buffer;
  /** The length of the bytes `brotli` holds. */
  identityLength: number;
  identity(): Promise<Buffer>;
  /** As FileReply's: called once, when nothing reads the bytes sent any more. */
  afterSend?: () => void;
}

/** A file produced piece by piece: sent with chunked encoding and backpressure. */
export interface StreamReply {
  status?: number;
  headers: Record<string, string>;
  stream: AsyncIterable<Buffer | string>;
}

export type Reply = JsonReply | FileReply | CompressedFileReply | StreamReply;

export interface Route {
  method: HttpMethod;
  /** Path under the server root, e.g. /v1/signals/:id. */
  path: string;
  /** Minimum tier, or null for the public probes (no auth, no rate limit). */
  tier: Tier | null;
  /** The code used when the tier is too low (GAP_TIER_REQUIRED on gap-analysis routes). */
  tierError?: Extract<ErrorCode, 'tier_required' | 'GAP_TIER_REQUIRED'>;
  summary: string;
  tag: string;
  query?: TSchema;
  body?: TSchema;
  /** Give the handler the raw bytes and skip JSON parsing and schema checks (a worker does them). */
  rawBody?: boolean;
  /**
   * Media types the body may be sent as (Content-Type, parameters ignored); `application/json`
   * stands for the JSON family (application/*+json too). Default: JSON only. Routes taking files
   * as written by other tools (scanner import) list more.
   */
  accepts?: readonly string[];
  /** Which configured body limit applies. */
  bodyLimit?: 'default' | 'analysis';
  /**
   * The work may go to the worker pool when the body is over `bodiesOver` bytes (or of unknown
   * length): such a body is read only once the request has a turn at the pool, and while the
   * turns' queue is full the request is refused with 503 service_busy before its body is read,
   * so a flood of large bodies can hold neither the HTTP thread nor the memory (src/pool.ts).
   */
  pooled?: { bodiesOver: number };
  /**
   * The answer depends only on the path, the query text and the compiled registry: it is kept as
   * bytes, carries an ETag and Cache-Control, and a matching If-None-Match gets 304.
   */
  registryRead?: boolean;
  /**
   * With registryRead: true for accounts whose answer also shows what they own (an Enterprise
   * account's custom frameworks). Theirs is answered afresh each time: neither taken from nor
   * kept in the registry answers' cache, and without the registry's ETag.
   */
  accountOwned?(account: Account): boolean;
  /** The route accepts an Idempotency-Key header (src/api/idempotency.ts), for the OpenAPI document. */
  idempotent?: boolean;
  /** Response data schema, for the OpenAPI document. */
  response?: TSchema;
  /** Schema of the envelope's `meta`, for the OpenAPI document. */
  meta?: TSchema;
  /** The JSON body is `response` itself, not {data, meta} (default: bare for the public probes only). */
  bare?: boolean;
  /** Response headers particular to this route (beyond X-Request-Id and the rate-limit ones), for the OpenAPI document. */
  headers?: Array<'X-Analysis-Expires-At' | 'Server-Timing'>;
  /** Statuses besides 200 that carry the same body (status → description), for the OpenAPI document. */
  otherSuccessStatuses?: Record<number, string>;
  /** Response media types other than JSON, for the OpenAPI document. */
  produces?: string[];
  /** false for what is not an API operation (the /docs page and its assets): left out of the OpenAPI document. */
  documented?: boolean;
  /** Error codes this route can answer with beyond the shared ones, for the OpenAPI document. */
  errors?: ErrorCode[];
  handler(ctx: RouteContext): Reply | Promise<Reply>;
}

export function json(data: unknown, meta?: Record<string, unknown>): JsonReply {
  return { json: meta === undefined ? { data } : { data, meta } };
}
