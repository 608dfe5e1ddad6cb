import t from 'tap';
import { connect, type Socket } from 'node:net';
import { startTestService, call } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';
import type { PoolTurn } from '../../src/pool.js';
import { INLINE_ANALYSIS_MAX_BYTES } from '../../src/api/gap-analysis.js';
import { until } from '../helpers/wait.js';

// A body that may go to the pool is read only once its request has a turn there (src/pool.ts):
// one worker thread gives two turns, and QUEUE_LIMIT=1 lets one more request wait for a turn.
const service = await startTestService({ env: { WORKERS: '1', QUEUE_LIMIT: '1', TASK_TIMEOUT_MS: '20000' } });
t.teardown(() => service.close());
const key = await service.key('enterprise');
const [{ signal_id }] = primarySignals('HIPAA', 1);
const body = Buffer.from(JSON.stringify({ frameworks: ['HIPAA'], findings: Array.from({ length: 300 }, (_, i) => finding(`f-${i}`, signal_id)) }));
if (body.length <= INLINE_ANALYSIS_MAX_BYTES) throw new Error('the body must be large enough to go to the pool');
// More than the first read of a socket takes: uWS's idle timeout closes a socket whose request
// body is still coming in (one that has sent it all is not timed out).
const largeBody = Buffer.concat([body, Buffer.alloc(3_000_000, ' ')]);

/** A request on a raw socket: its headers now, its body when the test says; the answer as text once complete. */
function openRequest(payload = body) {
  const socket: Socket = connect(service.port, '127.0.0.1');
  socket.write(
    `POST /v1/gap-analysis HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`,
  );
  let received = '';
  let answeredAt = 0;
  const answer = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk) => {
      received += chunk.toString();
      const end = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1]);
      if (end >= 0 && received.length >= end + 4 + length) {
        answeredAt = Date.now();
        resolve(received);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed before an answer: ${received}`)));
  });
  answer.catch(() => undefined);
  return {
    answer,
    get answeredAt() {
      return answeredAt;
    },
    sendBody: () => socket.write(payload),
    close: () => socket.destroy(),
  };
}
const statusOf = (answer: string) => Number(answer.slice(9, 12));

// The turns as the pipeline takes and gives them back, counted, so that the cases wait for the
// service to reach a state rather than for time to pass.
const { pool } = service.services;
const turns = { asked: 0, granted: 0, released: 0 };
const takeTurn = pool.takeTurn.bind(pool);
pool.takeTurn = (closed) => {
  turns.asked++;
  // A turn is given back by its release, or by its client leaving (the pool listens to `closed`).
  const track = (turn: PoolTurn): PoolTurn => {
    turns.granted++;
    let released = false;
    const given = () => {
      if (!released) turns.released++;
      released = true;
    };
    if (closed.aborted) given();
    else closed.addEventListener('abort', given, { once: true });
    return {
      release() {
        given();
        turn.release();
      },
    };
  };
  const turn = takeTurn(closed);
  return turn instanceof Promise ? turn.then(track) : track(turn);
};
const held = () => turns.granted - turns.released;

t.test('with both turns held, a request waits unread, longer than uWS idles, and a fourth is refused at once', async (t) => {
  // The turns taken here as two requests would take them (a request's body must arrive within
  // uWS's idle timeout, so real holders cannot keep theirs that long).
  const held = [service.services.pool.takeTurn(new AbortController().signal), service.services.pool.takeTurn(new AbortController().signal)];
  if (held.some((turn) => turn instanceof Promise)) throw new Error('both turns must be free at the start');
  const waiting = openRequest(largeBody);
  waiting.sendBody();
  await until(() => pool.queueSize === 1, 'the request waits for a turn');
  t.same((await call(service, 'GET', '/readyz')).body.pool, { queued: 1, queue_limit: 1 }, 'the request waits for a turn');

  const fourth = openRequest();
  const refused = await fourth.answer;
  t.equal(statusOf(refused), 503, 'the next is answered before its body is sent');
  t.match(refused, /"code":"service_busy"/);
  t.match(refused, /Retry-After: 1/i);
  fourth.close();
  t.equal((await call(service, 'GET', '/v1/signals?per_page=1', { key })).status, 200, 'registry reads are served meanwhile');

  // Longer than uWS's idle timeout (10 s, counted in ticks of 4 s, so at most 16 s): the waiting socket stays open.
  // This wait is the case itself: time must pass without the socket being closed.
  await new Promise((resolve) => setTimeout(resolve, 17_000));
  t.equal(waiting.answeredAt, 0, 'no answer while the turns are held');
  (held[0] as PoolTurn).release();
  t.equal(statusOf(await waiting.answer), 200, 'given a turn, its body is read and analysed');
  (held[1] as PoolTurn).release();
  waiting.close();
  t.same((await call(service, 'GET', '/readyz')).body.pool, { queued: 0, queue_limit: 1 });
});

t.test('a client that leaves, waiting or holding a turn, gives it up', async (t) => {
  const holders = [openRequest(), openRequest()];
  await until(() => held() === 2, 'both hold a turn');
  const waiting = openRequest();
  await until(() => pool.queueSize === 1, 'the third waits');
  // A paused socket's close is seen when it is resumed: the place is kept until the turn comes.
  waiting.close();
  holders[0].sendBody();
  t.equal(statusOf(await holders[0].answer), 200);
  // The turn went to the client that left, which gave it back.
  await until(() => held() === 1 && pool.queueSize === 0, 'the turn given to the client that left is back');
  const next = openRequest();
  await until(() => held() === 2, 'the next holds a turn');
  t.same((await call(service, 'GET', '/readyz')).body.pool, { queued: 0, queue_limit: 1 }, 'the turn of the client that left while waiting is free again');
  holders[1].close();
  await until(() => held() === 1, 'the holder that left gave its turn back');
  const last = openRequest();
  await until(() => held() === 2, 'the last holds a turn');
  t.same((await call(service, 'GET', '/readyz')).body.pool, { queued: 0, queue_limit: 1 }, 'so is the turn of a holder that left');
  next.sendBody();
  last.sendBody();
  t.same((await Promise.all([next.answer, last.answer])).map(statusOf), [200, 200]);
  holders[0].close();
  next.close();
  last.close();
});

t.test('a small body runs at once, without a turn, while the turns are held', async (t) => {
  const holders = [openRequest(), openRequest(), openRequest()];
  await until(() => held() === 2 && pool.queueSize === 1, 'two hold the turns and one waits');
  const small = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings: [finding('f', signal_id)] } });
  t.equal(small.status, 200, 'a body under 16 KiB is analysed on the HTTP thread');
  for (const holder of holders) holder.sendBody();
  t.same((await Promise.all(holders.map((holder) => holder.answer))).map(statusOf), [200, 200, 200]);
  for (const holder of holders) holder.close();
});
