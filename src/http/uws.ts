import { performance } from 'node:perf_hooks';
import { STATUS_CODES } from 'node:http';
import uWS from 'uWebSockets.js';
import type { HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { headerLines } from './header-lines.js';
import { newRequestId } from './request-id.js';
import { internalErrorResponse, type Admission, type IncomingRequest, type OutgoingResponse, type Pipeline, type RequestTrace } from './pipeline.js';

/**
 * The only module that touches uWebSockets.js. Per request it registers onAborted first, copies
 * what it needs from `req` synchronously, keeps one `done` flag, corks every write that happens
 * after an await, enforces the body limit while reading, and never touches `res` after abort or end.
 */
export interface HttpServer {
  port: number;
  /** Requests admitted and not yet answered or aborted. */
  readonly inFlight: number;
  /** Stops accepting connections; resolves when in-flight requests are answered or the timeout passes. */
  close(timeoutMs: number): Promise<void>;
}

interface ResponseState {
  aborted: boolean;
  done: boolean;
  /** The answer's first bytes have been handed to uWS. */
  answering?: boolean;
  /** Wakes a stream waiting for the socket to drain, also when the client goes away. */
  wake?: () => void;
}

/**
 * Headers that say where a request ends or whom it is for. uWS frames a body by the first
 * Content-Length it reads; a proxy in front may take the last, and then bytes we read as a body
 * would run as a request of their own there (request smuggling). A request that sends one of these
 * twice is refused and its connection closed (RFC 9112 6.3, 3.2).
 */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'host']);

/** uWS's ListenOptions value that leaves SO_REUSEPORT off. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

/** Chunks larger than this are sent with tryEnd so that backpressure applies to big files. */
const TRY_END_THRESHOLD = 64 * 1024;
/** uWS's per-loop cork buffer (LoopData::CORK_BUFFER_SIZE). */
const CORK_BUFFER_BYTES = 16 * 1024;
/** Under uWS's idle timeout (10 s, checked every 4 s). */
const PAUSED_SOCKET_REFRESH_MS = 4000;

/**
 * Sockets whose reading is paused while their request waits: for a turn at the pool before its
 * body is read, or for its answer once it has been read. uWS refuses async pipelining: a request
 * it parses while the one ahead on the connection is unanswered closes the connection, and both
 * answers are lost. Paused, the socket leaves what the client sends next in the kernel until the
 * answer ahead has been written. uWS's idle timeout also runs on a paused socket (it closed one
 * after 12 s); resuming resets it, and pausing again in the same turn lets no byte in. A paused
 * socket's close is seen once it is resumed.
 */
class PausedSockets {
  private readonly paused = new Map<ResponseState, HttpResponse>();
  private refresh: NodeJS.Timeout | undefined;
  /** Requests read whole and unanswered, to pause once this turn's reads are done (`pauseUnanswered`). */
  private unanswered: Array<[HttpResponse, ResponseState]> = [];

  pause(res: HttpResponse, state: ResponseState): void {
    if (this.paused.has(state)) return;
    res.pause();
    this.paused.set(state, res);
    this.refresh ??= setInterval(() => {
      for (const [held, socket] of this.paused) {
        if (held.aborted) continue;
        socket.resume();
        socket.pause();
      }
    }, PAUSED_SOCKET_REFRESH_MS);
  }

  /** Lets the socket read again (called just before its answer is written, or its body read). */
  resume(res: HttpResponse, state: ResponseState): void {
    if (!this.paused.delete(state)) return;
    if (!state.aborted) res.resume();
    this.stopRefreshWhenIdle();
  }

  /** The client left: nothing more is done with its socket. */
  forget(state: ResponseState): void {
    if (this.paused.delete(state)) this.stopRefreshWhenIdle();
  }

  /**
   * A request read whole whose answer is not written yet: paused once the reads of this turn are
   * done (setImmediate runs after the poll phase that read it and before the next one reads
   * again), unless answered by then, as most are (a registry read, a cached answer).
   */
  holdUntilAnswered(res: HttpResponse, state: ResponseState): void {
    this.unanswered.push([res, state]);
    if (this.unanswered.length === 1) setImmediate(this.pauseUnanswered);
  }

