import { MAX_ANALYSIS_ID_LENGTH } from './analyses.js';

/**
 * The analyses list's cursor: where the previous page ended (its last analysis's creation time
 * and id), opaque to callers (base64url). Both stores read a page from there along their keyset
 * index, so a page deep in a large account costs what the first one does.
 */
export interface ListPosition {
  created_at: string;
  id: string;
}

export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.created_at, position.id])).toString('base64url');
}

/** The position a cursor names, or undefined when it is not one this service gave. */
export function decodeCursor(cursor: string): ListPosition | undefined {
  if (cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const [createdAt, id] = parsed;
  if (typeof createdAt !== 'string' || typeof id !== 'string' || id.length === 0 || id.length > MAX_ANALYSIS_ID_LENGTH) return undefined;
  // Exactly the form stored entries carry (toISOString), so that the stores compare like with like.
  const time = Date.parse(createdAt);
  if (Number.isNaN(time) || new Date(time).toISOString() !== createdAt) return undefined;
  return { created_at: createdAt, id };
}
