/**
 * Event-level rules PostHog applies before an event is stored, apart from persons and GeoIP:
 * which pipeline an event belongs to, the request context added to its properties
 * (nodejs `common/utils/event.ts` `sanitizeEvent`), and what its person mode removes from them
 * (`normalizeProcessPerson`, error tracking's prepare step). Pure; the worker's prepare step
 * (worker/prepare.ts) calls them in this order:
 *
 *   routeEvent → (timestamp, person mode, person properties) → addRequestContext → GeoIP
 *   → applyPersonModeToProperties.
 *
 * The properties these take are the event's own copy (normalizePersonProperties made it): they
 * are changed in place, and a key to drop is set to undefined rather than deleted (JSON leaves it
 * out; a deleted key would turn the object into a slow dictionary for the serialisation after).
 */
import { type IngestionWarning, type Properties } from './types.js';
import { parseTimestamp } from './timestamps.js';

/**
 * Where PostHog sends an event (nodejs `routeEventToPipeline`, the error tracking consumer):
 * - `client_ingestion_warning`: `$$client_ingestion_warning` becomes an ingestion warning only;
 * - `heatmap`: `$$heatmap` feeds the heatmaps table only (no event row, no person);
 * - `exception`: `$exception` goes to error tracking, which stores the event but only *reads*
 *   the person and the group type mappings (it creates and changes neither);
 * - `analytics`: everything else.
 */
export type EventRoute = 'analytics' | 'client_ingestion_warning' | 'heatmap' | 'exception';

export function routeEvent(event: string): EventRoute {
  // Nearly every event is a plain one: a single character test keeps them off the comparisons.
  if (event.charCodeAt(0) !== 36 /* $ */) return 'analytics';
  if (event === '$exception') return 'exception';
  if (event === '$$heatmap') return 'heatmap';
  if (event === '$$client_ingestion_warning') return 'client_ingestion_warning';
  return 'analytics';
}

/** A `$$client_ingestion_warning` event as PostHog records it (`handleClientIngestionWarningStep`). */
export function clientIngestionWarning(event: {
  uuid: string;
  event: string;
  distinctId: string;
  properties: Properties;
}): IngestionWarning {
  return {
    type: 'client_ingestion_warning',
    details: {
      eventUuid: event.uuid,
      event: event.event,
      distinctId: event.distinctId,
      message: event.properties.$$client_ingestion_warning_message,
    },
  };
}

/** PostHog's `UUID.validateString`: any case, no braces. */
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UPPER_HEX = /[A-F]/;

/**
 * A `$session_id` that is a UUID, lower-cased (some mobile SDKs send upper case; PostHog's
 * `normalizeSessionId`, issue #46111). Anything else is kept as it is. The session ids of nearly
 * every event are lower-case UUIDs already: they are returned before the full pattern is tried.
 */
export function normalizeSessionId(value: unknown): unknown {
  if (typeof value !== 'string' || value.length !== 36 || !UPPER_HEX.test(value) || !UUID_TEXT.test(value)) return value;
  return value.toLowerCase();
}

/**
 * `sanitizeEvent`'s request context, in place: `$ip` from the capture address when the event's own
 * is missing or empty (PostHog tests `!properties.$ip`, so null and "" are replaced too), the
 * request's `sent_at` as `$sent_at`, and a UUID `$session_id` lower-cased.
 */
export function addRequestContext(properties: Properties, ip: string | null | undefined, sentAt: string | null | undefined): void {
  if (ip && !properties.$ip) properties.$ip = ip;
  // As capture-rs hands it on: parsed (an unparsable or outsized text is not copied into every
  // event of the request), written back as an RFC 3339 UTC time.
  if (sentAt) {
    const parsed = parseTimestamp(sentAt);
    if (parsed) properties.$sent_at = parsed.toISOString();
  }
  const sessionId = properties.$session_id;
  if (typeof sessionId === 'string') {
    const normalized = normalizeSessionId(sessionId);
    if (normalized !== sessionId) properties.$session_id = normalized;
  }
}

/** How the event's person is handled (see worker/prepare.ts `PreparedEvent.mode`). */
export type StoredPersonMode = 'process' | 'personless' | 'lookup';

/**
 * What the person mode removes from the stored properties, in place:
 * - a personless event loses `$set`, `$set_once` and `$unset`, and keeps `$process_person_profile: false`;
 * - a `$groupidentify` loses them too (it never updates a person: `normalizeProcessPerson`);
 * - any other event that processes its person loses `$process_person_profile` (it is the default:
 *   `true`, or an invalid value that was warned about and ignored);
 * - an `$exception` loses `$set` and `$set_once` (error tracking's prepare step: no person is updated
 *   from it, so they would describe a person that does not have them).
 * Heatmap data never goes to the events table (PostHog's `extractHeatmapDataStep`, run on every
 * event, takes it out before the event row is written).
 */
export function applyPersonModeToProperties(properties: Properties, event: string, mode: StoredPersonMode): void {
  if (mode === 'lookup') {
    omit(properties, '$set');
    omit(properties, '$set_once');
  } else if (!keepsPersonPropertyUpdates(mode, event)) {
    omit(properties, '$set');
    omit(properties, '$set_once');
    omit(properties, '$unset');
  }
  if (mode === 'personless') {
    if (properties.$process_person_profile !== false) properties.$process_person_profile = false;
  } else if (mode === 'process') {
    omit(properties, '$process_person_profile');
  }
  omit(properties, '$heatmap_data');
}

/** Whether a stored event keeps its `$set` and `$set_once` (applyPersonModeToProperties). */
export function keepsPersonPropertyUpdates(mode: StoredPersonMode, event: string): boolean {
  return mode !== 'lookup' && mode !== 'personless' && event !== '$groupidentify';
}

/** Leaves the key out of the stored JSON (see the file comment). */
function omit(properties: Properties, key: string): void {
  if (properties[key] !== undefined) properties[key] = undefined;
}
