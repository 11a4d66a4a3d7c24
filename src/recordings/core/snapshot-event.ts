/**
 * Validation and normalisation of the `$snapshot` events posthog-js (and the mobile SDKs) post to `/s/`.
 *
 * Wire shape (posthog-js 1.x):
 * ```json
 * [{"event": "$snapshot",
 *   "properties": {"$snapshot_bytes": 1234, "$snapshot_data": [<rrweb event>, ...],
 *                  "$session_id": "0190…", "$window_id": "0190…", "$lib": "web", "distinct_id": "u1", …}}]
 * ```
 * The body is one such event or an array of them (already decoded: gzip/base64/lz64 are the route's
 * business). Rules follow PostHog's capture service (`rust/capture/src/events/recordings.rs`) and the
 * recording consumer's message parser:
 *
 * - `distinct_id`: top-level `distinct_id` / `$distinct_id`, else `properties.distinct_id`; string or number
 *   (numbers are stringified); required and non-empty; NUL becomes U+FFFD; truncated to 200 characters.
 * - `$session_id`: required; a string of 1 to 70 characters from `[A-Za-z0-9-]`.
 * - `$window_id`: optional string; defaults to the session id.
 * - `$snapshot_data`: required; an array of rrweb events (flattened) or a single rrweb event object.
 * - `$snapshot_source`: defaults to `"web"` (`"mobile"` from the mobile SDKs); `$lib` is the snapshot library.
 * - rrweb items without a numeric `type` or without a positive finite `timestamp` are dropped (counted in
 *   `droppedItems`), as the consumer drops them; a batch left with no rrweb event is still returned.
 *
 * Differences from PostHog, on purpose: PostHog reads `$session_id` / `$window_id` / `distinct_id` from the
 * first event only and files every event under it; here every event is validated and events are grouped
 * per (session, window), so a mixed body is never misfiled. Event names other than `$snapshot` are refused.
 */
import { asRRWebEvent, type RRWebEvent } from './rrweb.js';
import { normalizeSessionId } from '../../ingestion/core/event-normalization.js';
import { isJsonObject } from '../../lib/json-object.js';

export const SNAPSHOT_EVENT_NAME = '$snapshot';
export const MAX_SESSION_ID_LENGTH = 70;
export const MAX_DISTINCT_ID_LENGTH = 200;
const SESSION_ID_PATTERN = /^[A-Za-z0-9-]+$/;

/** The rrweb events of one session and window, from one request body. */
export interface SnapshotBatch {
  sessionId: string;
  windowId: string;
  distinctId: string;
  /** `$snapshot_source`: `"web"` unless the SDK says otherwise (`"mobile"`). */
  snapshotSource: string;
  /** `$lib` of the first event of the batch, e.g. `"web"` or `"posthog-ios"`; null when absent. */
  snapshotLibrary: string | null;
  /** `uuid` of the first event of the batch when it sent one. */
  uuid: string | null;
  /** Sum of the `$snapshot_bytes` the SDK announced (0 when none did). */
  snapshotBytes: number;
  /** Valid rrweb events in arrival order. */
  events: RRWebEvent[];
  /** rrweb items dropped for lacking a numeric type or a positive timestamp. */
  droppedItems: number;
}

export interface SnapshotValidationError {
  /** Error code for the `{type: "validation_error", code, detail, attr}` envelope. */
  code: 'invalid_payload';
  /** Human-readable message for a 400 answer. */
  detail: string;
  /** Offending field, e.g. `"$session_id"`, or null. */
  attr: string | null;
  /** Index of the offending event in the body (0 for a single event), or null. */
  index: number | null;
}

export type SnapshotParseResult = { ok: true; batches: SnapshotBatch[] } | { ok: false; error: SnapshotValidationError };

function fail(detail: string, attr: string | null, index: number | null): SnapshotParseResult {
  return { ok: false, error: { code: 'invalid_payload', detail, attr, index } };
}

/** `$session_id` rule of PostHog capture: 1–70 characters, ASCII letters, digits and dashes. */
export function isValidSessionId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_SESSION_ID_LENGTH && SESSION_ID_PATTERN.test(value);
}

