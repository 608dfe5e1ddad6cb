/**
 * Reading a framework body and checking it against the registry, as one function of bytes: run
 * inline for a small body, in the worker pool for a large one (an OSCAL catalog of 2,000
 * controls, a spreadsheet of as many rows), so that parsing never holds the HTTP thread.
 */
import { ApiError, type ErrorCode } from '../core/errors.js';
import { defineFramework, type FrameworkMeta, type ReferenceRegistry } from './define.js';
import type { CustomFrameworkContent, CustomFrameworkFormat } from './model.js';
import { readFrameworkBody } from './read.js';

/** Bodies up to this size are read on the HTTP thread: a small JSON form costs less than the hop. */
export const INLINE_FRAMEWORK_MAX_BYTES = 64 * 1024;

export interface ReadFrameworkTask {
  body: Uint8Array;
  contentType?: string;
  query: FrameworkMeta;
  /** A PUT's current version: its code, and the name and description a file without them keeps. */
  current?: { code: string; name: string; description: string };
}

/** Errors cross the thread boundary as data, as the analysis's do. */
export type ReadFrameworkOutput =
  | { ok: true; format: CustomFrameworkFormat; content: CustomFrameworkContent }
  | { ok: false; error: { code: ErrorCode; details?: Record<string, unknown>; message: string } };

export async function readFramework(registry: ReferenceRegistry, task: ReadFrameworkTask): Promise<ReadFrameworkOutput> {
  try {
    const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
    const draft = await readFrameworkBody(body, task.contentType);
    return { ok: true, format: draft.format, content: defineFramework(draft, task.query, registry, task.current) };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: { code: error.code, details: error.details, message: error.message } };
    throw error;
  }
}
