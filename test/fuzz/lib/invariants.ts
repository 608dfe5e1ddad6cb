import { mentions, Ref } from './json-text.js';
import type { FuzzCase } from './operations.js';

export interface Answer {
  status: number;
  body: Buffer;
}

/** Codes any request can get whatever its operation: routing outcomes of a mutated path or method. */
const ROUTING_CODES = new Set(['not_found', 'method_not_allowed']);

/**
 * What an answer breaks, or undefined: no 5xx but a full queue's 503 service_busy; every 4xx/5xx
 * in the envelope {"error": {code, message, details?}} with a code docs/errors.md lists at the
 * status it states, and that the OpenAPI document lists for the operation; never another
 * account's analysis.
 */
export function brokenInvariant(fuzzCase: FuzzCase, answer: Answer, documented: Map<string, number>, operationCodes?: Set<string>): string | undefined {
  const { status } = answer;
  if (status < 100 || status > 599) return `status ${status} is not an HTTP status`;
  // The readiness probe answers 503 with its own body until the worker threads have started.
  if (fuzzCase.operation === 'GET /readyz' && fuzzCase.method === 'GET' && status === 503 && /"status":"(?!ready")/.test(answer.body.toString()))
    return undefined;
  if (status >= 400 && fuzzCase.method !== 'HEAD') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      return `${status} without a JSON body`;
    }
    const envelope = parsed as { error?: Record<string, unknown> } | null;
    const error = envelope?.error;
    if (!error || typeof error !== 'object' || Array.isArray(error) || Object.keys(envelope!).length !== 1)
      return `${status}: not the error envelope {"error": {...}}`;
    const extra = Object.keys(error).filter((key) => !['code', 'message', 'details'].includes(key));
    if (extra.length) return `${status}: the error envelope has fields beyond code, message, details: ${extra.join(', ')}`;
    if (typeof error.code !== 'string' || typeof error.message !== 'string' || !error.message)
      return `${status}: error code and message must be non-empty strings`;
    if (error.details !== undefined && (typeof error.details !== 'object' || error.details === null || Array.isArray(error.details)))
      return `${status}: error details must be an object`;
    if (status >= 500 && !(status === 503 && error.code === 'service_busy')) return `${status} answered (${error.code})`;
    const documentedStatus = documented.get(error.code);
    if (documentedStatus === undefined) return `error code ${error.code} is not in docs/errors.md`;
    if (documentedStatus !== status) return `error code ${error.code} answered with ${status}; docs/errors.md says ${documentedStatus}`;
    if (operationCodes && fuzzCase.method === fuzzCase.operation.split(' ')[0] && !ROUTING_CODES.has(error.code) && !operationCodes.has(error.code)) {
      return `error code ${error.code} is not among the codes the OpenAPI document lists for ${fuzzCase.operation}`;
    }
  } else if (status >= 500) {
    return `${status} answered`;
  }
  const foreign =
    fuzzCase.segments.some((segment) => segment instanceof Ref && segment.name === 'foreign-analysis') ||
    (fuzzCase.body?.kind === 'json' && mentions(fuzzCase.body.tree, 'foreign-analysis'));
  if (foreign && status >= 200 && status < 300) return "another account's analysis was answered";
  return undefined;
}
