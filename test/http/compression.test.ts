/**
 * Compression by Accept-Encoding (docs/api.md, "Compression"): brotli and gzip for JSON answers
 * from the threshold on, identity otherwise; Vary on JSON answers; one strong ETag per coding.
 * Raw node:http requests, so that the bytes on the wire are what the test sees.
 */
import t from 'tap';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestService, call } from '../helpers/service.js';
import { chooseCoding, type ContentCoding } from '../../src/http/compression.js';
import type { RegistryAnswerCache } from '../../src/http/registry-cache.js';
import { answerOf, compressedForm } from '../../src/store/result-codec.js';
import { INLINE_ANALYSIS_MAX_BYTES } from '../../src/api/gap-analysis.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

// One service with the default threshold for the file; COMPRESS_MIN_BYTES=0 gets its own below.
const service = await startTestService();
t.teardown(() => service.close());

/** Resolves once the pipeline has kept the compressed forms of a registry answer in both codings. */
function keptInBothCodings(): Promise<void> {
  const cache = (service.pipeline as unknown as { answers: RegistryAnswerCache }).answers;
  const keepCoded = cache.keepCoded.bind(cache);
  const kept = new Set<ContentCoding>();
  return new Promise((resolve) => {
    cache.keepCoded = (url, query, coding, body, headers) => {
      keepCoded(url, query, coding, body, headers);
      kept.add(coding);
      if (kept.size === 2) {
        cache.keepCoded = keepCoded;
        resolve();
      }
    };
  });
}

const decode = (r: Raw) =>
  r.headers['content-encoding'] === 'br' ? brotliDecompressSync(r.body) : r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body;

t.test('Accept-Encoding is read as RFC 9110 says', async (t) => {
  t.equal(chooseCoding(undefined), undefined);
  t.equal(chooseCoding('gzip, deflate, br'), 'br', 'brotli first on a tie');
  t.equal(chooseCoding('gzip;q=1, br;q=0.5'), 'gzip', 'the higher q wins');
  t.equal(chooseCoding('br;q=0, gzip'), 'gzip', 'q=0 refuses');
  t.equal(chooseCoding('br;q=0, gzip;q=0'), undefined);
  t.equal(chooseCoding('identity'), undefined);
  t.equal(chooseCoding('*'), 'br', '* accepts any coding');
  t.equal(chooseCoding('*;q=0.5, br;q=0'), 'gzip', 'a coding refused by name stays refused under *');
  t.equal(chooseCoding('deflate'), undefined, 'deflate is not offered');
  t.equal(chooseCoding('GZIP ; Q=0.8'), 'gzip', 'case and spaces do not matter');
});

t.test('registry answers: each coding decodes to the identity bytes, with its own validator', async (t) => {
  const key = await service.key('teams');
  const url = `${service.url}/v1/signals?per_page=50`;
  const auth = { authorization: `Bearer ${key}` };

  // The first answer in a coding is compressed for its request; the pipeline then keeps the
  // answer's compressed forms, and later answers are those bytes (one validator, one byte sequence).
  const kept = keptInBothCodings();
  const first = await raw(url, 'GET', { ...auth, 'accept-encoding': 'br' });
  t.equal(first.headers['content-encoding'], 'br', 'the first answer, compressed for its request');
  await kept;
  const identity = await raw(url, 'GET', { ...auth, 'accept-encoding': 'identity' });
  t.equal(identity.status, 200);
  t.equal(identity.headers['content-encoding'], undefined);
  t.equal(identity.headers.vary, 'Accept-Encoding');
  t.ok(identity.body.length > 1024, 'large enough to compress');

  for (const coding of ['br', 'gzip'] as const) {
    for (let attempt = 0; attempt < 2; attempt++) {
      const coded = await raw(url, 'GET', { ...auth, 'accept-encoding': coding });
      t.equal(coded.status, 200);
      t.equal(coded.headers['content-encoding'], coding, `${coding}: Content-Encoding`);
      t.equal(coded.headers.vary, 'Accept-Encoding');
      t.ok(coded.body.length < identity.body.length / 2, `${coding}: smaller on the wire`);
      t.same(decode(coded), identity.body, `${coding}: decodes to the identity bytes`);
      t.equal(coded.headers.etag, `${(identity.headers.etag as string).slice(0, -1)}-${coding}"`, `${coding}: a validator of its own`);
      if (coding === 'br') t.same(coded.body, first.body, 'br: the kept form is the bytes first sent');
    }
    const etag = `${(identity.headers.etag as string).slice(0, -1)}-${coding}"`;
    const notModified = await raw(url, 'GET', { ...auth, 'accept-encoding': coding, 'if-none-match': etag });
    t.equal(notModified.status, 304, `${coding}: its validator gets 304`);
    t.equal(notModified.headers.etag, etag);
  }
  const head = await fetch(url, { method: 'HEAD', headers: { ...auth, 'accept-encoding': 'br' } });
  t.equal(head.headers.get('content-encoding'), 'br', 'HEAD says what GET sends');

  const small = await raw(`${service.url}/v1/frameworks/HIPAA`, 'GET', { ...auth, 'accept-encoding': 'br' });
  t.ok(small.body.length < 1024 || small.headers['content-encoding'] === 'br', 'the threshold decides');
  const error = await raw(`${service.url}/v1/signals/CSR-NOT-THERE-001`, 'GET', { ...auth, 'accept-encoding': 'br' });
  t.equal(error.status, 404);
  t.equal(error.headers['content-encoding'], undefined, 'a small error goes as it is');
});

