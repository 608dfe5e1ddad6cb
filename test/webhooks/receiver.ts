/**
 * A webhook receiver on a local port for the tests: records every request (headers, body, time),
 * answers as the test says, and lets a test wait for the request it expects.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  path: string;
  at: number;
}

export type Answer = (request: Received, response: ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How the next requests are answered (200 "ok" by default). */
  answer: Answer;
  /** Resolves with the first request (past or future) that `matches`. */
  next(matches: (request: Received) => boolean, what: string, boundMs?: number): Promise<Received>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiting: Array<{ matches: (r: Received) => boolean; resolve: (r: Received) => void }> = [];
  const sockets = new Set<import('node:net').Socket>();
  let server!: Server;
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer: (_request, response) => response.end('ok'),
    next(matches, what, boundMs = 30_000) {
      const seen = receiver.received.find(matches);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got no ${what} within ${boundMs} ms`)), boundMs);
        waiting.push({
          matches,
          resolve: (request) => {
            clearTimeout(timer);
            resolve(request);
          },
        });
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: Received = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), path: request.url ?? '', at: Date.now() };
      receiver.received.push(received);
      for (const waiter of [...waiting]) {
        if (!waiter.matches(received)) continue;
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(received);
      }
      receiver.answer(received, response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as { port: number }).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}
