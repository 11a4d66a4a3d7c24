/**
 * The `requestId` of a `/decide` or `/flags` answer, as PostHog's flags service makes it
 * (rust/feature-flags/src/api/endpoint.rs, extract_request_id): the caller's `X-Request-Id` when it
 * is a UUID, so one id follows a request from the proxy to the answer; else a fresh random
 * (version 4) UUID. Written as a UUID is serialised there: lowercase and hyphenated, whichever
 * of the forms the UUID parser accepts (hyphenated, 32 bare hex digits, braced, `urn:uuid:`) came in.
 */
import { randomUUID } from 'node:crypto';

const HEX32 = /^[0-9a-fA-F]{32}$/;

/** The header's UUID in its canonical text, or undefined when it holds none. */
export function canonicalUuid(text: string): string | undefined {
  let hyphenated = text;
  if (text.length === 32) return canonicalHex(text);
  if (text.length === 45 && text.startsWith('urn:uuid:')) hyphenated = text.slice(9);
  else if (text.length === 38 && text.startsWith('{') && text.endsWith('}')) hyphenated = text.slice(1, -1);
  if (hyphenated.length !== 36) return undefined;
  if (hyphenated[8] !== '-' || hyphenated[13] !== '-' || hyphenated[18] !== '-' || hyphenated[23] !== '-') return undefined;
  return canonicalHex(hyphenated.slice(0, 8) + hyphenated.slice(9, 13) + hyphenated.slice(14, 18) + hyphenated.slice(19, 23) + hyphenated.slice(24));
}

function canonicalHex(hex: string): string | undefined {
  if (!HEX32.test(hex)) return undefined;
  const lower = hex.toLowerCase();
  return `${lower.slice(0, 8)}-${lower.slice(8, 12)}-${lower.slice(12, 16)}-${lower.slice(16, 20)}-${lower.slice(20)}`;
}

export function flagsRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return (value !== undefined && canonicalUuid(value)) || randomUUID();
}
