import t from 'tap';
import { connect } from 'node:net';
import { startTestService, call } from '../helpers/service.js';

// What malformed HTTP meets: uWS parses requests before our adapter sees them, so these pin the
// behaviour docs/limits.md describes — nothing is held past uWS's idle timeout, nothing stops the
// service, and whatever reaches the adapter is answered.
const service = await startTestService();
t.teardown(() => service.close());

/** Sends raw bytes; resolves with what came back and whether the server closed the connection. */
function exchange(bytes: string, waitMs: number): Promise<{ answer: string; closedAfterMs: number | null }> {
  return new Promise((resolve) => {
    const socket = connect(service.port, '127.0.0.1');
    const started = Date.now();
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
    socket.write(bytes);
    setTimeout(() => {
      socket.destroy();
      resolve({ answer, closedAfterMs: null });
    }, waitMs).unref();
  });
}

t.test('unparseable requests get no answer and are closed within the idle timeout', async (t) => {
  const cases: Array<[string, string]> = [
    ['a garbage request line', '\x01\x02garbage garbage\r\n\r\n'],
    ['bare LF line endings', 'GET /healthz HTTP/1.1\nHost: x\n\n'],
    ['HTTP/1.0', 'GET /healthz HTTP/1.0\r\nHost: x\r\n\r\n'],
    ['an unknown method', 'BREW /v1/stats HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a lower-case method', 'get /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a 1 MB header', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1_000_000)}\r\n\r\n`],
  ];
  const outcomes = await Promise.all(cases.map(([, bytes]) => exchange(bytes, 20_000)));
  cases.forEach(([name], index) => {
    const { answer, closedAfterMs } = outcomes[index];
    t.equal(answer, '', `${name}: no answer`);
    t.ok(closedAfterMs !== null && closedAfterMs < 20_000, `${name}: closed (after ${closedAfterMs} ms)`);
  });
  t.equal((await call(service, 'GET', '/healthz')).status, 200, 'the service is alive');
});

t.test('what reaches the adapter is answered', async (t) => {
  const options = await exchange('OPTIONS /v1/stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 5000);
  t.match(options.answer, /^HTTP\/1\.1 405 /, 'a method uWS knows but no route has: 405');
  t.match(options.answer, /Allow: GET, HEAD/i);
  const bigHeader = await exchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\nConnection: close\r\n\r\n`, 5000);
  t.match(bigHeader.answer, /^HTTP\/1\.1 200 /, 'a 100 KB header is within what uWS reads');
});
