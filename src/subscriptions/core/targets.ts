/**
 * Checks of a subscription's target value (Hoglet's additions to PostHog's baseline serializer):
 * e-mail addresses as Django's EmailValidator accepts them, and webhook URLs with the messages of
 * PostHog's newer SSRF check.
 */
import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import { MESSAGES } from './fields.js';
import { hostRefusal, NO_ALLOWED_HOSTS, type AllowedHosts } from './outbound-address.js';

// Django's EmailValidator (ASCII after IDNA encoding of the domain).
const EMAIL_USER_RE =
  // eslint-disable-next-line no-control-regex -- the quoted local part of an address may hold control characters (RFC 5322, as Django)
  /^(?:[-!#$%&'*+/=?^_`{}|~0-9A-Z]+(?:\.[-!#$%&'*+/=?^_`{}|~0-9A-Z]+)*|"(?:[\x01-\x08\x0b\x0c\x0e-\x1f!#-[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")$/i;
const EMAIL_DOMAIN_RE = /^(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+(?:[A-Z0-9-]{2,63})$/i;
const EMAIL_LITERAL_RE = /^\[([A-F0-9:.]+)\]$/i;

/** Django's EmailValidator semantics. */
export function isValidEmail(value: string): boolean {
  if (!value || !value.includes('@') || value.length > 320) return false;
  const at = value.lastIndexOf('@');
  const user = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!EMAIL_USER_RE.test(user)) return false;
  if (domain === 'localhost') return true;
  const validDomain = (d: string): boolean => {
    if (EMAIL_DOMAIN_RE.test(d) && !d.endsWith('-')) return true;
    const lit = EMAIL_LITERAL_RE.exec(d);
    return lit !== null && isIP(lit[1] ?? '') !== 0;
  };
  if (validDomain(domain)) return true;
  const ascii = domainToASCII(domain);
  return ascii !== '' && ascii !== domain && validDomain(ascii);
}

/**
 * Returns the error message for a webhook URL, or null when acceptable. A host refused on its
 * name or address literal is refused here; one that resolves to an internal address, only when
 * delivered (delivery/http.ts), as DNS can change in between.
 */
export function webhookUrlError(value: string, allowed: AllowedHosts = NO_ALLOWED_HOSTS): string | null {
  if (value.includes('\\') || value.toLowerCase().includes('%5c')) return MESSAGES.webhookInvalid;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return MESSAGES.webhookScheme;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]/.test(value)) return MESSAGES.webhookHost;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return MESSAGES.webhookInvalid;
  }
  if (!url.hostname) return MESSAGES.webhookHost;
  const refused = hostRefusal(allowed, url.hostname);
  return refused === null ? null : `Invalid webhook URL: ${refused}`;
}

const MASK = '****';

/** A path segment that reads like a credential: long, with letters and digits (Slack's, Discord's, most tokens). */
const looksSecret = (segment: string) => segment.length >= 16 && /\d/.test(segment) && /[A-Za-z]/.test(segment);

/**
 * A URL as it may be shown to API readers and in logs: user info, query values, the fragment and
 * secret-looking path segments masked; Slack's incoming webhooks (`/services/T…/B…/<secret>`)
 * always lose their last segment. Scheme, host and the rest of the path stay, so the target can
 * still be recognised.
 */
export function maskUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return MASK;
  }
  const slack = /(^|\.)slack\.com$/i.test(url.hostname) && url.pathname.startsWith('/services/');
  const segments = url.pathname.split('/');
  const path = segments
    .map((segment, i) =>
      segment && (looksSecret(decodeURIComponentSafe(segment)) || (slack && i === segments.length - 1)) ? MASK : segment,
    )
    .join('/');
  const auth = url.username || url.password ? `${MASK}@` : '';
  const query = url.search
    ? `?${url.search
        .slice(1)
        .split('&')
        .map((pair) => {
          const eq = pair.indexOf('=');
          return eq === -1 || eq === pair.length - 1 ? pair : `${pair.slice(0, eq)}=${MASK}`;
        })
        .join('&')}`
    : '';
  return `${url.protocol}//${auth}${url.host}${path}${query}${url.hash ? `#${MASK}` : ''}`;
}

function decodeURIComponentSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
