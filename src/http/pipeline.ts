import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { ADDRESS_LIMITER_CAPACITY, ADDRESS_RATE_LIMITS, RATE_LIMITS, tierAtLeast } from '../tiers.js';
import type { Account } from '../store/types.js';
import type { Services } from '../services.js';
import { ApiError, busyError } from '../core/errors.js';
import { MemoryRateLimiter } from '../limits/memory.js';
import { rateLimitedError, type RateDecision, type RateLimiter } from '../limits/types.js';
import { Router } from './router.js';
import type { Reply, Route, RouteContext } from './route.js';
import { compileBody, compileQuery } from '../core/validation.js';
import { parseJsonBody } from '../core/json-body.js';
import { matchesEtag, RegistryAnswerCache } from './registry-cache.js';

/** A request as the adapter copied it from the socket. */
export interface IncomingRequest {
  method: string;
  url: string;
  query: string;
  headers: Record<string, string>;
  remoteAddress: string;
}

/** What the adapter writes back: a JSON or file body, or a stream. */
export interface OutgoingResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string | AsyncIterable<Buffer | string>;
}

/**
 * The synchronous verdict on a request before any body byte is read: answer now, or read a body
 * of at most `limit` bytes and then run, or run straight away.
 */
export type Admission =
  | { kind: 'respond'; response: OutgoingResponse }
  /**
   * The verdict needs one asynchronous step first (the shared rate limiter's round trip to Redis):
   * the adapter holds the body back until it settles. With the in-memory limiter this never occurs.
   */
  | { kind: 'defer'; admission: Promise<Exclude<Admission, { kind: 'defer' }>> }
  | { kind: 'read_body'; limit: number; tooLarge(): OutgoingResponse; run(body: Buffer): Promise<OutgoingResponse> }
  | { kind: 'run'; run(): Promise<OutgoingResponse> };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Registry answers change only with a new registry build: clients may keep them an hour, then revalidate. */
const REGISTRY_CACHE_CONTROL = 'private, max-age=3600';
const JSON_TYPE = 'application/json; charset=utf-8';

interface PreparedRoute {
  route: Route;
  parseQuery?: (search: URLSearchParams) => Record<string, unknown>;
  checkBody?: (body: unknown) => unknown;
}

export class Pipeline {
  private readonly router: Router;
  private readonly prepared = new Map<Route, PreparedRoute>();
  private readonly limiter: RateLimiter;
  private readonly addressLimiter: RateLimiter;
  private readonly answers: RegistryAnswerCache;
  private readonly log: Logger;
  shuttingDown = false;

  /** Without `limiters`, both count in this process's memory (one node). */
  constructor(routes: readonly Route[], private readonly services: Services, limiters?: { accounts: RateLimiter; addresses: RateLimiter }) {
    this.router = new Router(routes);
    this.limiter = limiters?.accounts ?? new MemoryRateLimiter(() => services.now().getTime());
    this.addressLimiter = limiters?.addresses ?? new MemoryRateLimiter(() => services.now().getTime(), ADDRESS_LIMITER_CAPACITY);
    this.answers = new RegistryAnswerCache(services.registry.manifest.content_hash, services.config.registryCacheBytes);
    this.log = services.log;
    for (const route of routes) {
      this.prepared.set(route, {
        route,
        parseQuery: route.query ? compileQuery(route.query) : undefined,
        checkBody: route.body && !route.rawBody ? compileBody(route.body) : undefined,
      });
    }
  }

  get routes(): Route[] {
    return this.router.routes;
  }

  pruneRateWindows(): void {
    this.limiter.prune();
    this.addressLimiter.prune();
  }

  async closeLimiters(): Promise<void> {
    await Promise.all([this.limiter.close(), this.addressLimiter.close()]);
  }

