import { createHash } from 'node:crypto';
import type { ContentCoding } from './compression.js';
import { renderHeaderLines, type RenderedHeaderLines } from './header-lines.js';
import type { Route } from './route.js';

/** One form of a kept answer: its bytes and the header lines that go with them, rendered once. */
export interface KeptForm {
  body: Buffer;
  etag: string;
  /** Its own headers: ETag, Cache-Control, Vary, Content-Type (and Content-Encoding for a coded form). */
  own: Record<string, string>;
  /** The same without the headers that describe a body, for a 304. */
  notModified: Record<string, string>;
  /** `own` and `notModified` as header lines. */
  headers: RenderedHeaderLines | undefined;
  notModifiedHeaders: RenderedHeaderLines | undefined;
}

/** A kept answer: the route and path parameters it was answered under, and its forms. */
export interface KeptAnswer {
  route: Route;
  params: Record<string, string>;
  identity: KeptForm;
  coded: Partial<Record<ContentCoding, KeptForm>>;
  /** When it was kept or last moved to the young end of the cache's order. */
  sequence: number;
}

/**
 * Answers of registry reads, kept as the bytes that were sent. A registry read is a pure function
 * of its path, its query text and the compiled registry, and the registry cannot change under a
 * running process (a new build needs a restart), so its answer can be reused until the process
 * ends, and its ETag derived from the registry's content hash and the request alone: strong,
 * stable across restarts and nodes serving the same registry build, computed without the body.
 * Least recently used answers leave first once `maxBytes` is reached.
 *
 * A kept answer also names its route, so that a repeated read needs one map lookup: no route
 * matching, no second lookup for the validator, and its own header lines rendered once rather
 * than per request.
 */
export class RegistryAnswerCache {
  private readonly answers = new Map<string, KeptAnswer>();
  private bytes = 0;
  private sequence = 0;

  constructor(
    private readonly contentHash: string,
    private readonly maxBytes: number,
  ) {}

  /** The strong validator of the answer to this path and query text. */
  etagFor(url: string, query: string): string {
    return `"${this.contentHash.slice(0, 16)}-${createHash('sha256').update(`${url}?${query}`).digest('base64url').slice(0, 22)}"`;
  }

  /** The kept answer to this path and query text, if any. */
  find(url: string, query: string): KeptAnswer | undefined {
    const key = answerKey(url, query);
    const answer = this.answers.get(key);
    if (!answer) return undefined;
    // A read moves its answer to the young end of the map's order, where eviction comes last. An
    // answer already in the younger half stays put: a hot answer costs no map churn per read.
    if (this.sequence - answer.sequence > this.answers.size / 2) {
      this.answers.delete(key);
      this.answers.set(key, answer);
      answer.sequence = ++this.sequence;
    }
    return answer;
  }

  /**
   * Keeps a 200 answer with its own headers (validators, caching, content type; never a
   * request's own, such as its id or rate-limit counts).
   */
  keep(url: string, query: string, route: Route, params: Record<string, string>, body: Buffer, headers: Record<string, string>): void {
    const key = answerKey(url, query);
    if (body.length > this.maxBytes / 8 || this.answers.has(key)) return;
    this.answers.set(key, { route, params, identity: keptForm(body, headers), coded: {}, sequence: ++this.sequence });
    this.grow(body.length);
  }

  /** Adds a compressed form of a kept answer (ignored if the answer has left meanwhile). */
  keepCoded(url: string, query: string, coding: ContentCoding, body: Buffer, headers: Record<string, string>): void {
    const answer = this.answers.get(answerKey(url, query));
    if (!answer || answer.coded[coding]) return;
    answer.coded[coding] = keptForm(body, headers);
    this.grow(body.length);
  }

  private grow(bytes: number): void {
    this.bytes += bytes;
    for (const [oldest, answer] of this.answers) {
      if (this.bytes <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.bytes -= answer.identity.body.length + (answer.coded.br?.body.length ?? 0) + (answer.coded.gzip?.body.length ?? 0);
    }
  }

  get size(): number {
    return this.answers.size;
  }
}

/** The cache's key: the path alone when there is no query (no string built per read). */
function answerKey(url: string, query: string): string {
  return query === '' ? url : `${url}?${query}`;
}

/** Headers a 304 leaves out: they describe a body it does not send. */
const BODY_HEADERS = new Set(['Content-Type', 'Content-Encoding']);

function keptForm(body: Buffer, headers: Record<string, string>): KeptForm {
  const notModified = Object.fromEntries(Object.entries(headers).filter(([name]) => !BODY_HEADERS.has(name)));
  return { body, etag: headers.ETag, own: headers, notModified, headers: renderHeaderLines(headers), notModifiedHeaders: renderHeaderLines(notModified) };
}

/** Whether an If-None-Match header names `etag` (or is `*`); weak comparison, as RFC 9110 asks for GET. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
