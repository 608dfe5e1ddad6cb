import t from 'tap';
import { brokenInvariant } from './lib/invariants.js';
import { documentedErrorCodes } from './lib/harness.js';
import { Ref } from './lib/json-text.js';
import type { FuzzCase } from './lib/operations.js';

// The checks the fuzz suite applies to every answer must catch what they are there to catch.
const documented = documentedErrorCodes();
const request: FuzzCase = {
  operation: 'POST /v1/signals/bulk',
  method: 'POST',
  segments: ['v1', 'signals', 'bulk'],
  query: [],
  caller: 'pro',
  contentType: 'application/json',
  body: { kind: 'json', tree: { ids: [] }, label: 'valid' },
};
const answer = (status: number, body: unknown) => ({ status, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
const bulkCodes = new Set(['invalid_parameter', 'invalid_json', 'json_too_deep', 'rate_limited', 'unauthorized']);

t.test('answers that pass', async (t) => {
  t.equal(brokenInvariant(request, answer(200, { data: [] }), documented, bulkCodes), undefined, '200');
  t.equal(
    brokenInvariant(
      request,
      answer(400, { error: { code: 'invalid_parameter', message: 'Invalid value for parameter ids', details: { parameter: 'ids' } } }),
      documented,
      bulkCodes,
    ),
    undefined,
    'a documented 400',
  );
  t.equal(
    brokenInvariant(request, answer(404, { error: { code: 'not_found', message: 'Path not found: /x' } }), documented, bulkCodes),
    undefined,
    'routing codes on any operation',
  );
  const batch = { ...request, operation: 'POST /v1/validate/batch' };
  t.equal(
    brokenInvariant(
      batch,
      answer(503, { error: { code: 'service_busy', message: 'busy', details: { retry_after: 1 } } }),
      documented,
      new Set(['service_busy']),
    ),
    undefined,
    'a full queue, on an operation that uses the pool',
  );
  t.match(
    brokenInvariant(request, answer(503, { error: { code: 'service_busy', message: 'busy' } }), documented, bulkCodes),
    /not among the codes/,
    'but not on one that does not',
  );
  t.equal(
    brokenInvariant({ ...request, operation: 'GET /readyz', method: 'GET' }, answer(503, { status: 'starting' }), documented),
    undefined,
    'readiness while starting',
  );
});

t.test('answers that break an invariant', async (t) => {
  t.match(brokenInvariant(request, answer(500, { error: { code: 'internal_error', message: 'Internal error' } }), documented, bulkCodes), /500 answered/);
  t.match(brokenInvariant(request, answer(502, 'Bad gateway'), documented, bulkCodes), /without a JSON body/);
  t.match(brokenInvariant(request, answer(503, { error: { code: 'task_timeout', message: 'slow' } }), documented, bulkCodes), /503 answered \(task_timeout\)/);
  t.match(brokenInvariant(request, answer(400, { message: 'bad' }), documented, bulkCodes), /not the error envelope/);
  t.match(
    brokenInvariant(request, answer(400, { error: { code: 'invalid_parameter', message: 'x' }, extra: 1 }), documented, bulkCodes),
    /not the error envelope/,
  );
  t.match(
    brokenInvariant(request, answer(400, { error: { code: 'invalid_parameter', message: 'x', stack: 'at …' } }), documented, bulkCodes),
    /beyond code, message, details/,
  );
  t.match(brokenInvariant(request, answer(400, { error: { code: 'invalid_parameter', message: '' } }), documented, bulkCodes), /non-empty strings/);
  t.match(
    brokenInvariant(request, answer(400, { error: { code: 'invalid_parameter', message: 'x', details: ['a'] } }), documented, bulkCodes),
    /details must be an object/,
  );
  t.match(brokenInvariant(request, answer(400, { error: { code: 'made_up', message: 'x' } }), documented, bulkCodes), /not in docs\/errors\.md/);
  t.match(brokenInvariant(request, answer(404, { error: { code: 'invalid_parameter', message: 'x' } }), documented, bulkCodes), /docs\/errors\.md says 400/);
  t.match(
    brokenInvariant(request, answer(400, { error: { code: 'GAP_INVALID_FINDING', message: 'x' } }), documented, bulkCodes),
    /not among the codes the OpenAPI document lists/,
  );
  const foreign: FuzzCase = {
    ...request,
    operation: 'GET /v1/gap-analysis/{id}',
    method: 'GET',
    segments: ['v1', 'gap-analysis', new Ref('foreign-analysis')],
    body: undefined,
  };
  t.match(brokenInvariant(foreign, answer(200, { data: {} }), documented), /another account's analysis/);
  t.equal(
    brokenInvariant(foreign, answer(404, { error: { code: 'GAP_NOT_FOUND', message: 'x' } }), documented),
    undefined,
    "another account's analysis is not found",
  );
});
