import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type { Account, AccountDirectory, AccountRecord, ApiKeyRecord, CreatedKey } from './types.js';

/**
 * API keys look like `csr_<key id>_<secret>`: the id (64 bits, hex) names the stored record, the
 * secret (256 bits, base64url) is checked against its SHA-256. A fast hash is enough because the
 * secret is random and long; there is nothing to brute-force from a dictionary.
 */
const KEY_PATTERN = /^csr_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The id and secret of a well-formed key, or undefined. */
export function parseKey(presented: string): { id: string; secret: string } | undefined {
  const match = KEY_PATTERN.exec(presented);
  return match ? { id: match[1], secret: match[2] } : undefined;
}

/** `csr keys revoke` takes the id or the whole key. */
export function keyIdOf(idOrKey: string): string {
  return parseKey(idOrKey)?.id ?? idOrKey;
}

/** A fresh key: what the caller is shown once, and the hash that is stored. */
export function newKey(): { id: string; key: string; secretSha256: string } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, key: `csr_${id}_${secret}`, secretSha256: sha256(secret) };
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(secret: string, storedSha256: string): boolean {
  const expected = Buffer.from(storedSha256, 'hex');
  const actual = Buffer.from(sha256(secret), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export function accountExistsError(accountName: string, existingTier: string, tier: string): Error {
  return new Error(`Account ${accountName} exists with tier ${existingTier}; change it with: csr accounts set-tier ${accountName} ${tier}`);
}

export function noAccountError(accountName: string): Error {
  return new Error(`Account ${accountName} does not exist; give --tier to create it`);
}