  private readonly pauseUnanswered = (): void => {
    const waiting = this.unanswered;
    this.unanswered = [];
    for (const [res, state] of waiting) if (!state.aborted && !state.done && !state.answering) this.pause(res, state);
  };

  private stopRefreshWhenIdle(): void {
    if (this.paused.size === 0 && this.refresh) {
      clearInterval(this.refresh);
      this.refresh = undefined;
    }
  }
}

export function startHttpServer(pipeline: Pipeline, host: string, port: number, log: Logger): Promise<HttpServer> {
  const app: TemplatedApp = uWS.App();
  const paused = new PausedSockets();
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const finished = () => {
    inFlight -= 1;
    if (inFlight === 0) drained?.();
  };

  app.any('/*', (res, req) => {
    const state: ResponseState = { aborted: false, done: false };
    inFlight += 1;
    let counted = true;
    const settle = () => {
      if (counted) {
        counted = false;
        finished();
      }
    };
    const started = performance.now();
    let reported = false;
    const report = (status: number, bytes: number) => {
      if (reported) return;
      reported = true;
      // Observing an answer must never cost the process: this also runs inside uWS's abort callback.
      try {
        pipeline.answered(incoming, status, bytes, (performance.now() - started) / 1000);
      } catch (error) {
        log.error({ err: error }, 'the answer could not be observed');
      }
    };
    res.onAborted(() => {
      state.aborted = true;
      paused.forget(state);
      state.wake?.();
      incoming.clientLeft();
      // The client left before its answer was written (nginx's 499).
      report(499, 0);
      settle();
    });
    const headers: Record<string, string> = {};
    let repeated: string | undefined;
    req.forEach((key, value) => {
      if (headers[key] !== undefined && FRAMING_HEADERS.has(key)) repeated ??= key;
      headers[key] = value;
    });
    const incoming = new UwsRequest(res, req.getCaseSensitiveMethod().toUpperCase(), req.getUrl(), req.getQuery() ?? '', headers);
    if (repeated !== undefined) incoming.repeatedHeader = repeated;

    let admission: Admission;
    try {
      admission = pipeline.admit(incoming);
    } catch (error) {
      log.error({ err: error }, 'admission failed');
      admission = { kind: 'respond', response: internalErrorResponse(newRequestId()) };
    }

    // A refusal of ambiguous framing closes the connection: it carries its body (and its padding) even to HEAD.
    const headOnly = incoming.method === 'HEAD' && repeated === undefined;
    const written = (status: number, bytes: number) => {
      if (!state.aborted) report(status, bytes);
      settle();
    };
    const unwritable = (error: unknown) => {
      log.error({ err: error, method: incoming.method, url: incoming.url }, 'response could not be written');
      settle();
    };
    // An answer in memory is written at once (inside this callback when admission answered it,
    // so without a promise); a large or streamed one resolves when uWS has taken its last byte.
    // `inHandler`: called from uWS's request callback, where uWS has corked the socket already.
    // `afterSend` runs once uWS holds no reference to the body: written, failed, or the client gone.
    const deliver = (response: OutgoingResponse, inHandler = false) => {
      const { afterSend } = response;
      state.answering = true;
      // The access line of a refusal or failure names the client; `res` can tell it only until the answer ends.
      if (response.status >= 400 && !state.aborted) void incoming.remoteAddress;
      // Reading again from here: what the client sent behind this request is parsed once the answer has been ended.
      paused.resume(res, state);
      try {
        // A 304 carries no body and no Content-Length of its own.
        const bytes = headOnly || response.status === 304 ? sendHead(res, state, response, inHandler) : send(res, state, response, log, inHandler);
        if (typeof bytes === 'number') {
          afterSend?.();
          written(response.status, bytes);
        } else {
          bytes.finally(() => afterSend?.()).then((sent) => written(response.status, sent), unwritable);
        }
      } catch (error) {
        afterSend?.();
        unwritable(error);
      }
    };
    // The pipeline answers its own failures; this is the net under it, so that no request can
    // leave a rejected promise behind (Node ends the process on one).
    const answer = (response: Promise<OutgoingResponse>) =>
      void response
        .catch((error: unknown) => {
          log.error({ err: error, method: incoming.method, url: incoming.url }, 'request failed outside the pipeline');
          return internalErrorResponse(newRequestId());
        })
        .then(deliver);
    const proceed = (admission: Exclude<Admission, { kind: 'defer' }>, body?: BodyReader, inHandler = false) => {
      switch (admission.kind) {
        case 'respond':
          body?.discard();
          deliver(admission.response, inHandler);
          return;
        case 'run':
          answer(admission.run());
          paused.holdUntilAnswered(res, state);
          return;
        case 'read_body':
          (body ?? new BodyReader(res, state)).deliver(admission.limit, {
            tooLarge: () => answer(Promise.resolve(admission.tooLarge())),
            complete: (bytes) => {
              answer(admission.run(bytes));
              paused.holdUntilAnswered(res, state);
            },
          });
      }
    };
    if (admission.kind !== 'defer') {
      proceed(admission, undefined, true);
      return;
    }
    // Body bytes that came with the headers arrive as soon as this callback returns and are lost
    // without a handler: take them now, and hold the socket until the verdict says whether to read on.
    const body = new BodyReader(res, state);
    // A wait for a pool turn may last the task budget.
    paused.pause(res, state);
    admission.admission.then(
      (settled) => {
        if (state.aborted) return;
        paused.resume(res, state);
        proceed(settled, body);
      },
      (error: unknown) => {
        log.error({ err: error }, 'admission failed');
        if (state.aborted) return;
        answer(Promise.resolve(internalErrorResponse(newRequestId())));
      },
    );
  });

  return new Promise((resolve, reject) => {
    // Exclusive: by default uWS sets SO_REUSEPORT, and a second server on a taken port would start
    // silently and take half the connections. (The typings lack this overload; uWS has it.)
    const listen = app.listen as unknown as (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => void;
    listen.call(app, host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (listenSocket: us_listen_socket | false) => {
      if (!listenSocket) {
        reject(new Error(`cannot listen on ${host}:${port}: PORT=${port} is taken by another process, or HOST=${host} is not an address of this machine`));
        return;
      }
      resolve({
        port: uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket),
        get inFlight() {
          return inFlight;
        },
        close(timeoutMs) {
          uWS.us_listen_socket_close(listenSocket);
          if (inFlight === 0) return Promise.resolve();
          return new Promise<void>((done) => {
            const timer = setTimeout(done, timeoutMs);
            drained = () => {
              clearTimeout(timer);
              done();
            };
          });
        },
      });
    });
  });
}

