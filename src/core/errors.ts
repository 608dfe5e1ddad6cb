/**
 * The one error registry: every refusal the service can give, with its HTTP status and the
 * message template. docs/errors.md documents each code and a contract test keeps them in step.
 */
export const ERROR_CODES = {
  unauthorized: { status: 401, message: 'API key is invalid or missing' },
  tier_required: { status: 403, message: 'This endpoint requires the {required_tier} tier or above (current tier: {current_tier})' },
  GAP_TIER_REQUIRED: { status: 403, message: 'This gap-analysis feature requires the {required_tier} tier or above (current tier: {current_tier})' },
  not_found: { status: 404, message: '{resource} not found: {id}' },
  method_not_allowed: { status: 405, message: 'Method {method} is not allowed on {path}' },
  invalid_parameter: { status: 400, message: 'Invalid value for parameter {parameter}' },
  invalid_json: { status: 400, message: 'Request body is not valid JSON: {reason}' },
  header_repeated: { status: 400, message: 'Header {header} was sent more than once; a request may carry it once' },
  json_too_deep: { status: 400, message: 'Request body nests arrays and objects deeper than {limit} levels (at byte {offset})' },
  unsupported_media_type: { status: 415, message: 'Request body must be JSON (Content-Type: application/json)' },
  payload_too_large: { status: 413, message: 'Request body exceeds the limit of {limit} bytes' },
  rate_limited: { status: 429, message: 'Rate limit exceeded: retry in {retry_after} seconds' },
  scan_unreadable: { status: 400, message: 'The file cannot be read as {format}: {reason}' },
  GAP_INVALID_FINDING: { status: 400, message: 'Finding {index} is invalid: {reason}' },
  GAP_SIGNAL_NOT_FOUND: { status: 400, message: 'Unknown signal id(s): {signal_ids}' },
  GAP_FRAMEWORK_NOT_FOUND: { status: 400, message: 'Unknown framework code(s): {frameworks}' },
  GAP_TOO_MANY_FINDINGS: { status: 400, message: 'Too many findings: {count} submitted, the {tier} tier allows {limit}' },
  GAP_TOO_MANY_FRAMEWORKS: { status: 400, message: 'Too many frameworks: {count} requested, the {tier} tier allows {limit}' },
  GAP_NOT_FOUND: { status: 404, message: 'Gap analysis not found: {id}' },
  GAP_EXPIRED: { status: 410, message: 'Gap analysis {id} expired on {expired_at}' },
  framework_invalid: { status: 400, message: 'The framework definition is invalid at {location}: {reason}' },
  framework_exists: { status: 409, message: 'Framework code {code} is taken' },
  framework_limit_reached: { status: 409, message: 'The account already holds {count} custom frameworks, the most it may hold is {limit}' },
  webhook_url_refused: { status: 400, message: 'The webhook URL {url} cannot be used: {reason}' },
  webhook_limit_reached: { status: 409, message: 'The account already holds {count} webhooks, the most it may hold is {limit}' },
  idempotency_key_reused: { status: 422, message: 'Idempotency-Key {key} was already used with a different request in the last {window_hours} hours' },
  service_busy: { status: 503, message: 'The analysis queue is full; retry in {retry_after} seconds' },
  task_timeout: { status: 503, message: 'The task ran past its time budget of {timeout_ms} ms; retry in {retry_after} seconds' },
  shutting_down: { status: 503, message: 'The service is shutting down; retry on another instance' },
  store_unavailable: { status: 503, message: 'The data store did not answer ({reason}); retry in {retry_after} seconds' },
  internal_error: { status: 500, message: 'Internal error (request id {request_id})' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export type ErrorDetails = Record<string, unknown>;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

/** A refusal raised anywhere on the request path; the adapter turns it into the wire envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetails;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, details?: ErrorDetails, options: { message?: string; headers?: Record<string, string> } = {}) {
    super(options.message ?? renderMessage(ERROR_CODES[code].message, details));
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.details = details;
    this.headers = options.headers;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { error: { code: this.code, message: this.message } };
    if (this.details !== undefined) body.error.details = this.details;
    return body;
  }
}

function renderMessage(template: string, details: ErrorDetails | undefined): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => {
    const value = details?.[key];
    if (value === undefined) return whole === '{reason}' ? 'invalid' : key;
    return Array.isArray(value) ? value.join(', ') : String(value);
  });
}

export function invalidParameter(
  parameter: string,
  value: unknown,
  extra: { valid_values?: readonly string[]; reason?: string; limit?: number } = {},
): ApiError {
  const details: ErrorDetails = { parameter, value: value === undefined ? null : value };
  if (extra.valid_values) details.valid_values = [...extra.valid_values];
  if (extra.reason) details.reason = extra.reason;
  if (extra.limit !== undefined) details.limit = extra.limit;
  const message = extra.reason ? `Invalid value for parameter ${parameter}: ${extra.reason}` : undefined;
  return new ApiError('invalid_parameter', details, { message });
}

/** 503 service_busy: the worker queue is full; retry after a second. */
export function busyError(queueLimit: number): ApiError {
  return new ApiError('service_busy', { retry_after: 1, queue_limit: queueLimit }, { headers: { 'Retry-After': '1' } });
}

export function notFound(resource: string, id: string): ApiError {
  return new ApiError('not_found', { resource, id });
}
