/**
 * Gap analyses of thousands of findings (up to 10,000 over all 11 frameworks, 24 MB answers): the
 * worker pool and its full queue, answers written into reused memory, and a slow reader holding
 * its answer while later analyses run. Full lane (package.json, tap.exclude): minutes of CPU on
 * two cores; the contract of each route is in gap-analysis.test.ts.
 */
import t from 'tap';
import { connect } from 'node:net';
import { startTestService, call, type TestService } from '../helpers/service.js';
import { finding, testRegistry } from '../helpers/findings.js';
import { until } from '../helpers/wait.js';

const ALL = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA'];

async function create(service: TestService, key: string, body: unknown) {
  return call(service, 'POST', '/v1/gap-analysis', { key, body });
}

t.test('large analyses go through the worker pool; a full queue answers 503', async (t) => {
  const service = await startTestService({ env: { WORKERS: '1', QUEUE_LIMIT: '1' } });
  t.teardown(() => service.close());
  const key = await service.key('enterprise');
  const ids = testRegistry().signalIds();
  const findings = Array.from({ length: 3000 }, (_, i) => finding(`f-${i}`, ids[i % ids.length], i % 3 ? 'open' : 'false_positive'));
  const one = await create(service, key, { frameworks: ALL, findings });
  t.equal(one.status, 200);
  t.equal(Object.keys(one.body.data.by_framework).length, 11);
  t.equal(one.body.data.summary.findings.submitted, 3000);

  const burst = await Promise.all(Array.from({ length: 6 }, () => create(service, key, { frameworks: ALL, findings })));
  const statuses = burst.map((r) => r.status);
  t.ok(statuses.includes(200), 'some are served');
  const second = burst.find((r) => r.status === 200)!;
  const compared = await call(service, 'POST', '/v1/gap-analysis/compare', { key, body: { baseline_id: one.body.data.id, current_id: second.body.data.id } });
  t.equal(compared.status, 200, 'compare of two large analyses (parsed in the pool)');
  t.same(
    compared.body.data.changes,
    { improved: 0, regressed: 0, new_gaps: 0, resolved: 0, no_longer_assessed: 0 },
    'the same findings twice: nothing changed',
  );
  const busy = burst.find((r) => r.status === 503);
  t.ok(busy, `some are refused while the queue is full (${statuses.join(',')})`);
  t.equal(busy?.body.error.code, 'service_busy');
  t.equal(busy?.headers.get('retry-after'), '1');
});

t.test('answers written into the memory of answers already sent are each whole, their own, and the ones stored', async (t) => {
  const service = await startTestService({ env: { WORKERS: '1' } });
  t.teardown(() => service.close());
  const key = await service.key('enterprise');
  const ids = testRegistry().signalIds();
  // Above the inline size, so every one runs in the worker; sizes alternate so that answers land
  // in larger memory than they need, and outgrow what they are given.
  const bodyOf = (count: number) => ({
    frameworks: ALL,
    findings: Array.from({ length: count }, (_, i) => finding(`n${count}-${i}`, ids[(i * 31) % ids.length])),
  });
  // With ?variant=a the answer is cut from the stored one into memory of its own, which also goes
  // to the workers once sent.
  const check = async (res: Awaited<ReturnType<typeof create>>, count: number, label: string, query = '') => {
    t.equal(res.status, 200, label);
    t.equal(res.body.data.summary.findings.submitted, count, `${label}: the answer to its own request`);
    const stored = await call(service, 'GET', `/v1/gap-analysis/${res.body.data.analysis_id}${query}`, { key });
    t.equal(stored.text, res.text, `${label}: the stored answer is the one sent`);
  };
  for (const count of [900, 150, 400]) await check(await create(service, key, bodyOf(count)), count, `one at a time, ${count} findings`);
  const { answerBuffers } = service.services.pool;
  const kept = answerBuffers.take();
  t.ok(kept && kept.byteLength > 0, 'a sent answer leaves its memory to the pool');
  answerBuffers.give(kept!);

  const counts = [700, 120, 1000, 60, 300, 850, 200, 500];
  // Some compressed (the answer is read again after the store, by the compressor), some not.
  const queryOf = (i: number) => (i % 4 === 1 ? '?variant=a' : '');
  const answers = await Promise.all(
    counts.map((count, i) => {
      const headers: Record<string, string> = i % 3 === 0 ? { 'accept-encoding': 'gzip' } : {};
      return call(service, 'POST', `/v1/gap-analysis${queryOf(i)}`, { key, body: bodyOf(count), headers });
    }),
  );
  for (const [i, res] of answers.entries()) await check(res, counts[i], `${counts[i]} findings, eight at once${queryOf(i)}`, queryOf(i));
  // And again, now that variants' memory has gone back to the workers too.
  const again = await Promise.all(counts.map((count, i) => call(service, 'POST', `/v1/gap-analysis${queryOf(i + 1)}`, { key, body: bodyOf(count) })));
  for (const [i, res] of again.entries()) await check(res, counts[i], `${counts[i]} findings, eight at once again${queryOf(i + 1)}`, queryOf(i + 1));
});