/**
 * Reads a request body: registered at once, it keeps chunks that arrive before the limit is known,
 * then enforces the limit on everything received. uWS neuters each chunk's ArrayBuffer when its
 * callback returns, so every chunk is copied.
 */
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private finished = false;
  private refused = false;
  private limit = Number.POSITIVE_INFINITY;
  private handlers: { tooLarge(): void; complete(body: Buffer): void } | undefined;

  constructor(
    res: HttpResponse,
    private readonly state: ResponseState,
  ) {
    res.onData((chunk, isLast) => {
      if (this.state.aborted || this.refused) return;
      this.received += chunk.byteLength;
      this.chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) this.finished = true;
      this.check();
    });
  }

  /** Keeps no more of the body: the request was answered without it. */
  discard(): void {
    this.refused = true;
    this.chunks.length = 0;
  }

  deliver(limit: number, handlers: { tooLarge(): void; complete(body: Buffer): void }): void {
    this.limit = limit;
    this.handlers = handlers;
    this.check();
  }

  private check(): void {
    if (!this.handlers || this.refused) return;
    if (this.received > this.limit) {
      this.refused = true;
      this.chunks.length = 0;
      this.handlers.tooLarge();
      return;
    }
    if (this.finished) {
      this.refused = true;
      this.handlers.complete(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.received));
    }
  }
}

/**
 * The request as the pipeline sees it. The client's address costs a getpeername(2) and a copy
 * (about 1.1 µs): it is read only when asked for (the per-address limit of requests without a
 * key, and the access line of an answer of 400 or over), while `res` is still open.
 */
