/**
 * The `requestId` of a `/decide` or `/flags` answer, as PostHog's flags service makes it
 * (rust/feature-flags/src/api/endpoint.rs, extract_request_id): the caller's `X-Request-Id` when it
 * is a UUID, so one id follows a request from the proxy to the answer; else a fresh random
 * (version 4) UUID. Written as a UUID is serialised there: lowercase and hyphenated, whichever
 * of the forms the UUID parser accepts (hyphenated, 32 bare hex digits, braced, `urn:uuid:`) came in.
 */
import { canonicalUuidStrict, randomUuidV4 } from '../../lib/uuid.js';

export function flagsRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return (value !== undefined && canonicalUuidStrict(value)) || randomUuidV4();
}