/**
 * POST from a client that reads nothing of the answer until `resume` resolves (a raw socket with
 * no reader: the kernel holds what it can, the server the rest), then reads it whole.
 */
function slowPost(service: TestService, path: string, key: string, body: unknown, resume: Promise<void>): Promise<{ status: number; text: string }> {
  const bytes = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
    socket.on('error', reject);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(bytes);
    void resume.then(() => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => {
        const answer = Buffer.concat(chunks);
        const headEnd = answer.indexOf('\r\n\r\n');
        const head = answer.toString('latin1', 0, headEnd);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
        const text = answer.toString('utf8', headEnd + 4);
        resolve({
          status: Number(head.split(' ')[1]),
          text: Buffer.byteLength(text) === length ? text : `(${Buffer.byteLength(text)} of ${length} bytes) ${text}`,
        });
      });
    });
  });
}

t.test('an answer still being sent to a slow reader keeps its memory while later analyses run', async (t) => {
  const ids = testRegistry().signalIds();
  const bodyOf = (count: number, salt: string) => ({
    frameworks: ALL,
    findings: Array.from({ length: count }, (_, i) => finding(`${salt}-${i}`, ids[(i * 31 + salt.length) % ids.length])),
  });
  for (const query of ['', '?variant=b']) {
    // A service of its own for each, so that the pool has room for the memory of the answer sent
    // slowly, were it given back too soon (the later analyses would then take it from under it).
    const service = await startTestService({ env: { WORKERS: '1' } });
    t.teardown(() => service.close());
    const key = await service.key('enterprise');
    let release!: () => void;
    const resume = new Promise<void>((done) => (release = done));
    // 24 MB (16 MB as Variant B): more than the sockets hold while the reader waits.
    const slow = slowPost(service, `/v1/gap-analysis${query}`, key, bodyOf(10_000, 'slow'), resume);
    // Until it is stored: its answer is then being sent, and waits for the reader.
    await until(async () => (await call(service, 'GET', '/v1/gap-analysis/summary', { key })).body.meta.total > 0, 'the slow answer is stored');
    // Meanwhile analyses of other findings take whatever answer memory the pool has been given.
    const others = await Promise.all(
      [1200, 2500, 800, 3000].map((count, i) => call(service, 'POST', `/v1/gap-analysis${query}`, { key, body: bodyOf(count, `other${i}`) })),
    );
    t.ok(
      others.every((res) => res.status === 200),
      `${query || 'union'}: the other analyses answered`,
    );
    release();
    const answer = await slow;
    t.equal(answer.status, 200);
    const { data } = JSON.parse(answer.text);
    const id = data.analysis_id ?? data.id;
    const stored = await call(service, 'GET', `/v1/gap-analysis/${id}${query}`, { key });
    t.ok(answer.text.length > 12_000_000, `${query || 'union'}: a large answer (${answer.text.length} bytes)`);
    t.equal(answer.text, stored.text, `${query || 'union'}: the slow reader got its own answer, whole`);
  }
});
