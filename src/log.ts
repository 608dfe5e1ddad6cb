import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * sonic-boom writes at most this many bytes per write(2), one write in flight at a time. Its
 * default, 16 KB, is about 65 access lines: at 90,000 requests a second the lines came faster
 * than one write per turn of the event loop took them, the backlog grew, and lines lived long
 * enough to be promoted to the old generation (figures: docs/benchmarks.md). With 1 MB each write
 * takes the whole backlog and no line outlives a scavenge.
 */
const LOG_MAX_WRITE_BYTES = 1 << 20;

/**
 * sonic-boom writes once this many bytes are pending, or when LOG_FLUSH_INTERVAL_MS has passed.
 * Writing whatever was pending whenever the last write had finished made thousands of write(2)s
 * a second under load, each handed to a libuv thread that then took a core from the HTTP thread
 * (figures: docs/benchmarks.md). A line reaches the log at most this late, or is
 * lost with it if the process is killed (SIGTERM and SIGINT flush).
 */
const LOG_MIN_WRITE_BYTES = 64 * 1024;
const LOG_FLUSH_INTERVAL_MS = 100;

/** A destination that takes bytes: pino's sonic-boom in buffer mode. */
interface ByteDestination {
  write(bytes: Buffer): boolean;
  flush(callback: (error?: Error) => void): void;
  flushSync(): void;
}

/**
 * JSON lines on stdout. Writes are asynchronous (sonic-boom coalesces lines written while one
 * write is in flight): with an access-log line per request, a write(2) per line on the HTTP
 * thread would cost more than serving a cached registry answer. Call `flush` before exiting.
 *
 * sonic-boom takes bytes here, not text: given text, it measured the UTF-8 length of its pending
 * chunk on every write and encoded each written chunk twice (once to write it, once more to find
 * what was left). Text written to the logger (its own lines, and
 * the access log's joined lines once per turn) is encoded on its way in.
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    maxWrite: LOG_MAX_WRITE_BYTES,
    minLength: LOG_MIN_WRITE_BYTES,
    periodicFlush: LOG_FLUSH_INTERVAL_MS,
    contentMode: 'buffer',
  }) as unknown as ByteDestination;
  const lines = {
    write: (line: string) => destination.write(Buffer.from(redactKeys(line))),
    flush: (callback: (error?: Error) => void) => destination.flush(callback),
    flushSync: () => destination.flushSync(),
  };
  return pino({ level, base: { service: 'csr' }, timestamp: pino.stdTimeFunctions.isoTime }, lines);
}

/**
 * Text shaped like one of our API keys (`csr_<key id>_<secret>`, src/store/accounts.ts), also with
 * its underscores percent-encoded: a client that put its key in a path, an X-Request-Id or a
 * User-Agent had it written whole into the access log (3 of 33 lines in a review).
 */
const KEY_SHAPE = /csr(?:_|%5[Ff])([0-9a-f]{8,32})(?:_|%5[Ff])(?:[A-Za-z0-9_-]|%[0-9A-Fa-f]{2}){8,}/g;

/**
 * `text` with the secret of anything shaped like an API key replaced (`csr_<key id>_[redacted]`:
 * the key id names the key without granting anything). Two substring searches when there is none.
 * Every line the service's logger writes passes through here, and the access line's client
 * values do before they are written, whatever logger the service was given.
 */
export function redactKeys(text: string): string {
  if (text.indexOf('csr_') === -1 && text.indexOf('csr%5') === -1) return text;
  return text.replace(KEY_SHAPE, 'csr_$1_[redacted]');
}

/** What the access log says of one request (never the key). */
export interface AccessEntry {
  requestId: string | undefined;
  method: string;
  route: string;
  path: string;
  status: number;
  durationMs: number;
  bytes: number;
  account: string | undefined;
  /** The error code of a refusal or failure (docs/errors.md). */
  error?: string;
  /** The client's address, where it was read (requests without a key, answers of 400 and over). */
  client?: string;
  /** The client's User-Agent, cut at USER_AGENT_MAX_CHARS. */
  userAgent?: string;
}

/** The most of a User-Agent an access line keeps. */
const USER_AGENT_MAX_CHARS = 200;

/** Printable ASCII without `"` or a backslash: a JSON string of these is the text in quotes. */
const JSON_PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A JSON string literal; the common plain value skips JSON.stringify's scan and copy. */
function jsonString(value: string): string {
  return JSON_PLAIN.test(value) ? '"' + value + '"' : JSON.stringify(value);
}

/**
 * The access-log line pino would write for `logger.child({ log: 'access' }).info({...}, 'request')`,
 * built by concatenation: through pino (its generic serialiser walks the object and the bindings)
 * the line cost as much as serving a cached registry answer (figures: docs/benchmarks.md).
 * Values from the client (path, method, request id) and the account name are escaped when they
 * need it; the rest are numbers or fixed words.
 */
export function accessLine(entry: AccessEntry, isoTime: string): string {
  const requestId = entry.requestId === undefined ? '' : '"request_id":' + jsonString(redactKeys(entry.requestId)) + ',';
  const account = entry.account === undefined ? '' : ',"account":' + jsonString(entry.account);
  const error = entry.error === undefined ? '' : ',"error":' + jsonString(entry.error);
  const client = entry.client === undefined ? '' : ',"client":' + jsonString(entry.client);
  const userAgent = entry.userAgent === undefined ? '' : ',"user_agent":' + jsonString(redactKeys(entry.userAgent.slice(0, USER_AGENT_MAX_CHARS)));
  return (
    '{"level":30,"time":"' +
    isoTime +
    '","service":"csr","log":"access",' +
    requestId +
    '"method":' +
    jsonString(entry.method) +
    ',"route":' +
    jsonString(entry.route) +
    ',"path":' +
    jsonString(redactKeys(entry.path)) +
    ',"status":' +
    entry.status +
    error +
    ',"duration_ms":' +
    entry.durationMs +
    ',"bytes":' +
    entry.bytes +
    account +
    client +
    userAgent +
    ',"msg":"request"}\n'
  );
}

/** Collects access lines; `flush` hands the lines collected so far to the log in one write. */
export interface AccessLog {
  write(entry: AccessEntry): void;
  flush(): void;
}

/**
 * Writes access lines to the logger's own destination (so they interleave whole with its other
 * lines, and are flushed with it), when the logger logs at info. The caller flushes once per
 * batch of lines, not once a line: sonic-boom measures the UTF-8 length of its whole pending
 * chunk (up to 16 KB) on every write, and joining the batch's lines is cheaper than appending each
 * to one string (figures: docs/benchmarks.md).
 */
export function accessLogWriter(logger: Logger): AccessLog {
  const stream = (logger as unknown as Record<symbol, { write(line: string): unknown }>)[pino.symbols.streamSym];
  let lastMs = 0;
  let lastIso = '';
  let pending: string[] = [];
  return {
    write(entry) {
      if (!logger.isLevelEnabled('info')) return;
      // One Date per millisecond, not per line.
      const now = Date.now();
      if (now !== lastMs) {
        lastMs = now;
        lastIso = new Date(now).toISOString();
      }
      pending.push(accessLine(entry, lastIso));
    },
    flush() {
      if (pending.length === 0) return;
      const lines = pending.join('');
      pending = [];
      stream.write(lines);
    },
  };
}
