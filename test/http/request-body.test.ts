import t from 'tap';
import { connect } from 'node:net';
import { call, startTestService } from '../helpers/service.js';
import { finding, testRegistry } from '../helpers/findings.js';

/**
 * A request body is read whole however the client cuts it: one write, many pieces with pauses,
 * or chunked transfer coding without a Content-Length (src/http/uws.ts BodyReader).
 */
const service = await startTestService();
t.teardown(() => service.close());
const key = await service.key('enterprise');
const ids = testRegistry().signalIds();
const statuses = ['open', 'in_progress', 'accepted', 'resolved'];
// Some 700 KB: over the size at which an analysis goes to the worker pool, so the body is transferred there.
const body = Buffer.from(
  JSON.stringify({
    frameworks: ['HIPAA', 'SOC2', 'ISO27001'],
    findings: Array.from({ length: 6000 }, (_, i) => finding(`body-${i}`, ids[(i * 31) % ids.length], statuses[i % statuses.length])),
  }),
);

/** What an analysis answer says about the request, without its id and times. */
function assessed(answer: { data: { summary: unknown; posture: unknown; frameworks: unknown; cross_framework_insights: unknown } }) {
  const { summary, posture, frameworks, cross_framework_insights } = answer.data;
  return JSON.stringify({ summary, posture, frameworks, cross_framework_insights });
}

/** One request over a raw connection, `pieces` written in turn, each handed to the kernel before the next; the answer's status and body. */
async function sendRaw(head: string, pieces: Buffer[]): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(service.url);
  const socket = connect(Number(port), hostname);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(head);
  // Each piece handed to the kernel before the next is written.
  for (const piece of pieces) await new Promise((resolve) => socket.write(piece, resolve));
  const text = await new Promise<string>((resolve, reject) => {
    socket.on('error', reject);
    // Checked at each arrival: done once the body its Content-Length announces is in.
    const check = () => {
      const all = Buffer.concat(received).toString('utf8');
      const headEnd = all.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(all.slice(0, headEnd))?.[1];
      if (headEnd > 0 && length !== undefined && Buffer.byteLength(all.slice(headEnd + 4)) >= Number(length)) {
        socket.off('data', check);
        resolve(all);
      }
    };
    socket.on('data', check);
    check();
  });
  socket.destroy();
  return { status: Number(text.slice(9, 12)), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

const whole = await call(service, 'POST', '/v1/gap-analysis', { key, rawBody: body, headers: { 'content-type': 'application/json' } });
t.equal(whole.status, 200, 'the body in one write');
const expected = assessed(whole.body);
t.match(whole.body.data.summary.findings, { submitted: 6000 }, 'every finding was read');

t.test('a declared length, the body in 13 pieces with pauses between', async (t) => {
  const size = Math.ceil(body.length / 13);
  const pieces = Array.from({ length: 13 }, (_, i) => body.subarray(i * size, (i + 1) * size));
  const answer = await sendRaw(
    `POST /v1/gap-analysis HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    pieces,
  );
  t.equal(answer.status, 200);
  t.equal(assessed(JSON.parse(answer.body)), expected, 'the same assessment as the body sent at once');
});

t.test('the first bytes of the body in the same write as the headers', async (t) => {
  const head = `POST /v1/gap-analysis HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  const answer = await sendRaw('', [Buffer.concat([Buffer.from(head), body.subarray(0, 1000)]), body.subarray(1000)]);
  t.equal(answer.status, 200);
  t.equal(assessed(JSON.parse(answer.body)), expected);
});

t.test('chunked transfer coding, no Content-Length', async (t) => {
  const size = 100_000;
  const pieces: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const part = body.subarray(at, at + size);
    pieces.push(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]));
  }
  pieces.push(Buffer.from('0\r\n\r\n'));
  const answer = await sendRaw(
    `POST /v1/gap-analysis HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    pieces,
  );
  t.equal(answer.status, 200);
  t.equal(assessed(JSON.parse(answer.body)), expected);
});

t.test('a client that leaves mid-body costs nothing: the service answers the next request', async (t) => {
  const { hostname, port } = new URL(service.url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /v1/gap-analysis HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  // Half the body handed to the kernel, then the client goes.
  await new Promise((resolve) => socket.write(body.subarray(0, body.length >> 1), resolve));
  socket.destroy();
  const after = await call(service, 'POST', '/v1/gap-analysis', { key, rawBody: body, headers: { 'content-type': 'application/json' } });
  t.equal(after.status, 200);
  t.equal(assessed(after.body), expected);
});
