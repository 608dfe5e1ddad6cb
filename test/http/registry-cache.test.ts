import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { RegistryAnswerCache, matchesEtag } from '../../src/http/registry-cache.js';

const service = await startTestService();
t.teardown(() => service.close());
const key = await service.key('teams');

t.test('registry reads carry a strong ETag and Cache-Control; If-None-Match gets 304', async (t) => {
  // Identity here: the coded forms' validators are the subject of the compression test.
  const identity = { 'accept-encoding': 'identity' };
  const first = await call(service, 'GET', '/v1/signals?per_page=3', { key, headers: identity });
  t.equal(first.status, 200);
  const etag = first.headers.get('etag')!;
  t.match(etag, /^"[0-9a-f]{16}-[A-Za-z0-9_-]{22}"$/, 'strong: registry content hash and request');
  t.ok(etag.startsWith(`"${service.services.registry.manifest.content_hash.slice(0, 16)}`));
  t.equal(first.headers.get('cache-control'), 'private, max-age=3600');

  const again = await call(service, 'GET', '/v1/signals?per_page=3', { key, headers: identity });
  t.equal(again.text, first.text, 'the kept answer is the same bytes');
  t.equal(again.headers.get('etag'), etag);
  t.not(again.headers.get('x-request-id'), first.headers.get('x-request-id'), 'per-request headers are fresh');
  t.equal(Number(again.headers.get('x-ratelimit-remaining')), Number(first.headers.get('x-ratelimit-remaining')) - 1, 'and every read counts');

  const notModified = await call(service, 'GET', '/v1/signals?per_page=3', { key, headers: { ...identity, 'if-none-match': `"other", ${etag}` } });
  t.equal(notModified.status, 304);
  t.equal(notModified.text, '');
  t.equal(notModified.headers.get('etag'), etag);
  t.equal(notModified.headers.get('content-length'), null, 'no Content-Length of its own');
  t.ok(notModified.headers.get('x-ratelimit-remaining'), 'rate-limit headers on 304 too');

  const otherQuery = await call(service, 'GET', '/v1/signals?per_page=4', { key, headers: identity });
  t.not(otherQuery.headers.get('etag'), etag, 'another query is another answer');
  const stale = await call(service, 'GET', '/v1/signals?per_page=4', { key, headers: { ...identity, 'if-none-match': etag } });
  t.equal(stale.status, 200, 'a validator of another request does not match');
});

t.test('errors are not kept and carry no validators; a bad query is still refused', async (t) => {
  const missing = await call(service, 'GET', '/v1/signals/CSR-NOT-THERE-001', { key });
  t.equal(missing.status, 404);
  t.equal(missing.headers.get('etag'), null);
  t.equal(missing.headers.get('cache-control'), null);
  const bad = await call(service, 'GET', '/v1/signals?per_page=0x10', { key });
  t.equal(bad.status, 400);
  t.equal((await call(service, 'GET', '/v1/signals?per_page=0x10', { key })).status, 400, 'every time');
});

t.test('HEAD of a kept answer: same headers, no body', async (t) => {
  const get = await call(service, 'GET', '/v1/stats', { key });
  const head = await call(service, 'HEAD', '/v1/stats', { key });
  t.equal(head.status, 200);
  t.equal(head.headers.get('etag'), get.headers.get('etag'));
  t.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.text)));
});

t.test('the cache is bounded by bytes, least recently used first out', async (t) => {
  const cache = new RegistryAnswerCache('a'.repeat(64), 800);
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, Buffer.alloc(100), cache.etagOf(`k${i}`));
  t.equal(cache.size, 8);
  t.equal(cache.get('k0'), undefined, 'the oldest left');
  t.ok(cache.get('k2'));
  cache.set('k10', Buffer.alloc(100), '"x"');
  t.ok(cache.get('k2'), 'a recently read answer stays');
  t.equal(cache.get('k3'), undefined, 'the least recently used left');
  cache.set('huge', Buffer.alloc(200), '"y"');
  t.equal(cache.get('huge'), undefined, 'an answer over an eighth of the budget is not kept');
  t.ok(matchesEtag('*', '"x"'));
  t.ok(matchesEtag('W/"x"', '"x"'));
  t.notOk(matchesEtag(undefined, '"x"'));
});
