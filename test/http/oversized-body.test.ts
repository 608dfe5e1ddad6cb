import t from 'tap';
import { connect, type Socket } from 'node:net';
import { startTestService } from '../helpers/service.js';

/** A raw HTTP/1.1 connection: what arrives, and whether the service closed it. */
function rawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  // A status line follows the previous answer's body directly: no line start to anchor on.
  const statuses = () => (received.match(/HTTP\/1\.1 \d{3}/g) ?? []).map((line) => Number(line.slice(9)));
  // Checked again at each arrival and at the close (the listeners above run first).
  const until = (done: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (done()) finish();
        else if (closed) finish(new Error(`closed before ${what}; received:\n${received.slice(0, 500)}`));
      };
      const finish = (error?: Error) => {
        socket.off('data', check);
        socket.off('close', check);
        if (error) reject(error);
        else resolve();
      };
      socket.on('data', check);
      socket.on('close', check);
      check();
    });
  return { socket, statuses, until, closed: () => closed, received: () => received };
}

const service = await startTestService({ env: { BODY_LIMIT_BYTES: '2048' } });
t.teardown(() => service.close());

t.test('a body declared over the limit: the 413 is read while the client still writes, and the connection goes on', async (t) => {
  const key = await service.key('pro');
  const connection = rawConnection(service.url);
  const size = 512 * 1024;
  connection.socket.write(
    `POST /v1/validate HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
  );
  await connection.until(() => connection.statuses().length === 1, 'the 413');
  t.same(connection.statuses(), [413], 'answered before the body was sent');
  t.match(connection.received(), /"code":"payload_too_large"/);
  // The client goes on writing the body it declared, as clients do; nothing of it is refused.
  const body = Buffer.alloc(size, 0x20);
  for (let offset = 0; offset < size; offset += 64 * 1024) {
    await new Promise((resolve) => connection.socket.write(body.subarray(offset, offset + 64 * 1024), resolve));
  }
  connection.socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n');
  await connection.until(() => connection.statuses().length === 2, 'the answer to the next request');
  t.same(connection.statuses(), [413, 200], 'the body was read and dropped, and the next request on the connection answered');
  t.notOk(connection.closed(), 'the connection stays open');
  connection.socket.destroy();
});

t.test('a body declared over 64 MiB: the 413, then the connection is closed', async (t) => {
  const key = await service.key('pro');
  const connection = rawConnection(service.url);
  connection.socket.write(
    `POST /v1/validate HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${70 * 1024 * 1024}\r\n\r\n`,
  );
  await connection.until(() => connection.closed(), 'the close');
  t.same(connection.statuses(), [413]);
  t.match(connection.received(), /connection: close/i);
});
