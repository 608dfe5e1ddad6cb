/**
 * Where a webhook may be delivered (docs/webhooks.md). Unless the operator allows private
 * addresses (WEBHOOK_ALLOW_PRIVATE), a receiver on loopback, private, link-local, shared, multicast
 * or reserved space is refused at registration and again at every delivery, after the name is
 * resolved (a name that resolved to a public address at registration may not later point inward).
 * Names resolve through c-ares with a deadline, never through the thread pool the service
 * compresses answers on; only a name c-ares does not know (an /etc/hosts entry) falls back to
 * the system resolver, one at a time.
 */
import { BlockList, isIP } from 'node:net';
import { lookup as systemLookup, promises as dns } from 'node:dns';

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv6');

/** An address no public receiver has; IPv4-mapped IPv6 addresses are judged by their IPv4 part. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why a URL cannot be a webhook's, or undefined when its form is fine (addresses are checked apart). */
export function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `has scheme ${url.protocol} (expected https: or http:)`;
  if (url.username || url.password) return 'carries credentials: put them in the receiver, not the URL';
  if (url.hash) return 'has a fragment';
  if (!url.hostname) return 'has no host';
  return undefined;
}

const RESOLVE_TIMEOUT_MS = 2000;
const resolver = new dns.Resolver({ timeout: RESOLVE_TIMEOUT_MS, tries: 2 });

let systemLookups: Promise<unknown> = Promise.resolve();

/** The system resolver, one lookup at a time, so a hung lookup holds one thread of libuv's pool at most. */
function viaSystem(hostname: string): Promise<string[]> {
  const next = systemLookups.then(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${hostname} did not resolve within ${RESOLVE_TIMEOUT_MS} ms`)), RESOLVE_TIMEOUT_MS);
        systemLookup(hostname, { all: true }, (error, addresses) => {
          clearTimeout(timer);
          if (error) reject(error);
          else resolve(addresses.map((entry) => entry.address));
        });
      }),
  );
  systemLookups = next.catch(() => undefined);
  return next;
}

/** Every address a host name (or literal) stands for. */
export async function resolveHost(hostname: string): Promise<string[]> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare)) return [bare];
  const settled = await Promise.allSettled([resolver.resolve4(bare), resolver.resolve6(bare)]);
  const addresses = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
  if (addresses.length) return addresses;
  return viaSystem(bare);
}

/**
 * The addresses to connect to, or an error saying why not: a name that does not resolve, or (when
 * private addresses are not allowed) any of its addresses private.
 */
export async function receiverAddresses(hostname: string, allowPrivate: boolean): Promise<string[]> {
  const addresses = await resolveHost(hostname);
  if (!addresses.length) throw new Error(`${hostname} does not resolve`);
  if (!allowPrivate) {
    const inward = addresses.find(isPrivateAddress);
    if (inward) throw new AddressRefused(`${hostname} resolves to ${inward}, a private address (WEBHOOK_ALLOW_PRIVATE is off)`);
  }
  return addresses;
}

export class AddressRefused extends Error {}
