/**
 * The client address of a request, as fastify's `request.ip` computes it for the server's
 * `trustProxy` option (see `trustProxyOption` in server.ts): the socket's peer, or, behind trusted
 * proxies, the nearest X-Forwarded-For entry that is not itself a trusted proxy. The fast lane
 * answers capture and decide without fastify, so it needs the same answer from the same setting:
 *
 * - `false`: the socket's peer, X-Forwarded-For ignored;
 * - `true`: every hop trusted, so the first (leftmost) X-Forwarded-For entry;
 * - a hop count `n`: the peer and the `n - 1` nearest entries are proxies;
 * - addresses/CIDRs (comma-separated, also `loopback`, `linklocal`, `uniquelocal`): hops are
 *   trusted while they fall in those ranges.
 */
import type { IncomingMessage } from 'node:http';
import net from 'node:net';

export type ClientAddressOf = (request: IncomingMessage) => string | undefined;

/** Whether the hop at `index` (0: the socket's peer, 1: the last X-Forwarded-For entry, …) is a trusted proxy. */
type TrustsHop = (address: string, index: number) => boolean;

export function clientAddressResolver(trustProxy: boolean | number | string): ClientAddressOf {
  if (trustProxy === false) return (request) => request.socket.remoteAddress;
  const trusts: TrustsHop =
    trustProxy === true
      ? () => true
      : typeof trustProxy === 'number'
        ? (_address, index) => index < trustProxy
        : rangeTrust(trustProxy.split(',').map((entry) => entry.trim()));
  return (request) => {
    const hops = forwardedChain(request);
    for (let i = 0; i < hops.length - 1; i++) if (!trusts(hops[i]!, i)) return hops[i];
    return hops[hops.length - 1];
  };
}

/** The socket's peer followed by the X-Forwarded-For entries, nearest first; empty entries skipped. */
function forwardedChain(request: IncomingMessage): Array<string | undefined> {
  const chain: Array<string | undefined> = [request.socket.remoteAddress];
  const header = request.headers['x-forwarded-for'];
  if (typeof header !== 'string' || header === '') return chain;
  const entries = header.split(',');
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!.replace(/^[ \t]+|[ \t]+$/g, '');
    if (entry !== '') chain.push(entry);
  }
  return chain;
}

/** The named ranges fastify's trust setting (proxy-addr) accepts. */
const NAMED_RANGES: Record<string, string[]> = {
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  loopback: ['127.0.0.1/8', '::1/128'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * A trust test for a list of addresses and CIDRs. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`,
 * what a dual-stack socket reports) counts as its IPv4 address, and each family is matched only
 * against ranges of its own family (node's BlockList alone would match IPv4 against `::/0`).
 */
function rangeTrust(entries: string[]): TrustsHop {
  const ranges = { ipv4: new net.BlockList(), ipv6: new net.BlockList() };
  for (const entry of entries.flatMap((e) => NAMED_RANGES[e] ?? [e])) {
    const range = parseRange(entry);
    if (range) ranges[range.family].addSubnet(range.address, range.prefix, range.family);
  }
  return (address) => {
    const candidate = canonicalAddress(address);
    if (!candidate) return false;
    try {
      return ranges[candidate.family].check(candidate.address, candidate.family);
    } catch {
      return false; // e.g. an IPv6 zone id node cannot match
    }
  };
}

interface Range {
  family: 'ipv4' | 'ipv6';
  address: string;
  prefix: number;
}

/** `address`, `address/prefix` or `ipv4/netmask`; invalid entries fail start-up with proxy-addr's wording. */
function parseRange(entry: string): Range | undefined {
  const slash = entry.lastIndexOf('/');
  const text = slash === -1 ? entry : entry.slice(0, slash);
  const ip = canonicalAddress(text);
  if (!ip) throw new TypeError(`invalid IP address: ${text}`);
  const mapped = ip.family === 'ipv4' && net.isIP(text) === 6;
  const max = mapped || ip.family === 'ipv6' ? 128 : 32;
  const rangeText = slash === -1 ? undefined : entry.slice(slash + 1);
  let prefix: number | undefined;
  if (rangeText === undefined) prefix = mapped ? 32 : max;
  else if (/^\d+$/.test(rangeText)) prefix = Number(rangeText);
  else if (ip.family === 'ipv4' && !mapped && net.isIP(rangeText) === 4) prefix = netmaskPrefix(rangeText);
  if (prefix === undefined || prefix <= 0 || prefix > max) throw new TypeError(`invalid range on address: ${entry}`);
  if (!mapped || rangeText === undefined) return { ...ip, prefix };
  // A mapped range (`::ffff:10.0.0.0/104`) spans IPv4 addresses only when it covers the
  // `::ffff:` marker; a shorter one matches nothing, as in proxy-addr.
  return prefix >= 96 ? { ...ip, prefix: prefix - 96 } : undefined;
}

/** `255.255.0.0` → 16; a mask whose ones are not contiguous has no prefix. */
function netmaskPrefix(mask: string): number | undefined {
  const bits = mask.split('.').map((part) => Number(part).toString(2).padStart(8, '0')).join('');
  const ones = bits.indexOf('0') === -1 ? 32 : bits.indexOf('0');
  return bits.includes('1', ones) ? undefined : ones;
}

const MAPPED_DOTTED = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
const MAPPED_HEX = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** The address with its family, an IPv4-mapped IPv6 address as IPv4; undefined when not an address. */
function canonicalAddress(address: string): { family: 'ipv4' | 'ipv6'; address: string } | undefined {
  const kind = net.isIP(address);
  if (kind === 4) return { family: 'ipv4', address };
  if (kind !== 6) return undefined;
  const dotted = MAPPED_DOTTED.exec(address);
  if (dotted) return { family: 'ipv4', address: dotted[1]! };
  const hex = MAPPED_HEX.exec(address);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return { family: 'ipv4', address: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}` };
  }
  return { family: 'ipv6', address };
}
