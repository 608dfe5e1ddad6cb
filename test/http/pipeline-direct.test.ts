/**
 * The pipeline without a socket: each request below is answered once through uWS on a real port
 * and once handed straight to `Pipeline.admit` (test/helpers/direct.ts), and the two answers
 * agree: status, the headers a client reads, and the body (less what is new on each answer: request
 * ids, analysis ids and times). What the adapter adds on its own (Content-Length, Date, the
 * connection) is the adapter's, tested over sockets elsewhere.
 */
import t from 'tap';
import { startTestService, call, type CallResult } from '../helpers/service.js';
import { callDirect } from '../helpers/direct.js';
import { finding, primarySignals } from '../helpers/findings.js';

const service = await startTestService();
t.teardown(() => service.close());
const pro = await service.key('pro');
const teams = await service.key('teams');
const community = await service.key('community');
const [a, b] = primarySignals('HIPAA', 2);
const firstSignal = (await call(service, 'GET', '/v1/signals?per_page=1', { key: teams })).body.data[0].id as string;

type Options = Parameters<typeof call>[3];
const cases: Array<[string, string, string, Options]> = [
  ['a registry list', 'GET', '/v1/signals?per_page=5', { key: teams }],
  ['a registry read', 'GET', `/v1/signals/${firstSignal}`, { key: teams }],
  ['a registry read in brotli', 'GET', '/v1/signals?per_page=50', { key: teams, headers: { 'accept-encoding': 'br' } }],
  ['a bad query parameter', 'GET', '/v1/signals?per_page=0', { key: teams }],
  ['an unknown signal', 'GET', '/v1/signals/CSR-NOT-THERE-001', { key: teams }],
  ['no key', 'GET', '/v1/frameworks', {}],
  ['a tier gate', 'GET', '/v1/controls', { key: community }],
  ['an unknown path', 'GET', '/v1/nothing-here', { key: pro }],
  ['a method no route has', 'DELETE', '/v1/signals', { key: pro }],
  ['HEAD where GET is answered', 'HEAD', '/v1/frameworks', { key: pro }],
  ['broken JSON', 'POST', '/v1/signals/bulk', { key: pro, rawBody: '{"ids": [', headers: { 'content-type': 'application/json' } }],
  ['a media type not taken', 'POST', '/v1/signals/bulk', { key: pro, rawBody: '<ids/>', headers: { 'content-type': 'application/xml' } }],
  [
    'a body over the limit',
    'POST',
    '/v1/signals/bulk',
    { key: pro, rawBody: JSON.stringify({ ids: ['x'.repeat(service.services.config.bodyLimitBytes)] }), headers: { 'content-type': 'application/json' } },
  ],
  ['a bulk read', 'POST', '/v1/signals/bulk', { key: pro, body: { ids: [firstSignal, 'CSR-NOT-THERE-001'] } }],
  ['an invalid finding', 'POST', '/v1/gap-analysis', { key: pro, body: { frameworks: ['HIPAA'], findings: [finding('f', a.signal_id, 'done')] } }],
  [
    'a gap analysis',
    'POST',
    '/v1/gap-analysis',
    { key: pro, body: { frameworks: ['HIPAA'], findings: [finding('f-1', a.signal_id), finding('f-2', b.signal_id, 'false_positive')] } },
  ],
];

/** What must agree between the two answers: the new-per-answer values replaced by their kind. */
function comparable(answer: CallResult) {
  const headers: Record<string, string | null> = {};
  for (const name of ['content-type', 'content-encoding', 'etag', 'cache-control', 'vary', 'allow', 'x-ratelimit-limit', 'retry-after'])
    headers[name] = answer.headers.get(name);
  const volatile = new Set(['id', 'analysis_id', 'request_id', 'created_at', 'expires_at', 'processing_time_ms', 'timestamp']);
  const body = answer.text ? JSON.parse(answer.text, (key, value) => (volatile.has(key) ? typeof value : value)) : answer.text;
  return { status: answer.status, headers, body };
}

for (const [name, method, path, given] of cases) {
  t.test(`${name}: ${method} ${path.slice(0, 60)}`, async (t) => {
    // fetch offers gzip unless told otherwise: both ask for the same coding.
    const options = { ...given, headers: { 'accept-encoding': 'identity', ...given?.headers } };
    const overSocket = await call(service, method, path, options);
    const direct = await callDirect(service, method, path, options);
    t.same(comparable(direct), comparable(overSocket), 'the same answer with and without a socket');
    t.ok(direct.headers.get('x-request-id'), 'a request id of its own');
  });
}
