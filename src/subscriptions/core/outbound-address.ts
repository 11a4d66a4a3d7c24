/**
 * Which addresses a webhook or Slack delivery may reach: PostHog's SSRF rules
 * (posthog/security/url_validation.py, docs/subscriptions.md). Loopback, private, link-local
 * (cloud metadata), carrier-grade NAT, multicast and reserved addresses, and names that only an
 * internal network resolves, are refused unless the operator lists them in WEBHOOK_ALLOWED_HOSTS:
 * a self-hosted server often has a legitimate target on its own network, which PostHog Cloud
 * never has.
 */
import { BlockList, isIP } from 'node:net';

/** PostHog's INTERNAL_DOMAIN_PATTERNS: suffixes of names only a private network resolves. */
const INTERNAL_SUFFIXES = [
  '.local',
  '.internal',
  '.consul',
  '.lan',
  '.home',
  '.corp',
  '.localdomain',
  '.home.arpa',
  '.intranet',
  '.priv',
] as const;
const METADATA_HOSTS = new Set(['169.254.169.254', 'metadata.google.internal']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);

/**
 * Python's ipaddress `is_private`, `is_loopback`, `is_link_local`, `is_multicast`, `is_reserved`,
 * `is_unspecified`, and 100.64/10. One list per family: node's BlockList matches an IPv4 address
 * against IPv6 rules as `::ffff:a.b.c.d`, which `::/8` would hold.
 */
const INTERNAL_V4 = new BlockList();
const INTERNAL_V6 = new BlockList();
for (const [net, prefix] of [
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
] as const) {
  INTERNAL_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 8],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL_V6.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address an IPv4-mapped IPv6 one (`::ffff:a.b.c.d`, in any spelling) reaches, or null. */
function embeddedIpv4(ip: string): string | null {
  let hostname: string;
  try {
    hostname = new URL(`http://[${ip}]`).hostname;
  } catch {
    return null; // a zone id (`fe80::1%eth0`): not a mapped address
  }
  const m = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(hostname);
  if (!m) return null;
  const hi = parseInt(m[1]!, 16);
  const lo = parseInt(m[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether an IP address (v4 or v6, no brackets) is one a delivery must not reach. */
export function isInternalIp(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (family === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4 !== null) return INTERNAL_V4.check(v4, 'ipv4');
    return INTERNAL_V6.check(ip, 'ipv6');
  }
  return INTERNAL_V4.check(ip, 'ipv4');
}

/** A URL's host as every check reads it: no IPv6 brackets, lower case, no root dot. */
export function canonicalHost(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.+$/, '');
}

/**
 * Why a host is refused on its name alone (PostHog's reasons), or null. Runs before any lookup,
 * so a name shaped like an internal one is refused whatever public address it resolves to.
 */
export function blockedHostReason(hostname: string): string | null {
  const host = canonicalHost(hostname);
  if (METADATA_HOSTS.has(host)) return 'Local/metadata host';
  if (LOOPBACK_HOSTS.has(host)) return 'Local/Loopback host not allowed';
  const suffix = INTERNAL_SUFFIXES.find((s) => host.endsWith(s));
  if (suffix) return `Internal domain pattern blocked: ${suffix}`;
  if (isInternalIp(host)) return 'Private IP address not allowed';
  return null;
}

/** WEBHOOK_ALLOWED_HOSTS read: host names, and addresses or networks, a delivery may reach although internal. */
export interface AllowedHosts {
  /** `*`: every address, as PostHog in development. */
  any: boolean;
  names: ReadonlySet<string>;
  /** Per family, as INTERNAL_V4/V6. */
  v4: BlockList;
  v6: BlockList;
}

export const NO_ALLOWED_HOSTS: AllowedHosts = { any: false, names: new Set(), v4: new BlockList(), v6: new BlockList() };

/** Parses `a.example, 10.0.0.0/8, 127.0.0.1, ::1, *`; returns the entry it cannot read as an error. */
export function parseAllowedHosts(value: string | undefined): AllowedHosts | { error: string } {
  const entries = (value ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return NO_ALLOWED_HOSTS;
  const names = new Set<string>();
  const v4 = new BlockList();
  const v6 = new BlockList();
  let any = false;
  for (const entry of entries) {
    if (entry === '*') {
      any = true;
      continue;
    }
    const [address, prefix, extra] = canonicalHost(entry).split('/');
    const family = isIP(address ?? '');
    if (prefix !== undefined) {
      const bits = Number(prefix);
      const max = family === 4 ? 32 : 128;
      if (family === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefix) || bits > max) return { error: entry };
      if (family === 4) v4.addSubnet(address!, bits, 'ipv4');
      else v6.addSubnet(address!, bits, 'ipv6');
    } else if (family === 4) {
      v4.addAddress(address!, 'ipv4');
    } else if (family === 6) {
      v6.addAddress(address!, 'ipv6');
    } else if (/^[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?$/.test(address ?? '')) {
      names.add(address!);
    } else {
      return { error: entry };
    }
  }
  return { any, names, v4, v6 };
}

function isAllowedIp(allowed: AllowedHosts, ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (family === 4) return allowed.v4.check(ip, 'ipv4');
  const v4 = embeddedIpv4(ip);
  return v4 !== null ? allowed.v4.check(v4, 'ipv4') : allowed.v6.check(ip, 'ipv6');
}

/** Why a URL's host is refused before any lookup (null: go on and resolve it). */
export function hostRefusal(allowed: AllowedHosts, hostname: string): string | null {
  const host = canonicalHost(hostname);
  if (allowed.any || allowed.names.has(host) || isAllowedIp(allowed, host)) return null;
  return blockedHostReason(host);
}

/** Whether a name's resolved addresses need checking (false: the operator allowed the name itself). */
export function checksAddressesOf(allowed: AllowedHosts, hostname: string): boolean {
  return !allowed.any && !allowed.names.has(canonicalHost(hostname));
}

/** Why a resolved address is refused (PostHog's reason), or null. */
export function addressRefusal(allowed: AllowedHosts, ip: string): string | null {
  if (allowed.any || !isInternalIp(ip) || isAllowedIp(allowed, ip)) return null;
  return `Disallowed target IP: ${ip}`;
}
