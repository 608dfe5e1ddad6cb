import { createHash } from 'node:crypto';

/**
 * Answers of registry reads, kept as the bytes that were sent. A registry read is a pure function
 * of its path, its query text and the compiled registry, and the registry cannot change under a
 * running process (a new build needs a restart), so its answer can be reused until the process
 * ends, and its ETag derived from the registry's content hash and the request alone: strong,
 * stable across restarts and nodes serving the same registry build, computed without the body.
 * Least recently used answers leave first once `maxBytes` is reached.
 */
export class RegistryAnswerCache {
  private readonly answers = new Map<string, { body: Buffer; etag: string }>();
  private bytes = 0;

  constructor(
    private readonly contentHash: string,
    private readonly maxBytes: number,
  ) {}

  etagOf(key: string): string {
    return this.answers.get(key)?.etag ?? `"${this.contentHash.slice(0, 16)}-${createHash('sha256').update(key).digest('base64url').slice(0, 22)}"`;
  }

  get(key: string): Buffer | undefined {
    const answer = this.answers.get(key);
    if (!answer) return undefined;
    // Re-inserting moves the entry to the young end of the Map's order.
    this.answers.delete(key);
    this.answers.set(key, answer);
    return answer.body;
  }

  set(key: string, body: Buffer, etag: string): void {
    if (body.length > this.maxBytes / 8 || this.answers.has(key)) return;
    this.answers.set(key, { body, etag });
    this.bytes += body.length;
    for (const [oldest, answer] of this.answers) {
      if (this.bytes <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.bytes -= answer.body.length;
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
