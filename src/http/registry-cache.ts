import { createHash } from 'node:crypto';
import type { ContentCoding } from './compression.js';

/**
 * Answers of registry reads, kept as the bytes that were sent. A registry read is a pure function
 * of its path, its query text and the compiled registry, and the registry cannot change under a
 * running process (a new build needs a restart), so its answer can be reused until the process
 * ends, and its ETag derived from the registry's content hash and the request alone: strong,
 * stable across restarts and nodes serving the same registry build, computed without the body.
 * Least recently used answers leave first once `maxBytes` is reached.
 */
export class RegistryAnswerCache {
  /** Each answer with its compressed forms, added once compressed (off the HTTP thread). */
  private readonly answers = new Map<string, { body: Buffer; etag: string; coded: Partial<Record<ContentCoding, Buffer>> }>();
  private bytes = 0;

  constructor(
    private readonly contentHash: string,
    private readonly maxBytes: number,
  ) {}

  etagOf(key: string): string {
    return this.answers.get(key)?.etag ?? `"${this.contentHash.slice(0, 16)}-${createHash('sha256').update(key).digest('base64url').slice(0, 22)}"`;
  }

  /** The kept answer in the coding asked for when it is ready, else as identity (`coding` says which). */
  get(key: string, coding?: ContentCoding): { body: Buffer; coding?: ContentCoding } | undefined {
    const answer = this.answers.get(key);
    if (!answer) return undefined;
    // Re-inserting moves the entry to the young end of the Map's order.
    this.answers.delete(key);
    this.answers.set(key, answer);
    const coded = coding && answer.coded[coding];
    return coded ? { body: coded, coding } : { body: answer.body };
  }

  set(key: string, body: Buffer, etag: string): void {
    if (body.length > this.maxBytes / 8 || this.answers.has(key)) return;
    this.answers.set(key, { body, etag, coded: {} });
    this.grow(body.length);
  }

  /** Adds a compressed form of a kept answer (ignored if the answer has left meanwhile). */
  setCoded(key: string, coding: ContentCoding, body: Buffer): void {
    const answer = this.answers.get(key);
    if (!answer || answer.coded[coding]) return;
    answer.coded[coding] = body;
    this.grow(body.length);
  }

  private grow(bytes: number): void {
    this.bytes += bytes;
    for (const [oldest, answer] of this.answers) {
      if (this.bytes <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.bytes -= answer.body.length + (answer.coded.br?.length ?? 0) + (answer.coded.gzip?.length ?? 0);
    }
  }

  get size(): number {
    return this.answers.size;
  }
}

/** Whether an If-None-Match header names `etag` (or is `*`); weak comparison, as RFC 9110 asks for GET. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
