/**
 * The address `/decide` and `/flags` look up for GeoIP targeting: the first X-Forwarded-For entry
 * when it is an IP address, else the request's client address.
 *
 * Why the header is read whatever TRUST_PROXY says: the contract gives decide an optional
 * HTTP_X_FORWARDED_FOR, "an IP address to use as the client address for GeoIP evaluation", that
 * overrides the $geoip_* properties; PostHog's flags service reads it the same way, in front of
 * any proxy setting (rust/feature-flags/src/api/endpoint.rs, extract_client_ip). Only flag
 * targeting uses it: capture's `$ip` keeps following TRUST_PROXY (src/http/client-address.ts),
 * since a stored address must not be whatever the client claims.
 */
import { isIP } from 'node:net';

/**
 * The first entry of an X-Forwarded-For value as an IP address; undefined when it is none. (Node
 * joins repeated X-Forwarded-For headers into one value; were it given a list, the first header
 * counts, as PostHog's `headers.get` reads it.)
 */
export function forwardedForAddress(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const address = withoutPort(value.split(',', 1)[0]!.trim());
  // A zone index (`fe80::1%eth0`) is no address PostHog's parser (Rust's IpAddr) accepts.
  return isIP(address) !== 0 && !address.includes('%') ? address : undefined;
}

/**
 * An entry without the port some gateways (Azure's) append, as PostHog strips it: `[v6]:port` and
 * `[v6]` lose the brackets; a dotted entry loses a `:port` after its last dot; anything else (a
 * bare IPv6 address, whose colons are its own) is kept whole.
 */
function withoutPort(entry: string): string {
  if (entry.startsWith('[')) {
    const end = entry.indexOf(']');
    return end === -1 ? entry.slice(1) : entry.slice(1, end);
  }
  if (entry.includes('.')) {
    const colon = entry.lastIndexOf(':');
    if (colon > entry.lastIndexOf('.')) return entry.slice(0, colon);
  }
  return entry;
}

/**
 * The address whose GeoIP a flags request is evaluated with, and whether the caller supplied it
 * (X-Forwarded-For): a supplied address overrides the `$geoip_*` values the request sends in its
 * person properties (contract rule 5); the connection's own only fills in those it lacks.
 */
export function geoipAddress(
  forwardedFor: string | string[] | undefined,
  clientAddress: string | undefined,
): { address: string; supplied: boolean } | undefined {
  const forwarded = forwardedForAddress(forwardedFor);
  if (forwarded !== undefined) return { address: forwarded, supplied: true };
  return clientAddress === undefined ? undefined : { address: clientAddress, supplied: false };
}