class UwsRequest implements IncomingRequest {
  trace?: RequestTrace;
  repeatedHeader?: string;
  private address: string | undefined;
  // Made when the pipeline first asks: most requests never do.
  private leaving: AbortController | undefined;
  private left = false;

  constructor(
    private readonly res: HttpResponse,
    readonly method: string,
    readonly url: string,
    readonly query: string,
    readonly headers: Record<string, string>,
  ) {}

  get remoteAddress(): string {
    this.address ??= Buffer.from(this.res.getRemoteAddressAsText()).toString();
    return this.address;
  }

  get knownAddress(): string | undefined {
    return this.address;
  }

  get closed(): AbortSignal {
    if (!this.leaving) {
      this.leaving = new AbortController();
      if (this.left) this.leaving.abort();
    }
    return this.leaving.signal;
  }

  clientLeft(): void {
    this.left = true;
    this.leaving?.abort();
  }
}

/** Status lines by code, made once. */
const STATUS_LINES = new Map<number, string>();

function statusLine(status: number): string {
  let line = STATUS_LINES.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    STATUS_LINES.set(status, line);
  }
  return line;
}

/**
 * Writes the status and every header line with at most three calls into uWS: the per-answer
 * lines as one writeHeader, and an answer's lines rendered once (`headerLines`) as another: a
 * call per header cost a crossing into C++ and a conversion of both arguments each (figures:
 * docs/benchmarks.md). test/http/foundation.test.ts reads the header block off a raw socket.
 */
function writeHead(res: HttpResponse, response: OutgoingResponse): void {
  res.writeStatus(statusLine(response.status));
  // uWS writes Connection itself, from end()'s closeConnection.
  const lines = headerLines(response.headers, 'Connection');
  if (lines !== '') {
    const colon = lines.indexOf(': ');
    res.writeHeader(lines.slice(0, colon), lines.slice(colon + 2, -2));
  }
  if (response.headerLines) res.writeHeader(response.headerLines.name, response.headerLines.value);
}

/**
 * Runs `write` corked, unless it runs inside uWS's request callback: the socket is corked there
 * already (one send(2) for the whole answer, checked with strace), and a cork of our own cost a
 * crossing into C++ and back (docs/benchmarks.md).
 */
function corkedUnlessInHandler(res: HttpResponse, inHandler: boolean, write: () => void): void {
  if (inHandler) write();
  else res.cork(write);
}

/** HEAD: the headers GET would send, Content-Length included when the body is in memory, and no body; likewise 304. */
function sendHead(res: HttpResponse, state: ResponseState, response: OutgoingResponse, inHandler: boolean): number {
  if (state.aborted || state.done) return 0;
  const { body } = response;
  const length = response.status === 304 ? undefined : typeof body === 'string' ? Buffer.byteLength(body) : Buffer.isBuffer(body) ? body.length : undefined;
  corkedUnlessInHandler(res, inHandler, () => {
    writeHead(res, response);
    // The length is written as a header and endWithoutBody called bare: given a length, uWS
    // (20.30) writes it but keeps the response pending, as if those bytes were still to come, and
    // the next request on the keep-alive connection made it close the connection (a reset for
    // the client: every request after a HEAD was lost). Bare, it cannot close the connection
    // itself, so a closing answer says so in its header and the client closes.
    if (length !== undefined) res.writeHeader('Content-Length', String(length));
    if (response.headers.Connection === 'close') res.writeHeader('Connection', 'close');
    res.endWithoutBody();
  });
  state.done = true;
  return 0;
}

/**
 * Writes the answer: the number of body bytes handed to the socket, at once for a small body in
 * memory, else a promise of it once uWS has taken the last byte.
 */
