import { connect, type Socket } from 'node:net';

/** One answer read off a raw connection. */
export interface RawAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

/**
 * The complete answers at the start of `bytes` (Content-Length or chunked bodies; an answer to
 * HEAD, or a 304, has none), and how many bytes they took.
 */
export function parseAnswers(bytes: Buffer, headRequests = new Set<number>()): { answers: RawAnswer[]; used: number } {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const lines = bytes.subarray(at, headEnd).toString('latin1').split('\r\n');
    const status = Number(lines[0].slice(9, 12));
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    let bodyStart = headEnd + 4;
    let body: Buffer;
    if (headRequests.has(answers.length) || status === 304 || status === 204) {
      body = Buffer.alloc(0);
    } else if (headers['transfer-encoding'] === 'chunked') {
      const pieces: Buffer[] = [];
      let complete = false;
      for (;;) {
        const sizeEnd = bytes.indexOf('\r\n', bodyStart);
        if (sizeEnd < 0) break;
        const size = Number.parseInt(bytes.subarray(bodyStart, sizeEnd).toString('latin1'), 16);
        if (bytes.length < sizeEnd + 2 + size + 2) break;
        pieces.push(bytes.subarray(sizeEnd + 2, sizeEnd + 2 + size));
        bodyStart = sizeEnd + 2 + size + 2;
        if (size === 0) {
          complete = true;
          break;
        }
      }
      if (!complete) break;
      body = Buffer.concat(pieces);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (bytes.length < bodyStart + length) break;
      body = bytes.subarray(bodyStart, bodyStart + length);
      bodyStart += length;
    }
    answers.push({ status, headers, body, text: body.toString('utf8') });
    at = bodyStart;
  }
  return { answers, used: at };
}

export interface RawExchange {
  answers: RawAnswer[];
  /** Whether the server closed the connection before `expected` answers came. */
  closed: boolean;
}

/**
 * Writes `pieces` on one connection (each handed to the kernel before the next; `between` runs
 * after each piece but the last) and reads answers until `expected` have come or the server closes.
 */
export async function exchange(
  url: string,
  pieces: (string | Buffer)[],
  expected: number,
  options: { between?: (index: number, socket: Socket) => Promise<void>; headRequests?: Set<number> } = {},
): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const received: Buffer[] = [];
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const done = new Promise<RawExchange>((resolve) => {
    const check = (closed: boolean) => {
      const { answers } = parseAnswers(Buffer.concat(received), options.headRequests);
      if (answers.length >= expected || closed) {
        socket.destroy();
        resolve({ answers, closed: answers.length < expected && closed });
      }
    };
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      check(false);
    });
    socket.on('close', () => check(true));
    socket.on('error', () => undefined);
  });
  for (let i = 0; i < pieces.length; i++) {
    await new Promise((resolve) => socket.write(pieces[i], resolve));
    if (i < pieces.length - 1 && options.between) await options.between(i, socket);
  }
  return done;
}