t.test('analysis results are compressed off the HTTP thread', async (t) => {
  const key = await service.key('enterprise');
  const signals = (await call(service, 'GET', '/v1/signals?domain=HIPAA&per_page=20', { key })).body.data as Array<{ id: string }>;
  const findings = signals.map((s, i) => ({ id: `f-${i}`, signal_id: s.id, status: 'open', observed_at: '2026-11-20T10:00:00Z' }));
  const body = JSON.stringify({ frameworks: ['HIPAA', 'SOC2'], findings });
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await raw(`${service.url}/v1/gap-analysis`, 'POST', { ...auth, 'accept-encoding': 'gzip' }, body);
  t.equal(created.status, 200);
  t.equal(created.headers['content-encoding'], 'gzip');
  const result = JSON.parse(decode(created).toString());
  const id = result.data.id as string;
  const stored = await raw(`${service.url}/v1/gap-analysis/${id}`, 'GET', { authorization: auth.authorization, 'accept-encoding': 'br;q=1, gzip;q=0.5' });
  t.equal(stored.headers['content-encoding'], 'br');
  t.same(JSON.parse(decode(stored).toString()).data.id, id, 'the stored result, decoded');
  const plain = await raw(`${service.url}/v1/gap-analysis/${id}`, 'GET', { authorization: auth.authorization });
  t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: identity');
  t.equal(plain.headers.vary, 'Accept-Encoding');
  t.same(plain.body, decode(stored));
});

t.test('an analysis is compressed once, for the store: a br client is sent those bytes', async (t) => {
  const key = await service.key('enterprise', 'stored-br');
  const signals = (await call(service, 'GET', '/v1/signals?per_page=50', { key })).body.data as Array<{ id: string }>;
  // Past the inline size, so the analysis runs in the pool.
  const findings = Array.from({ length: 200 }, (_, i) => ({
    id: `f-${i}`,
    signal_id: signals[i % signals.length].id,
    status: 'open',
    observed_at: '2026-11-20T10:00:00Z',
  }));
  const body = JSON.stringify({ frameworks: ['HIPAA', 'SOC2', 'PCI-DSS'], findings });
  t.ok(body.length > INLINE_ANALYSIS_MAX_BYTES);
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await raw(`${service.url}/v1/gap-analysis`, 'POST', { ...auth, 'accept-encoding': 'br', 'idempotency-key': 'stored-br-1' }, body);
  t.equal(created.status, 200, 'created');
  t.equal(created.headers['content-encoding'], 'br');
  t.equal(created.headers.vary, 'Accept-Encoding');
  const answer = decode(created);
  const id = JSON.parse(answer.toString()).data.id as string;
  const { analyses, now } = service.services;
  const stored = (await analyses.get(id, 'stored-br', now())).payload;
  t.same(created.body, compressedForm(stored)?.brotli, 'the body is the stored brotli stream');
  t.same(await answerOf(stored), answer, 'which holds the answer');
  const again = await raw(`${service.url}/v1/gap-analysis/${id}`, 'GET', { authorization: auth.authorization, 'accept-encoding': 'gzip;q=0.5, br' });
  t.same([again.headers['content-encoding'], again.headers.vary], ['br', 'Accept-Encoding']);
  t.same(again.body, created.body, 'a GET in br: the same bytes');
  const retried = await raw(`${service.url}/v1/gap-analysis`, 'POST', { ...auth, 'accept-encoding': 'br', 'idempotency-key': 'stored-br-1' }, body);
  t.equal(retried.headers['idempotent-replayed'], 'true');
  t.same(retried.body, created.body, 'an idempotent retry in br: the same bytes');
  const retriedPlain = await raw(`${service.url}/v1/gap-analysis`, 'POST', { ...auth, 'idempotency-key': 'stored-br-1' }, body);
  t.same(retriedPlain.body, answer, 'and in identity, the answer');
  const plain = await raw(`${service.url}/v1/gap-analysis/${id}`, 'GET', { authorization: auth.authorization });
  t.same(plain.body, answer, 'in identity: the answer decompressed');
  const gzip = await raw(`${service.url}/v1/gap-analysis/${id}`, 'GET', { authorization: auth.authorization, 'accept-encoding': 'gzip' });
  t.equal(gzip.headers['content-encoding'], 'gzip');
  t.same(decode(gzip), answer, 'in gzip: compressed from the answer');
  const variant = await raw(`${service.url}/v1/gap-analysis/${id}?variant=a`, 'GET', { authorization: auth.authorization, 'accept-encoding': 'br' });
  t.equal(variant.headers['content-encoding'], 'br');
  t.ok(decode(variant).length < answer.length, 'one variant: cut from the answer, then compressed');
});

t.test('COMPRESS_MIN_BYTES=0 turns compression off', async (t) => {
  const service = await startTestService({ env: { COMPRESS_MIN_BYTES: '0' } });
  t.teardown(() => service.close());
  const key = await service.key('teams');
  const answer = await raw(`${service.url}/v1/signals?per_page=50`, 'GET', { authorization: `Bearer ${key}`, 'accept-encoding': 'br, gzip' });
  t.equal(answer.status, 200);
  t.equal(answer.headers['content-encoding'], undefined);
  t.equal(answer.headers.vary, undefined, 'nothing varies then');
  const signalId = (JSON.parse(answer.body.toString()).data as Array<{ id: string }>)[0].id;
  const body = JSON.stringify({ frameworks: ['HIPAA'], findings: [{ id: 'f-1', signal_id: signalId, status: 'open', observed_at: '2026-11-20T10:00:00Z' }] });
  const created = await raw(
    `${service.url}/v1/gap-analysis`,
    'POST',
    { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'accept-encoding': 'br' },
    body,
  );
  t.equal(created.status, 200);
  t.equal(created.headers['content-encoding'], undefined, 'an analysis, though stored compressed, is sent as it is');
  t.equal(JSON.parse(created.body.toString()).data.frameworks_requested[0], 'HIPAA');
});