function send(res: HttpResponse, state: ResponseState, response: OutgoingResponse, log: Logger, inHandler: boolean): number | Promise<number> {
  if (state.aborted || state.done) return 0;
  const closeConnection = response.headers.Connection === 'close';
  const { body } = response;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    let bytes = typeof body === 'string' ? Buffer.from(body) : body;
    if (closeConnection && inHandler && bytes.length <= CORK_BUFFER_BYTES) bytes = pastCorkBuffer(bytes);
    if (bytes.length <= TRY_END_THRESHOLD) {
      corkedUnlessInHandler(res, inHandler, () => {
        writeHead(res, response);
        res.end(bytes, closeConnection);
      });
      state.done = true;
      return bytes.length;
    }
    return sendLarge(res, state, response, bytes).then(() => bytes.length);
  }
  return sendStream(res, state, response, body, log);
}

/**
 * An answer that closes its connection, padded with trailing spaces (still the same JSON) past
 * uWS's cork buffer. Written inside uWS's request callback, a small answer waits in that buffer,
 * uWS does not close the socket while it is corked, and it goes on to parse and run whatever the
 * client sent behind the request: after a refusal of ambiguous framing, a smuggled request
 * (observed). A write that does not fit is sent at once, and end() then closes the socket, which
 * stops the parser. test/http/hardening-2.test.ts checks that nothing behind such an answer runs.
 */
function pastCorkBuffer(bytes: Buffer): Buffer {
  const padded = Buffer.alloc(CORK_BUFFER_BYTES + 1, 0x20);
  bytes.copy(padded);
  return padded;
}

/** A big in-memory body: tryEnd as far as the socket takes it, continue from onWritable. */
async function sendLarge(res: HttpResponse, state: ResponseState, response: OutgoingResponse, bytes: Buffer): Promise<void> {
  const total = bytes.length;
  let startOffset = 0;
  let responded = false;
  res.cork(() => {
    writeHead(res, response);
    startOffset = res.getWriteOffset();
    responded = res.tryEnd(bytes, total)[1];
  });
  if (responded) {
    state.done = true;
    return;
  }
  await new Promise<void>((resolve) => {
    state.wake = resolve;
    // uWS reports how many body bytes the socket has taken; resend from there.
    res.onWritable((offset) => {
      if (state.aborted) return true;
      const [ok, finished] = res.tryEnd(bytes.subarray(offset - startOffset), total);
      if (finished) {
        state.done = true;
        resolve();
      }
      return ok;
    });
  });
}

/** A body produced piece by piece: chunked writes, waiting for drain whenever uWS buffers. */
async function sendStream(
  res: HttpResponse,
  state: ResponseState,
  response: OutgoingResponse,
  stream: AsyncIterable<Buffer | string>,
  log: Logger,
): Promise<number> {
  res.cork(() => writeHead(res, response));
  let written = 0;
  try {
    for await (const chunk of stream) {
      if (state.aborted) return written;
      written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      let ok = true;
      res.cork(() => {
        ok = res.write(chunk);
      });
      if (!ok) {
        await new Promise<void>((resolve) => {
          state.wake = resolve;
          res.onWritable(() => {
            resolve();
            return true;
          });
        });
        if (state.aborted) return written;
      }
    }
    if (!state.aborted) res.cork(() => res.end());
    state.done = true;
  } catch (error) {
    log.error({ err: error }, 'stream failed mid-response');
    if (!state.aborted && !state.done) res.close();
    state.done = true;
  }
  return written;
}

/**
 * A bare uWS server that answers every request with the same bytes: the body, and the headers
 * given (uWS adds Date and Content-Length, as it does for the service), one writeHeader call each
 * as plain uWS code does. Benchmarks run it beside the service so that figures are ratios to what
 * the socket layer alone can do on the same machine.
 */
export function startBaselineServer(
  host: string,
  body: Buffer,
  headers: readonly (readonly [string, string])[] = [['Content-Type', 'application/json; charset=utf-8']],
): Promise<{ port: number; close(): void }> {
  const app = uWS.App();
  app.any('/*', (res) => {
    res.writeStatus('200 OK');
    for (const [name, value] of headers) res.writeHeader(name, value);
    res.end(body);
  });
  return new Promise((resolve, reject) => {
    app.listen(host, 0, (listenSocket: us_listen_socket | false) => {
      if (!listenSocket) return reject(new Error('baseline server could not listen'));
      resolve({ port: uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket), close: () => uWS.us_listen_socket_close(listenSocket) });
    });
  });
}