  admit(request: IncomingRequest): Admission {
    const incomingId = request.headers['x-request-id'];
    const requestId = incomingId && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const baseHeaders: Record<string, string> = { 'X-Request-Id': requestId };
    const refuse = (error: ApiError, extra: Record<string, string> = {}): Admission => ({
      kind: 'respond',
      response: errorResponse(error, { ...baseHeaders, ...extra, ...error.headers }),
    });

    const match = this.router.match(request.method, request.url);
    if (match.kind === 'found' && match.route.tier === null) {
      const prepared = this.prepared.get(match.route)!;
      return { kind: 'run', run: () => this.execute(prepared, match.params, request, undefined, baseHeaders, requestId) };
    }
    if (this.shuttingDown) return refuse(new ApiError('shutting_down'), { Connection: 'close' });

    // Every request counts against its caller's limit, whatever the answer (as GitHub and Stripe
    // count): the account's with a valid key, the address's without one (docs/limits.md).
    const account = this.authenticate(request.headers.authorization);
    const decision = account
      ? this.limiter.consume(`account:${account.name}`, RATE_LIMITS[account.tier])
      : this.addressLimiter.consume(request.remoteAddress, ADDRESS_RATE_LIMITS);
    if (decision instanceof Promise) {
      return { kind: 'defer', admission: decision.then((settled) => this.afterLimit(request, match, account, settled, baseHeaders, requestId)) };
    }
    return this.afterLimit(request, match, account, decision, baseHeaders, requestId);
  }

  /** The rest of admission once the request has been counted. */
  private afterLimit(
    request: IncomingRequest,
    match: ReturnType<Router['match']>,
    account: Account | undefined,
    decision: RateDecision,
    baseHeaders: Record<string, string>,
    requestId: string,
  ): Exclude<Admission, { kind: 'defer' }> {
    const refuse = (error: ApiError, extra: Record<string, string> = {}) => ({
      kind: 'respond' as const,
      response: errorResponse(error, { ...baseHeaders, ...extra, ...error.headers }),
    });
    if (!decision.allowed) return refuse(rateLimitedError(decision));
    if (match.kind === 'not_found') return refuse(new ApiError('not_found', { resource: 'Path', id: request.url }), decision.headers);
    if (match.kind === 'method_not_allowed') {
      return refuse(new ApiError('method_not_allowed', { method: request.method, path: request.url, allowed: match.allowed }), { ...decision.headers, Allow: match.allowed.join(', ') });
    }
    if (!account) return refuse(new ApiError('unauthorized'), decision.headers);
    const { route, params } = match;
    const prepared = this.prepared.get(route)!;
    if (!tierAtLeast(account.tier, route.tier!)) {
      const code = route.tierError ?? 'tier_required';
      return refuse(new ApiError(code, { required_tier: route.tier, current_tier: account.tier }), decision.headers);
    }
    if (route.pooled && this.services.pool.isFull) return refuse(busyError(this.services.config.queueLimit), decision.headers);
    const headers = { ...baseHeaders, ...decision.headers };

    let answerKey: string | undefined;
    if (route.registryRead) {
      answerKey = `${request.url}?${request.query}`;
      const etag = this.answers.etagOf(answerKey);
      Object.assign(headers, { ETag: etag, 'Cache-Control': REGISTRY_CACHE_CONTROL });
      if (matchesEtag(request.headers['if-none-match'], etag)) return { kind: 'respond', response: { status: 304, headers, body: '' } };
      const cached = this.answers.get(answerKey);
      // The same path and query text answered before, so its query was valid: no need to parse it again.
      if (cached) return { kind: 'respond', response: { status: 200, headers: { ...headers, 'Content-Type': JSON_TYPE }, body: cached } };
    }

    let query: Record<string, unknown> = {};
    try {
      if (prepared.parseQuery) query = prepared.parseQuery(new URLSearchParams(request.query));
    } catch (error) {
      return { kind: 'respond', response: this.failure(error, headers, requestId) };
    }

    if (answerKey !== undefined) {
      const key = answerKey;
      return { kind: 'run', run: () => this.execute(prepared, params, request, undefined, headers, requestId, account, query).then((response) => this.keep(key, response)) };
    }
    if (!route.body && !route.rawBody) {
      return { kind: 'run', run: () => this.execute(prepared, params, request, undefined, headers, requestId, account, query) };
    }
    const contentType = request.headers['content-type'];
    if (contentType && !acceptsMediaType(route.accepts, contentType)) {
      const accepted = route.accepts ?? [JSON_MEDIA_TYPE];
      const message = route.accepts ? `Request body must be one of: ${accepted.join(', ')}` : undefined;
      return refuse(new ApiError('unsupported_media_type', { content_type: contentType, accepted: [...accepted] }, { message }), headers);
    }
    const limit = route.bodyLimit === 'analysis' ? this.services.config.analysisBodyLimitBytes : this.services.config.bodyLimitBytes;
    const tooLarge = () => errorResponse(new ApiError('payload_too_large', { limit }), { ...headers, Connection: 'close' });
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return { kind: 'respond', response: tooLarge() };
    return {
      kind: 'read_body',
      limit,
      tooLarge,
      run: (body) => this.execute(prepared, params, request, body, headers, requestId, account, query),
    };
  }