/** distinct_id as capture normalises it, or undefined when missing/empty/unusable. */
export function normaliseDistinctId(value: unknown): string | undefined {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else if (typeof value === 'boolean') text = String(value);
  else return undefined;
  text = text.replace(/\0/g, '\uFFFD');
  if (text.length === 0) return undefined;
  // Truncate on code points, never in the middle of a surrogate pair.
  const chars = Array.from(text);
  return chars.length > MAX_DISTINCT_ID_LENGTH ? chars.slice(0, MAX_DISTINCT_ID_LENGTH).join('') : text;
}

/**
 * Accepts the decoded request body: a `$snapshot` event, an array of them, or a `{"batch": [...]}` wrapper.
 */
export function parseSnapshotPayload(body: unknown): SnapshotParseResult {
  let events: unknown[];
  if (Array.isArray(body)) events = body;
  else if (isJsonObject(body) && Array.isArray(body['batch']) && body['event'] === undefined) events = body['batch'];
  else if (isJsonObject(body)) events = [body];
  else return fail('Request body must be a $snapshot event or an array of $snapshot events.', null, null);

  if (events.length === 0) return fail('Request body contains no events.', null, null);

  const batches = new Map<string, SnapshotBatch>();
  for (let index = 0; index < events.length; index++) {
    const raw = events[index];
    if (!isJsonObject(raw)) return fail(`Event ${index} is not a JSON object.`, null, index);

    if (raw['event'] !== SNAPSHOT_EVENT_NAME) {
      return fail(`Event ${index} must be named "$snapshot".`, 'event', index);
    }

    const propertiesRaw = raw['properties'];
    if (propertiesRaw !== undefined && propertiesRaw !== null && !isJsonObject(propertiesRaw)) {
      return fail(`Event ${index}: properties must be an object.`, 'properties', index);
    }
    const properties: Record<string, unknown> = isJsonObject(propertiesRaw) ? propertiesRaw : {};

    const distinctRaw = raw['distinct_id'] ?? raw['$distinct_id'] ?? properties['distinct_id'] ?? properties['$distinct_id'];
    const distinctId = normaliseDistinctId(distinctRaw);
    if (distinctId === undefined) {
      return fail(`Event ${index}: distinct_id is required.`, 'distinct_id', index);
    }

    // A UUID in upper case (some mobile SDKs) is lower-cased, as ingestion stores events' session
    // ids: a recording and its events meet on the same id (PostHog does both, #49489).
    const sessionId = normalizeSessionId(properties['$session_id']);
    if (sessionId === undefined || sessionId === null) {
      return fail(`Event ${index}: $session_id is required.`, '$session_id', index);
    }
    if (!isValidSessionId(sessionId)) {
      return fail(
        `Event ${index}: $session_id must be a string of at most ${MAX_SESSION_ID_LENGTH} letters, digits or dashes.`,
        '$session_id',
        index,
      );
    }

    const windowRaw = properties['$window_id'];
    let windowId: string;
    if (windowRaw === undefined || windowRaw === null || windowRaw === '') windowId = sessionId;
    else if (typeof windowRaw === 'string') windowId = windowRaw;
    else return fail(`Event ${index}: $window_id must be a string.`, '$window_id', index);

    const data = properties['$snapshot_data'];
    let items: unknown[];
    if (Array.isArray(data)) items = data;
    else if (isJsonObject(data)) items = [data];
    else {
      return fail(
        `Event ${index}: $snapshot_data is required and must be an rrweb event or an array of rrweb events.`,
        '$snapshot_data',
        index,
      );
    }

    const bytesRaw = properties['$snapshot_bytes'];
    const bytes = typeof bytesRaw === 'number' && Number.isFinite(bytesRaw) && bytesRaw > 0 ? bytesRaw : 0;

    const key = `${sessionId}\u0000${windowId}`;
    let batch = batches.get(key);
    if (!batch) {
      const source = properties['$snapshot_source'];
      const lib = properties['$lib'];
      const uuid = raw['uuid'];
      batch = {
        sessionId,
        windowId,
        distinctId,
        snapshotSource: typeof source === 'string' && source !== '' ? source : 'web',
        snapshotLibrary: typeof lib === 'string' && lib.trim() !== '' ? lib : null,
        uuid: typeof uuid === 'string' && uuid !== '' ? uuid : null,
        snapshotBytes: 0,
        events: [],
        droppedItems: 0,
      };
      batches.set(key, batch);
    }
    batch.snapshotBytes += bytes;
    for (const item of items) {
      const event = asRRWebEvent(item);
      if (event) batch.events.push(event);
      else batch.droppedItems += 1;
    }
  }
  return { ok: true, batches: [...batches.values()] };
}
