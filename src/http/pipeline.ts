import { Type } from '@sinclair/typebox';
import { accessLogWriter, type AccessLog, type Logger } from '../log.js';
import { ADDRESS_LIMITER_CAPACITY, ADDRESS_RATE_LIMITS, RATE_LIMITS, tierAtLeast } from '../tiers.js';
import type { Account } from '../store/types.js';
import type { Services } from '../services.js';
import { markOwner, type PoolTurn } from '../pool.js';
import { ApiError } from '../core/errors.js';
import { MemoryRateLimiter } from '../limits/memory.js';
import { rateLimitedError, type RateDecision, type RateLimiter } from '../limits/types.js';
import { Router, type RouteMatch } from './router.js';
import type { CompressedFileReply, Reply, Route, RouteContext } from './route.js';
import { compileBody, compileQuery } from '../core/validation.js';
import { parseJsonBody } from '../core/json-body.js';
import { bearerToken } from '../core/bearer.js';
import { parseKey } from '../store/accounts.js';
import { ACCEPTED_REQUEST_ID, newRequestId } from './request-id.js';
import { matchesEtag, RegistryAnswerCache, type KeptAnswer, type KeptForm } from './registry-cache.js';
import type { RenderedHeaderLines } from './header-lines.js';
import { chooseCoding, codedEtag, compress, type ContentCoding } from './compression.js';

/** A request as the adapter copied it from the socket. */
export interface IncomingRequest {
  method: string;
  url: string;
  query: string;
  headers: Record<string, string>;
  remoteAddress: string;
  /** The client's address if it has been read already (`remoteAddress` reads it: a system call, about 1 µs). */
  readonly knownAddress?: string;
  /** Aborts when the client goes away before its answer is written. */
  readonly closed: AbortSignal;
  /** Filled in by the pipeline as it learns it: what the access log and the metrics say of the request. */
  trace?: RequestTrace;
  /** A header that decides the request's framing (Content-Length, Transfer-Encoding, Host), sent more than once. */
  repeatedHeader?: string;
}

export interface RequestTrace {
  requestId: string;
  /** The declared route path (/v1/signals/:id), or `unmatched`: a bounded label, never the raw URL. */
  route: string;
  /** The account name, once a key has been verified (never the key). */
  account?: string;
  /** The error code the answer carries, when it is a refusal or a failure. */
  error?: string;
}

/** What the adapter writes back: a JSON or file body, or a stream. */
export interface OutgoingResponse {
  status: number;
  headers: Record<string, string>;
  /** More headers, rendered once (a kept registry answer's own); written after `headers`. */
  headerLines?: RenderedHeaderLines;
  body: Buffer | string | AsyncIterable<Buffer | string>;
  /** Called by the adapter once, when nothing reads the body any more (FileReply.afterSend). */
  afterSend?: () => void;
}

/** An answer as the adapter reported it: status, body bytes sent, and seconds from the request's arrival. */
interface AnsweredRequest {
  request: IncomingRequest;
  status: number;
  bytes: number;
  seconds: number;
}

/**
 * The synchronous verdict on a request before any body byte is read: answer now, or read a body
 * of at most `limit` bytes and then run, or run straight away.
 */
export type Admission =
  | { kind: 'respond'; response: OutgoingResponse }
  /**
   * The verdict needs one asynchronous step first (the shared rate limiter's round trip to Redis,
   * or the wait for a turn at the worker pool): the adapter holds the body back until it settles.
   */
  | { kind: 'defer'; admission: Promise<Exclude<Admission, { kind: 'defer' }>> }
  | ReadBodyAdmission
  | { kind: 'run'; run(): Promise<OutgoingResponse> };

type ReadBodyAdmission = { kind: 'read_body'; limit: number; tooLarge(): OutgoingResponse; run(body: Buffer): Promise<OutgoingResponse> };

