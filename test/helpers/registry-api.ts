import { call, type CallResult } from './service.js';

/** The assertions the registry API tests use (structural, so both `t` and subtests fit). */
export interface Asserts {
  equal: (...args: any[]) => boolean;
  same: (...args: any[]) => boolean;
  ok: (...args: any[]) => boolean;
  match: (...args: any[]) => boolean;
}

export interface Client {
  get(path: string): Promise<CallResult>;
  post(path: string, body: unknown): Promise<CallResult>;
}

export function client(service: { url: string }, key: string): Client {
  return {
    get: (path) => call(service, 'GET', path, { key }),
    post: (path, body) => call(service, 'POST', path, { key, body }),
  };
}

/** 400 invalid_parameter naming `parameter`; checks valid_values and value when given. */
export function expectInvalid(
  t: Asserts,
  res: CallResult,
  parameter: string,
  expected: { valid_values?: readonly string[]; value?: unknown; limit?: number } = {},
): void {
  t.equal(res.status, 400, `${parameter}: 400`);
  t.equal(res.body?.error?.code, 'invalid_parameter', `${parameter}: invalid_parameter`);
  t.equal(res.body?.error?.details?.parameter, parameter, `names ${parameter}`);
  if (expected.valid_values) t.same(res.body?.error?.details?.valid_values, expected.valid_values, `${parameter}: valid_values`);
  if ('value' in expected) t.same(res.body?.error?.details?.value, expected.value, `${parameter}: value echoed`);
  if (expected.limit !== undefined) t.equal(res.body?.error?.details?.limit, expected.limit, `${parameter}: limit`);
}

/** 404 not_found whose message names the resource and the id. */
export function expectNotFound(t: Asserts, res: CallResult, resource: string, id: string): void {
  t.equal(res.status, 404, `${resource} ${id}: 404`);
  t.equal(res.body?.error?.code, 'not_found');
  t.equal(res.body?.error?.message, `${resource} not found: ${id}`);
  t.same(res.body?.error?.details, { resource, id });
}

export function expectTierRequired(t: Asserts, res: CallResult, required: string, current: string): void {
  t.equal(res.status, 403, `tier gate: 403 for ${current}`);
  t.equal(res.body?.error?.code, 'tier_required');
  t.same(res.body?.error?.details, { required_tier: required, current_tier: current });
}

export function sortedKeys(value: object): string[] {
  return Object.keys(value).sort();
}
