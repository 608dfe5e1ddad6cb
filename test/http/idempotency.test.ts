import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';

t.test('Idempotency-Key on POST /v1/gap-analysis', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('teams', 'idem-acme');
  const otherKey = await service.key('teams', 'idem-rival');
  const [s1, s2] = primarySignals('HIPAA', 2);
  const body = { frameworks: ['HIPAA'], findings: [finding('f-1', s1.signal_id, 'open')] };
  const post = (k: string, headers: Record<string, string>, payload: unknown = body) =>
    call(service, 'POST', '/v1/gap-analysis', { key: k, body: payload, headers });

  const first = await post(key, { 'idempotency-key': 'order-7f3a' });
  t.equal(first.status, 200, first.text.slice(0, 200));
  t.equal(first.headers.get('idempotent-replayed'), null, 'the first answer is not a replay');

  const retry = await post(key, { 'idempotency-key': 'order-7f3a' });
  t.equal(retry.status, 200);
  t.equal(retry.text, first.text, 'a retry answers the stored bytes');
  t.equal(retry.headers.get('idempotent-replayed'), 'true', 'and says it is a replay');
  t.equal(retry.headers.get('x-analysis-expires-at'), first.headers.get('x-analysis-expires-at'));

  const changed = await post(key, { 'idempotency-key': 'order-7f3a' }, { ...body, findings: [finding('f-1', s2.signal_id, 'open')] });
  t.equal(changed.status, 422, 'the same key with another body is refused');
  t.equal(changed.body.error.code, 'idempotency_key_reused');
  t.same(changed.body.error.details, { key: 'order-7f3a', window_hours: 24, operation: 'POST /v1/gap-analysis' });

  const rival = await post(otherKey, { 'idempotency-key': 'order-7f3a' });
  t.equal(rival.status, 200, 'keys are per account');
  t.not(rival.body.data.id, first.body.data.id);
  t.equal(rival.headers.get('idempotent-replayed'), null);

  const bad = await post(key, { 'idempotency-key': 'has space' });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.details.parameter, 'Idempotency-Key', 'a malformed key names the header');
  t.equal((await post(key, { 'idempotency-key': 'x'.repeat(256) })).status, 400, 'at most 255 characters');

  const racing = await Promise.all(Array.from({ length: 4 }, () => post(key, { 'idempotency-key': 'race-1' })));
  t.same(
    racing.map((r) => r.status),
    [200, 200, 200, 200],
  );
  t.equal(new Set(racing.map((r) => r.body.data.id)).size, 1, 'simultaneous requests with one key store one analysis and answer it to all');
  t.equal(racing.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 3);

  const invalid = await post(key, { 'idempotency-key': 'bad-1' }, { frameworks: ['NOPE'], findings: [] });
  t.equal(invalid.status, 400, 'a refused request stores nothing under its key');
  const fixed = await post(key, { 'idempotency-key': 'bad-1' });
  t.equal(fixed.status, 200, 'so the key can carry the corrected request');

  const plain = await post(key, {});
  t.not(plain.body.data.id, first.body.data.id, 'without the header every POST creates');
  const list = await call(service, 'GET', '/v1/gap-analysis/summary', { key });
  t.equal(list.body.meta.total, 4, 'order-7f3a, race-1, bad-1 and the plain one: nothing stored twice');
});