  /** Keeps a registry read's 200 answer as bytes; errors are not kept and carry no validators. */
  private keep(key: string, response: OutgoingResponse): OutgoingResponse {
    if (response.status !== 200 || typeof response.body !== 'string') {
      const { ETag: _etag, 'Cache-Control': _cacheControl, ...headers } = response.headers;
      return { ...response, headers };
    }
    const body = Buffer.from(response.body);
    this.answers.set(key, body, response.headers.ETag);
    return { ...response, body };
  }

  private authenticate(header: string | undefined) {
    if (!header) return undefined;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? this.services.accounts.authenticate(match[1]) : undefined;
  }

  private async execute(
    prepared: PreparedRoute,
    params: Record<string, string>,
    request: IncomingRequest,
    rawBody: Buffer | undefined,
    headers: Record<string, string>,
    requestId: string,
    account: Account = { name: '', tier: 'community' },
    query: Record<string, unknown> = {},
  ): Promise<OutgoingResponse> {
    try {
      let body: unknown;
      if (rawBody !== undefined && !prepared.route.rawBody) {
        body = parseJsonBody(rawBody);
        if (prepared.checkBody) body = prepared.checkBody(body);
      }
      const context: RouteContext = { requestId, params, query, body, rawBody, headers: request.headers, account, services: this.services };
      const reply = await prepared.route.handler(context);
      return toResponse(reply, headers);
    } catch (error) {
      return this.failure(error, headers, requestId, request);
    }
  }

  private failure(error: unknown, headers: Record<string, string>, requestId: string, request?: IncomingRequest): OutgoingResponse {
    if (error instanceof ApiError) {
      try {
        return errorResponse(error, { ...headers, ...error.headers });
      } catch (unwritable) {
        // An error whose details cannot be written (a value echoed back that JSON cannot hold)
        // must not take the request, or the process, down with it.
        error = unwritable;
      }
    }
    this.log.error({ err: error, requestId, method: request?.method, url: request?.url }, 'request failed');
    return internalErrorResponse(requestId, headers);
  }
}

const JSON_MEDIA_TYPE = 'application/json';
const JSON_FAMILY = /^application\/(.+\+)?json$/;

/** Whether a Content-Type is one the route declares (JSON alone when it declares none). */
export function acceptsMediaType(accepts: readonly string[] | undefined, contentType: string): boolean {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return (accepts ?? [JSON_MEDIA_TYPE]).some((accepted) => type === accepted || (accepted === JSON_MEDIA_TYPE && JSON_FAMILY.test(type)));
}

/** The answer of last resort: built from constants, so writing it cannot fail. */
export function internalErrorResponse(requestId: string, headers: Record<string, string> = {}): OutgoingResponse {
  return errorResponse(new ApiError('internal_error', { request_id: requestId }), headers);
}

export function errorResponse(error: ApiError, headers: Record<string, string>): OutgoingResponse {
  return { status: error.status, headers: { ...headers, 'Content-Type': JSON_TYPE }, body: JSON.stringify(error.toBody()) };
}

function toResponse(reply: Reply, headers: Record<string, string>): OutgoingResponse {
  const status = reply.status ?? 200;
  if ('json' in reply) return { status, headers: { ...headers, ...reply.headers, 'Content-Type': JSON_TYPE }, body: JSON.stringify(reply.json) };
  if ('file' in reply) return { status, headers: { ...headers, ...reply.headers }, body: reply.file };
  return { status, headers: { ...headers, ...reply.headers }, body: reply.stream };
}