/*
 * Header maps and answers here are merged with Object.assign, never with object spread: in Node
 * 20's V8, a literal that spreads one object and adds more ({ ...a, ...b } or { ...a, key })
 * takes a slow runtime path, about 0.9 µs each, and half of what it allocates survives the next
 * scavenge (measured: average survival 48 % against 0 % for Object.assign({}, a, b), which
 * takes 0.04 µs). A cached registry read made six of them, so the HTTP thread promoted some
 * 1.7 KB per request to the old generation and paused 10–20 ms in each scavenge.
 */

/**
 * A body declared (Content-Length) over its route's limit, up to this size, is refused with a 413
 * on a connection kept open, and uWS reads the rest of it and drops it. Closed at once, the
 * connection often went while the client was still writing its body, and the client got EPIPE
 * or a reset instead of the answer (the API fuzz test met it with a body 8 KB over 1 MiB). A
 * larger declared body, or one found too large while reading (no length given), closes the
 * connection after the 413: reading it would cost the service more than the answer is worth.
 */
const DRAINED_BODY_MAX_BYTES = 64 * 1024 * 1024;

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
  private readonly rateSubjects = new WeakMap<Account, string>();
  /** Answers reported and not yet observed (metrics, access line): this turn's, until `observeAnswers`. */
  private unobserved: AnsweredRequest[] = [];
  private readonly log: Logger;
  private readonly accessLog: AccessLog | undefined;
  /** ACCESS_LOG=errors: a line only for an answer with status 400 or over (499 included). */
  private readonly accessLogErrorsOnly: boolean;
  /** JSON answers from this size on are compressed for clients that accept it; 0: never. */
  private readonly compressMinBytes: number;
  shuttingDown = false;

  /** Without `limiters`, both count in this process's memory (one node). */
  constructor(
    routes: readonly Route[],
    private readonly services: Services,
    limiters?: { accounts: RateLimiter; addresses: RateLimiter },
  ) {
    this.router = new Router(routes);
    this.limiter = limiters?.accounts ?? new MemoryRateLimiter(() => services.now().getTime());
    this.addressLimiter = limiters?.addresses ?? new MemoryRateLimiter(() => services.now().getTime(), ADDRESS_LIMITER_CAPACITY);
    this.answers = new RegistryAnswerCache(services.registry.manifest.content_hash, services.config.registryCacheBytes);
    this.log = services.log;
    this.accessLog = services.config.accessLog === 'off' ? undefined : accessLogWriter(services.log);
    this.accessLogErrorsOnly = services.config.accessLog === 'errors';
    this.compressMinBytes = services.config.compressMinBytes;
    for (const route of routes) {
      this.prepared.set(route, {
        route,
        // A route that declares no query still refuses any parameter (refuseQuery); the public probes and /docs take anything.
        parseQuery: route.query ? compileQuery(route.query) : route.tier !== null && route.documented !== false ? refuseQuery : undefined,
        checkBody: route.body && !route.rawBody ? compileBody(route.body) : undefined,
      });
    }
  }

  get routes(): Route[] {
    return this.router.routes;
  }

  /**
   * The adapter's report once an answer has been handed to the socket, or the client went away
   * first (status 499, as nginx logs it): one metrics observation and one access-log line, made
   * once this turn of the event loop has served its requests (`observeAnswers`).
   */
  answered(request: IncomingRequest, status: number, bytes: number, seconds: number): void {
    this.unobserved.push({ request, status, bytes, seconds });
    if (this.unobserved.length === 1) setImmediate(this.observeAnswers);
  }

  /**
   * The metrics and access lines of the answers reported since the last call, in one loop. Made
   * inside each request's callback, between its admission and its send, the same work cost a
   * cached read a tenth of its throughput (docs/benchmarks.md), most likely because in one loop
   * its code and data stay in the CPU's caches.
   */
  private readonly observeAnswers = (): void => {
    const answers = this.unobserved;
    if (answers.length === 0) return;
    this.unobserved = [];
    for (const { request, status, bytes, seconds } of answers) {
      // Observing an answer must never cost the process (this runs outside any request's handler).
      try {
        const trace = request.trace;
        const route = trace?.route ?? 'unmatched';
        this.services.metrics.requestAnswered(request.method, route, status, seconds);
        if (this.accessLogErrorsOnly && status < 400) continue;
        this.accessLog?.write({
          requestId: trace?.requestId,
          method: request.method,
          route,
          path: request.url,
          status,
          durationMs: Math.round(seconds * 1e5) / 100,
          bytes,
          account: trace?.account,
          error: trace?.error,
          client: request.knownAddress,
          userAgent: request.headers['user-agent'],
        });
      } catch (error) {
        this.log.error({ err: error }, 'the answer could not be observed');
      }
    }
    this.accessLog?.flush();
  };

  /** Observes the answers not yet observed and hands their access lines to the log (at shutdown, before the log is flushed). */
  flushAccessLog(): void {
    this.observeAnswers();
  }

  pruneRateWindows(): void {
    this.limiter.prune();
    this.addressLimiter.prune();
  }

  async closeLimiters(): Promise<void> {
    await Promise.all([this.limiter.close(), this.addressLimiter.close()]);
  }

  admit(request: IncomingRequest): Admission {
    return this.encoding(request, this.admitRequest(request));
  }

  private admitRequest(request: IncomingRequest): Admission {
    const incomingId = request.headers['x-request-id'];
    const requestId = incomingId && ACCEPTED_REQUEST_ID.test(incomingId) ? incomingId : newRequestId();
    const baseHeaders: Record<string, string> = { 'X-Request-Id': requestId };
    const refuse = (error: ApiError, extra: Record<string, string> = {}): Admission => {
      if (request.trace) request.trace.error = error.code;
      return { kind: 'respond', response: errorResponse(error, Object.assign({}, baseHeaders, extra, error.headers)) };
    };

    // Ambiguous framing: what follows on this connection cannot be trusted to be a request of its own.
    if (request.repeatedHeader !== undefined) {
      request.trace = { requestId, route: 'unmatched' };
      return refuse(new ApiError('header_repeated', { header: request.repeatedHeader }), { Connection: 'close' });
    }

    // A registry answer kept from an earlier request names its route: no need to match the path again.
    const kept = request.method === 'GET' || request.method === 'HEAD' ? this.answers.find(request.url, request.query) : undefined;
    const match: RouteMatch = kept ? { kind: 'found', route: kept.route, params: kept.params } : this.router.match(request.method, request.url);
    const trace: RequestTrace = { requestId, route: match.kind === 'found' ? match.route.path : 'unmatched' };
    request.trace = trace;
    if (match.kind === 'found' && match.route.tier === null) {
      const prepared = this.prepared.get(match.route)!;
      return { kind: 'run', run: () => this.execute(prepared, match.params, request, undefined, baseHeaders, requestId) };
    }
    if (this.shuttingDown) return refuse(new ApiError('shutting_down'), { Connection: 'close' });

    // Every request counts against its caller's limit, whatever the answer (as GitHub and Stripe
    // count): the account's with a valid key, the address's without one (docs/limits.md).
    const account = this.authenticate(request.headers.authorization);
    trace.account = account?.name;
    const decision = account
      ? this.limiter.consume(this.rateSubject(account), RATE_LIMITS[account.tier])
      : this.addressLimiter.consume(request.remoteAddress, ADDRESS_RATE_LIMITS);
    if (decision instanceof Promise) {
      const afterLimit = (settled: RateDecision) => this.afterLimit(request, match, kept, account, settled, baseHeaders, requestId);
      return { kind: 'defer', admission: decision.then(afterLimit).then((admission) => (admission.kind === 'defer' ? admission.admission : admission)) };
    }
    return this.afterLimit(request, match, kept, account, decision, baseHeaders, requestId);
  }

  /** The rest of admission once the request has been counted. */
  private afterLimit(
    request: IncomingRequest,
    match: RouteMatch,
    kept: KeptAnswer | undefined,
    account: Account | undefined,
    decision: RateDecision,
    baseHeaders: Record<string, string>,
    requestId: string,
  ): Admission {
    const refuse = (error: ApiError, extra: Record<string, string> = {}) => {
      if (request.trace) request.trace.error = error.code;
      return { kind: 'respond' as const, response: errorResponse(error, Object.assign({}, baseHeaders, extra, error.headers)) };
    };
    if (!decision.allowed) {
      this.services.metrics.rateLimitRefused(account ? 'account' : 'address');
      return refuse(rateLimitedError(decision));
    }
    if (match.kind === 'not_found') return refuse(new ApiError('not_found', { resource: 'Path', id: request.url }), decision.headers);
    if (match.kind === 'method_not_allowed') {
      return refuse(
        new ApiError('method_not_allowed', { method: request.method, path: request.url, allowed: match.allowed }),
        Object.assign({}, decision.headers, { Allow: match.allowed.join(', ') }),
      );
    }
    if (!account) return refuse(refusedCredentials(request.headers), decision.headers);
    const { route, params } = match;
    const prepared = this.prepared.get(route)!;
    if (!tierAtLeast(account.tier, route.tier!)) {
      const code = route.tierError ?? 'tier_required';
      return refuse(new ApiError(code, { required_tier: route.tier, current_tier: account.tier }), decision.headers);
    }
    const headers: Record<string, string> = Object.assign({}, baseHeaders, decision.headers);

    // A registry read's own headers (validators, caching), kept with its answer.
    let registryOwn: Record<string, string> | undefined;
    if (route.registryRead && !route.accountOwned?.(account)) {
      const coding = this.compressMinBytes > 0 ? chooseCoding(request.headers['accept-encoding']) : undefined;
      if (kept) return this.keptAnswer(request, kept, coding, headers);
      // Not kept (yet): the validator needs no body, so a client holding this answer gets its 304 now.
      const etag = this.answers.etagFor(request.url, request.query);
      registryOwn = { ETag: etag, 'Cache-Control': REGISTRY_CACHE_CONTROL };
      if (this.compressMinBytes > 0) registryOwn.Vary = 'Accept-Encoding';
      const ifNoneMatch = request.headers['if-none-match'];
      // A client may hold the identity form (an answer under the threshold is never compressed) or the coded one.
      for (const held of coding ? [codedEtag(etag, coding), etag] : [etag]) {
        if (matchesEtag(ifNoneMatch, held))
          return { kind: 'respond', response: { status: 304, headers: Object.assign(headers, registryOwn, { ETag: held }), body: '' } };
      }
    }

    let query: Record<string, unknown> = {};
    try {
      if (prepared.parseQuery && (request.query !== '' || prepared.parseQuery !== refuseQuery)) query = prepared.parseQuery(new URLSearchParams(request.query));
    } catch (error) {
      return { kind: 'respond', response: this.failure(error, headers, requestId, request) };
    }

    if (registryOwn) {
      const perRequest = Object.keys(headers);
      const answerHeaders = Object.assign({}, headers, registryOwn);
      return {
        kind: 'run',
        run: () =>
          this.execute(prepared, params, request, undefined, answerHeaders, requestId, account, query).then((response) =>
            this.keep(request, route, params, response, perRequest),
          ),
      };
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
    const tooLarge = (closing = true) => {
      if (request.trace) request.trace.error = 'payload_too_large';
      return errorResponse(new ApiError('payload_too_large', { limit }), closing ? Object.assign({}, headers, { Connection: 'close' }) : headers);
    };
    const declared = Number(request.headers['content-length']);
    // Up to DRAINED_BODY_MAX_BYTES the connection stays open and the declared body is read and
    // dropped, so that the client, still writing it, reads the 413 rather than a reset.
    if (Number.isFinite(declared) && declared > limit) return { kind: 'respond', response: tooLarge(declared > DRAINED_BODY_MAX_BYTES) };
    const readBody = (turn?: PoolTurn): ReadBodyAdmission => ({
      kind: 'read_body',
      limit,
      tooLarge: () => {
        turn?.release();
        return tooLarge();
      },
      run: (body) => this.execute(prepared, params, request, body, headers, requestId, account, query).finally(() => turn?.release()),
    });
    // A body that may go to the worker pool is read once the request has its turn there (src/pool.ts).
    if (!route.pooled || (Number.isFinite(declared) && declared <= route.pooled.bodiesOver)) return readBody();
    let turn: PoolTurn | Promise<PoolTurn>;
    try {
      turn = this.services.pool.takeTurn(markOwner(request.closed, account.name));
    } catch (error) {
      return { kind: 'respond', response: this.failure(error, headers, requestId, request) };
    }
    if (!(turn instanceof Promise)) return readBody(turn);
    return { kind: 'defer', admission: turn.then(readBody, (error) => ({ kind: 'respond', response: this.failure(error, headers, requestId, request) })) };
  }

  /**
   * A kept registry answer: a 304 when the client holds it, else its bytes in the coding asked
   * for. Only this request's own headers are made per request; the answer's are rendered already.
   */
  private keptAnswer(
    request: IncomingRequest,
    kept: KeptAnswer,
    coding: ContentCoding | undefined,
    headers: Record<string, string>,
  ): Exclude<Admission, { kind: 'defer' }> {
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch) {
      for (const form of [coding && kept.coded[coding], kept.identity]) {
        if (form && matchesEtag(ifNoneMatch, form.etag))
          return { kind: 'respond', response: { status: 304, headers, headerLines: form.notModifiedHeaders, body: '' } };
      }
      // The coded form's validator is known before its bytes are: the client may hold them from another node.
      if (coding && !kept.coded[coding] && matchesEtag(ifNoneMatch, codedEtag(kept.identity.etag, coding))) {
        return {
          kind: 'respond',
          response: { status: 304, headers: Object.assign(headers, kept.identity.notModified, { ETag: codedEtag(kept.identity.etag, coding) }), body: '' },
        };
      }
    }
    const form: KeptForm | undefined = coding ? kept.coded[coding] : undefined;
    if (form) return { kind: 'respond', response: { status: 200, headers, headerLines: form.headers, body: form.body } };
    const { identity } = kept;
    // Its compressed form is not ready yet: compress it for this request (the same bytes it will keep).
    if (coding && identity.body.length >= this.compressMinBytes) {
      const answer: OutgoingResponse = { status: 200, headers: Object.assign(headers, identity.own), body: identity.body };
      return { kind: 'run', run: async () => answer };
    }
    return { kind: 'respond', response: { status: 200, headers, headerLines: identity.headers, body: identity.body } };
  }

  /**
   * Keeps a registry read's 200 answer as bytes, and its brotli and gzip forms once compressed
   * (off the HTTP thread, at the effort for answers sent many times); errors are not kept and
   * carry no validators. `perRequest` names the headers that belong to this request alone.
   */
  private keep(request: IncomingRequest, route: Route, params: Record<string, string>, response: OutgoingResponse, perRequest: string[]): OutgoingResponse {
    if (response.status !== 200 || typeof response.body !== 'string') {
      const { ETag: _etag, 'Cache-Control': _cacheControl, ...headers } = response.headers;
      return { status: response.status, headers, body: response.body };
    }
    const body = Buffer.from(response.body);
    const own: Record<string, string> = {};
    for (const name in response.headers) if (!perRequest.includes(name)) own[name] = response.headers[name];
    const { url, query } = request;
    this.answers.keep(url, query, route, params, body, own);
    if (this.compressMinBytes > 0 && body.length >= this.compressMinBytes) {
      for (const coding of ['br', 'gzip'] as const) {
        compress(body, coding, 'kept').then(
          (coded) =>
            this.answers.keepCoded(url, query, coding, coded, Object.assign({}, own, { 'Content-Encoding': coding, ETag: codedEtag(own.ETag, coding) })),
          (error: unknown) => this.log.error({ err: error, coding }, 'compressing a registry answer failed'),
        );
      }
    }
    return { status: response.status, headers: response.headers, body };
  }

  /**
   * A JSON answer the client accepts compressed, compressed (brotli or gzip, off the HTTP
   * thread) when it reaches the threshold; every JSON answer says it varies with Accept-Encoding.
   * Answers already coded (kept registry answers) and other media types pass unchanged.
   */
  private async encode(request: IncomingRequest, response: OutgoingResponse): Promise<OutgoingResponse> {
    const { body } = response;
    if (this.compressMinBytes === 0 || response.headers['Content-Encoding'] || !response.headers['Content-Type']?.startsWith('application/json'))
      return response;
    const headers: Record<string, string> = Object.assign({}, response.headers, { Vary: 'Accept-Encoding' });
    const { status, afterSend } = response;
    if (typeof body !== 'string' && !Buffer.isBuffer(body)) return { status, headers, body, afterSend };
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const coding = this.codingFor(request, bytes.length);
    if (!coding) return { status, headers, body: bytes, afterSend };
    headers['Content-Encoding'] = coding;
    if (!headers.ETag) return { status, headers, body: await compress(bytes, coding, 'answer'), afterSend };
    // A strong validator names one sequence of bytes: a registry answer is compressed as its kept
    // form is (same input, same settings, same output), whichever request compresses it first.
    headers.ETag = codedEtag(headers.ETag, coding);
    return { status, headers, body: await compress(bytes, coding, 'kept'), afterSend };
  }

  /** The coding a JSON answer of `length` bytes goes in to this client, or undefined for identity. */
  private codingFor(request: IncomingRequest, length: number): ContentCoding | undefined {
    return this.compressMinBytes > 0 && length >= this.compressMinBytes ? chooseCoding(request.headers['accept-encoding']) : undefined;
  }

  /** A file kept compressed: its brotli bytes as they are when the client takes br, else the bytes it holds. */
  private async compressedFile(request: IncomingRequest, reply: CompressedFileReply, headers: Record<string, string>): Promise<OutgoingResponse> {
    const status = reply.status ?? 200;
    if (this.codingFor(request, reply.identityLength) === 'br') {
      return {
        status,
        headers: Object.assign({}, headers, reply.headers, { Vary: 'Accept-Encoding', 'Content-Encoding': 'br' }),
        body: reply.brotli,
        afterSend: reply.afterSend,
      };
    }
    return { status, headers: Object.assign({}, headers, reply.headers), body: await reply.identity(), afterSend: reply.afterSend };
  }

  /** The admission with compression applied to whatever its run produces. */
  private encoding(request: IncomingRequest, admission: Admission): Admission {
    switch (admission.kind) {
      case 'respond':
        return admission;
      case 'run':
        return { kind: 'run', run: () => admission.run().then((response) => this.encode(request, response)) };
      case 'read_body':
        return {
          kind: 'read_body',
          limit: admission.limit,
          tooLarge: admission.tooLarge,
          run: (body) => admission.run(body).then((response) => this.encode(request, response)),
        };
      case 'defer':
        return { kind: 'defer', admission: admission.admission.then((settled) => this.encoding(request, settled) as Exclude<Admission, { kind: 'defer' }>) };
    }
  }

  /**
   * The limiter's subject for an account, made once per verified account object: a string
   * built per request is hashed, and compared character by character, in the limiter's map.
   */
  private rateSubject(account: Account): string {
    let subject = this.rateSubjects.get(account);
    if (subject === undefined) {
      subject = `account:${account.name}`;
      this.rateSubjects.set(account, subject);
    }
    return subject;
  }

  private authenticate(header: string | undefined) {
    const token = bearerToken(header);
    return token === undefined ? undefined : this.services.accounts.authenticate(token);
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
      const context: RouteContext = {
        requestId,
        params,
        query,
        body,
        rawBody,
        headers: request.headers,
        account,
        services: this.services,
        // Asked for only by handlers that hand work to the pool, which shares its threads fairly between the accounts it names.
        get closed() {
          return markOwner(request.closed, account.name);
        },
      };
      const reply = await prepared.route.handler(context);
      if ('identity' in reply) return await this.compressedFile(request, reply, headers);
      return toResponse(reply, headers);
    } catch (error) {
      return this.failure(error, headers, requestId, request);
    }
  }

  private failure(error: unknown, headers: Record<string, string>, requestId: string, request?: IncomingRequest): OutgoingResponse {
    // Work given up because the client went away (the signal's reason, never an ApiError): no one
    // reads this, and it is not the service's failure. Asked only then: `closed` is made on demand.
    if (!(error instanceof ApiError) && request?.closed.aborted && error === request.closed.reason) return { status: 499, headers, body: '' };
    if (request?.trace) request.trace.error = error instanceof ApiError ? error.code : 'internal_error';
    if (error instanceof ApiError) {
      try {
        return errorResponse(error, Object.assign({}, headers, error.headers));
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

/**
 * 401 saying what was wrong with the credentials, as far as that gives nothing away: none sent,
 * sent in another header or scheme, a token that is no key of ours, or a key that is unknown or
 * revoked (those two read alike: telling them apart would confirm a key id). RFC 6750's
 * WWW-Authenticate names the scheme and, for a bad credential, the error. Every mistake read
 * "API key is invalid or missing" before.
 */
function refusedCredentials(headers: Record<string, string>): ApiError {
  const header = headers.authorization;
  const refuse = (problem: string, message: string, error?: 'invalid_request' | 'invalid_token') =>
    new ApiError(
      'unauthorized',
      { problem },
      { message, headers: { 'WWW-Authenticate': error ? `Bearer realm="csr", error="${error}"` : 'Bearer realm="csr"' } },
    );
  if (header === undefined) {
    if (headers['x-api-key'] !== undefined)
      return refuse('wrong_header', 'Send the API key as Authorization: Bearer <key>; an X-API-Key header is not read', 'invalid_request');
    return refuse('missing', 'An API key is required: send it as Authorization: Bearer <key>');
  }
  const token = bearerToken(header);
  if (token === undefined) {
    const bare = parseKey(header.trim()) !== undefined;
    return refuse(
      'wrong_scheme',
      bare ? 'Put "Bearer " before the key: Authorization: Bearer <key>' : 'The Authorization header must use the Bearer scheme: Authorization: Bearer <key>',
      'invalid_request',
    );
  }
  if (!parseKey(token))
    return refuse('not_a_key', 'The bearer token is not an API key of this service: keys look like csr_<16 hex digits>_<43 characters>', 'invalid_token');
  return refuse('unknown_or_revoked', 'The API key is unknown or has been revoked', 'invalid_token');
}

/** The query check of a route that declares no parameters: any one given is refused, naming it. */
const refuseQuery = compileQuery(Type.Object({}));

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
  return { status: error.status, headers: Object.assign({}, headers, { 'Content-Type': JSON_TYPE }), body: JSON.stringify(error.toBody()) };
}

function toResponse(reply: Exclude<Reply, CompressedFileReply>, headers: Record<string, string>): OutgoingResponse {
  const status = reply.status ?? 200;
  if ('json' in reply) return { status, headers: Object.assign({}, headers, reply.headers, { 'Content-Type': JSON_TYPE }), body: JSON.stringify(reply.json) };
  if ('file' in reply) return { status, headers: Object.assign({}, headers, reply.headers), body: reply.file, afterSend: reply.afterSend };
  return { status, headers: Object.assign({}, headers, reply.headers), body: reply.stream };
}
