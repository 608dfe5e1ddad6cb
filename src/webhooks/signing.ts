/**
 * Delivery signatures (docs/webhooks.md): `CSR-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`
 * over "<t>.<body>" with the webhook's secret (its UTF-8 bytes) as the key, as Stripe signs. The
 * time is the attempt's, so a receiver can refuse old replays; each attempt is signed afresh.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'CSR-Signature';

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function signature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${signature(secret, timestamp, body)}`;
}

/**
 * What a receiver does: true when the header carries a v1 signature of this body at its time,
 * and that time is within `toleranceSeconds` of `now` (unix seconds).
 */
export function verifySignature(secret: string, header: string, body: string, now: number, toleranceSeconds = 300): boolean {
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([name]) => name === 't')?.[1]);
  if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signature(secret, timestamp, body), 'hex');
  return parts.some(
    ([name, value]) => name === 'v1' && value !== undefined && value.length === expected.length * 2 && timingSafeEqual(Buffer.from(value, 'hex'), expected),
  );
}
