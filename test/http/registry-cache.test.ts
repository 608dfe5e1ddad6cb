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
  const route = service.pipeline.routes[0];
  const keep = (path: string, bytes: number) =>
    cache.keep(path, '', route, {}, Buffer.alloc(bytes), { ETag: cache.etagFor(path, ''), 'Content-Type': 'application/json' });
  for (let i = 0; i < 10; i++) keep(`/k${i}`, 100);
  t.equal(cache.size, 8);
  t.equal(cache.find('/k0', ''), undefined, 'the oldest left');
  t.ok(cache.find('/k2', ''));
  keep('/k10', 100);
  t.ok(cache.find('/k2', ''), 'a recently read answer stays');
  t.equal(cache.find('/k3', ''), undefined, 'the least recently used left');
  keep('/huge', 200);
  t.equal(cache.find('/huge', ''), undefined, 'an answer over an eighth of the budget is not kept');
  const kept = cache.find('/k2', '')!;
  t.same(kept.identity.own, { ETag: cache.etagFor('/k2', ''), 'Content-Type': 'application/json' }, 'its own headers');
  t.same(kept.identity.notModified, { ETag: cache.etagFor('/k2', '') }, 'a 304 leaves out what describes the body');
  // As writeHeader(name, value) takes them: `name: value\r\n` is the block of header lines.
  const rendered = kept.identity.headers!;
  t.equal(`${rendered.name}: ${rendered.value}\r\n`, `ETag: ${cache.etagFor('/k2', '')}\r\nContent-Type: application/json\r\n`, 'rendered once');
  t.equal(cache.etagFor('/k2', 'a=1'), cache.etagFor('/k2', 'a=1'), 'the validator is a function of path and query');
  t.not(cache.etagFor('/k2', 'a=1'), cache.etagFor('/k2', ''));
  t.ok(matchesEtag('*', '"x"'));
  t.ok(matchesEtag('W/"x"', '"x"'));
  t.notOk(matchesEtag(undefined, '"x"'));
});
