/**
 * One delivery attempt (docs/webhooks.md): a signed POST to the receiver, with a deadline on the
 * whole exchange, redirects never followed, the answer read to at most `maxResponseBytes` and then
 * dropped, and the connection made to the address checked (no second resolution a name's owner
 * could answer differently).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { ClaimedDelivery } from '../store/webhooks.js';
import { receiverAddresses } from './addresses.js';
import { SIGNATURE_HEADER, signatureHeader } from './signing.js';

export interface AttemptSettings {
  timeoutMs: number;
  maxResponseBytes: number;
  allowPrivate: boolean;
}

export interface AttemptResult {
  delivered: boolean;
  /** The receiver's HTTP status; null when none came. */
  status: number | null;
  /** Why it did not count as delivered; null when it did. */
  error: string | null;
}

export const USER_AGENT = 'csr-webhooks/1';

export async function attemptDelivery(delivery: ClaimedDelivery, attempt: number, settings: AttemptSettings): Promise<AttemptResult> {
  const url = new URL(delivery.url);
  const deadline = Date.now() + settings.timeoutMs;
  let address: string;
  try {
    const addresses = await withDeadline(receiverAddresses(url.hostname, settings.allowPrivate), settings.timeoutMs);
    address = addresses.find((candidate) => isIP(candidate) === 4) ?? addresses[0];
  } catch (error) {
    return { delivered: false, status: null, error: (error as Error).message };
  }
  const body = Buffer.from(delivery.body);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'content-length': String(body.length),
    'user-agent': USER_AGENT,
    host: url.host,
    [SIGNATURE_HEADER]: signatureHeader(delivery.secret, timestamp, delivery.body),
    'CSR-Event-Id': delivery.event_id,
    'CSR-Event-Type': delivery.event_type,
    'CSR-Delivery-Id': delivery.id,
    'CSR-Delivery-Attempt': String(attempt),
  };
  const https = url.protocol === 'https:';
  const bare = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      response?.destroy();
      request.destroy();
      resolve(result);
    };
    const request = (https ? httpsRequest : httpRequest)(
      {
        method: 'POST',
        host: address,
        port: url.port || (https ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        headers,
        // A connection of its own each time: nothing pooled outlives the attempt.
        agent: false,
        ...(https && !isIP(bare) && { servername: bare }),
      },
      (answer) => {
        response = answer;
        const status = answer.statusCode ?? 0;
        let read = 0;
        const settle = () => {
          if (status >= 200 && status < 300) finish({ delivered: true, status, error: null });
          else if (status >= 300 && status < 400)
            finish({ delivered: false, status, error: `redirect not followed (to ${String(answer.headers.location ?? 'nowhere')})` });
          else finish({ delivered: false, status, error: `answered HTTP ${status}` });
        };
        answer.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // The status is what counts: the rest of a large answer is not read.
          if (read >= settings.maxResponseBytes) settle();
        });
        answer.on('end', settle);
        answer.on('error', () => settle());
      },
    );
    const timer = setTimeout(
      () => finish({ delivered: false, status: response?.statusCode ?? null, error: `no answer within ${settings.timeoutMs} ms` }),
      Math.max(1, deadline - Date.now()),
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish({ delivered: false, status: null, error: error.code ? `${error.code}: ${error.message}` : error.message }),
    );
    request.end(body);
  });
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no address within ${ms} ms`)), ms)));
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
