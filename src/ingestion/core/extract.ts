/**
 * From a decoded request body to the list of events to ingest, the project token, `sent_at` and
 * `historical_migration` (docs/posthog-parity.md, docs/api.md).
 *
 * Accepted request shapes, tried in PostHog's order:
 *   - `[event, …]` (posthog-js ≤ mid-2026, array bodies on /e/ and /s/);
 *   - `{api_key | token, batch: [event, …], sent_at?, historical_migration?}` (posthog-node, new
 *     posthog-js, the documented /batch/ body);
 *   - a single `event` object (documented /capture/ body; /engage/ objects without `event`).
 *
 * Where the contract and PostHog differ the contract wins
 * (docs/decisions/0002-dropped-events-answered-200.md): an event with
 * no name, no distinct_id or an empty distinct_id is *dropped* with a reason (the request is still
 * answered 200 and the other events are kept). Structural errors (a uuid that is not a uuid,
 * `properties` that is not an object, …) reject the whole request with 400 as PostHog does, and
 * token problems with 401 (docs/decisions/0003-capture-checks-project-key.md; the token is only
 * shape-checked here, the route looks it up).
 */
import type { QueryParams } from './types.js';
import { type HttpFailure, type IngestionWarning, type JsonValue, type Properties, validationFailure } from './types.js';
import { wellFormedText } from '../../lib/well-formed.js';
import { normalizeUuid } from './uuid.js';
import { isJsonObject } from '../../lib/json-object.js';
import { errorEnvelope } from '../../posthog/errors.js';

export type IngestEndpoint = 'capture' | 'batch' | 'engage';

export interface ExtractEventsInput {
  /** Output of `decodeBody`. */
  value: JsonValue;
  /** Which route received it: `/engage` turns name-less objects into `$identify`. */
  endpoint: IngestEndpoint;
  /** Query params; `token`/`api_key` there are the last-resort token source (legacy GET). */
  query?: QueryParams | undefined;
}

/** One event ready for the ingestion pipeline, with only the fields PostHog forwards. */
export interface ExtractedEvent {
  /** Position in the request, for warnings and logs. */
  index: number;
  event: string;
  distinctId: string;
  /** Canonical lower-case uuid, or undefined when the client sent none (generate a v7). */
  uuid: string | undefined;
  /** A shallow copy of the event's properties; never null. */
  properties: Properties;
  /** Raw `timestamp` as sent; interpret with `computeEventTimestamp`. */
  timestamp: unknown;
  /** Raw `offset` (ms before receipt) as sent. */
  offset: unknown;
  /** Top-level `$set` / `$set_once` / `$unset` (posthog-js identify, /engage); see person-properties. */
  set: Properties | undefined;
  setOnce: Properties | undefined;
  unset: unknown;
}

export type DropReason = 'missing_event_name' | 'missing_distinct_id' | 'empty_distinct_id' | 'invalid_event';

export interface DroppedEvent {
  index: number;
  reason: DropReason;
  /** Recorded as an ingestion warning: docs/decisions/0002-dropped-events-answered-200.md. */
  warning: IngestionWarning;
}

export interface ExtractEventsOk {
  ok: true;
  /** Trimmed project API key; still to be looked up. */
  token: string;
  /** Body `sent_at` of the batch envelope, raw; combine with query `_` via `resolveSentAt`. */
  sentAt: unknown;
  historicalMigration: boolean;
  events: ExtractedEvent[];
  dropped: DroppedEvent[];
  /** Events PostHog filters silently (`$performance_event`): neither ingested nor warned about. */
  filteredCount: number;
}

export type TokenProblem =
  'missing' | 'empty' | 'not_string' | 'too_long' | 'not_ascii' | 'personal_api_key' | 'null_byte' | 'inconsistent';

export type ExtractEventsFailure = HttpFailure & { tokenProblem?: TokenProblem };
export type ExtractEventsResult = ExtractEventsOk | ExtractEventsFailure;

export const MAX_DISTINCT_ID_LENGTH = 200;
export const MAX_EVENT_NAME_LENGTH = 200;
export const MAX_TOKEN_LENGTH = 64;
/** capture-rs drops these before anything else; an all-filtered request is still a 200. */
const SILENTLY_FILTERED_EVENTS = new Set(['$performance_event']);

export function extractEvents(input: ExtractEventsInput): ExtractEventsResult {
  const { value } = input;
  let rawEvents: unknown[];
  let envelopeToken: unknown;
  let sentAt: unknown;
  let historicalMigration = false;

  if (Array.isArray(value)) {
    rawEvents = value;
  } else if (isJsonObject(value) && 'batch' in value) {
    if (!Array.isArray(value.batch)) return invalid('Invalid payload: "batch" must be an array of events');
    rawEvents = value.batch;
    envelopeToken = firstPresent(value, ['api_key', 'token']);
    sentAt = value.sent_at;
    historicalMigration = value.historical_migration === true || value.historical_migration === 'true';
  } else if (isJsonObject(value)) {
    rawEvents = [value];
  } else {
    return invalid('Invalid payload: expected an event object, an array of events or a batch object');
  }
  if (rawEvents.length === 0) return invalid('Invalid payload: request holds no event');

  const token = resolveToken(envelopeToken, rawEvents, input.query);
  if (!token.ok) return token;

  const events: ExtractedEvent[] = [];
  const dropped: DroppedEvent[] = [];
  let filteredCount = 0;
  for (let index = 0; index < rawEvents.length; index++) {
    const outcome = extractOne(rawEvents[index], index, input.endpoint);
    if (outcome.kind === 'failure') return outcome.failure;
    if (outcome.kind === 'filtered') filteredCount++;
    else if (outcome.kind === 'dropped') dropped.push(outcome.dropped);
    else events.push(outcome.event);
  }
  return { ok: true, token: token.value, sentAt, historicalMigration, events, dropped, filteredCount };
}

type OneOutcome =
  | { kind: 'event'; event: ExtractedEvent }
  | { kind: 'dropped'; dropped: DroppedEvent }
  | { kind: 'filtered' }
  | { kind: 'failure'; failure: HttpFailure };

function extractOne(raw: unknown, index: number, endpoint: IngestEndpoint): OneOutcome {
  if (!isJsonObject(raw)) {
    // Django rejected the whole request ("some events are null"); one bad element of a batch
    // should not cost the others, so it is dropped and reported like the contract's drop cases.
    return drop(index, 'invalid_event', { type: raw === null ? 'null' : Array.isArray(raw) ? 'array' : typeof raw });
  }
  if (raw.properties !== undefined && raw.properties !== null && !isJsonObject(raw.properties)) {
    return fail(`Invalid payload: Event field "properties" must be an object!`);
  }
  const properties: Properties = isJsonObject(raw.properties) ? { ...raw.properties } : {};

  const name = endpoint === 'engage' && (raw.event === undefined || raw.event === null) ? '$identify' : eventName(raw.event);
  if (name === undefined) return drop(index, 'missing_event_name', { eventUuid: raw.uuid ?? null });
  if (SILENTLY_FILTERED_EVENTS.has(name)) return { kind: 'filtered' };

  const distinctId = extractDistinctId(raw, properties);
  if (distinctId.kind !== 'ok') {
    return drop(index, distinctId.kind === 'empty' ? 'empty_distinct_id' : 'missing_distinct_id', {
      eventName: name,
      eventUuid: raw.uuid ?? null,
    });
  }

  let uuid: string | undefined;
  if (raw.uuid !== undefined && raw.uuid !== null && raw.uuid !== '') {
    uuid = typeof raw.uuid === 'string' ? normalizeUuid(raw.uuid) : undefined;
    if (uuid === undefined) return fail('Invalid payload: Event field "uuid" is not a valid UUID!');
  }
  if (properties.$cookieless_mode !== undefined && typeof properties.$cookieless_mode !== 'boolean') {
    return fail('Invalid payload: event submitted with invalid cookieless mode');
  }

  return {
    kind: 'event',
    event: {
      index,
      event: name,
      distinctId: distinctId.value,
      uuid,
      properties,
      timestamp: raw.timestamp,
      offset: raw.offset,
      set: isJsonObject(raw.$set) ? raw.$set : undefined,
      setOnce: isJsonObject(raw.$set_once) ? raw.$set_once : undefined,
      unset: raw.$unset,
    },
  };
}

/**
 * PostHog's name rules: strings are kept; other non-null values are JSON-encoded
 * (plugin-server `sanitizeEventName`); NUL and lone surrogates become U+FFFD (as in distinct ids:
 * the name is stored in a text column); truncated to 200 characters. Missing, null or empty →
 * undefined (the caller drops the event, contract "the event has no name").
 */
export function eventName(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const name = typeof raw === 'string' ? raw : safeStringify(raw);
  if (name === '') return undefined;
  return truncateCodePoints(wellFormedText(name), MAX_EVENT_NAME_LENGTH);
}

export type DistinctIdOutcome = { kind: 'ok'; value: string } | { kind: 'missing' } | { kind: 'empty' };

/**
 * distinct_id sources in capture-rs order: top-level `distinct_id`, its alias `$distinct_id`, then
 * `properties.distinct_id`. Non-strings are JSON-encoded (`123` → `"123"`), NUL and lone UTF-16
 * surrogates become U+FFFD (`wellFormedText`: both databases would store a lone surrogate as U+FFFD,
 * and a lookup by the original string would then miss the stored id; PostgreSQL refuses NUL), and
 * the id is cut to 200 characters (PostHog truncates rather than rejects long ids). An empty string
 * counts as absent and the next source is tried, so a blank top-level id never hides a real one.
 */
export function extractDistinctId(raw: Record<string, unknown>, properties: Properties): DistinctIdOutcome {
  let sawEmpty = false;
  for (const candidate of [raw.distinct_id, raw.$distinct_id, properties.distinct_id]) {
    if (candidate === undefined || candidate === null) continue;
    const text = typeof candidate === 'string' ? candidate : safeStringify(candidate);
    if (text === '') {
      sawEmpty = true;
      continue;
    }
    return { kind: 'ok', value: truncateCodePoints(wellFormedText(text), MAX_DISTINCT_ID_LENGTH) };
  }
  return sawEmpty ? { kind: 'empty' } : { kind: 'missing' };
}

/** Shape checks of capture-rs `token.rs` / Django `_check_token_shape`, on the trimmed token. */
export function checkTokenShape(raw: unknown): { ok: true; token: string } | { ok: false; problem: TokenProblem } {
  if (raw === undefined || raw === null) return { ok: false, problem: 'missing' };
  if (typeof raw !== 'string') return { ok: false, problem: 'not_string' };
  const token = raw.trim();
  if (token === '') return { ok: false, problem: 'empty' };
  if (token.includes('\u0000')) return { ok: false, problem: 'null_byte' };
  if (token.length > MAX_TOKEN_LENGTH) return { ok: false, problem: 'too_long' };
  if (!/^[\x20-\x7e]*$/.test(token)) return { ok: false, problem: 'not_ascii' };
  // Personal API keys are secrets; refusing them here stops clients from leaking them in events.
  if (token.startsWith('phx_')) return { ok: false, problem: 'personal_api_key' };
  return { ok: true, token };
}

/**
 * Token precedence: the batch envelope's `api_key` (alias `token`) wins; otherwise each event's
 * top-level `token`, `$token`, `api_key`, then `properties.token`, and all events that carry one
 * must agree; otherwise the query's `token` / `api_key` (legacy GET). Events without a token of
 * their own inherit the request's token.
 */
function resolveToken(
  envelopeToken: unknown,
  rawEvents: unknown[],
  query: QueryParams | undefined,
): { ok: true; value: string } | ExtractEventsFailure {
  let chosen: unknown = envelopeToken;
  if (chosen === undefined || chosen === null) {
    const seen = new Set<unknown>();
    for (const raw of rawEvents) {
      if (!isJsonObject(raw)) continue;
      const own = firstPresent(raw, ['token', '$token', 'api_key']) ?? (isJsonObject(raw.properties) ? raw.properties.token : undefined);
      if (own === undefined || own === null) continue;
      seen.add(typeof own === 'string' ? own.trim() : own);
    }
    if (seen.size > 1) {
      return tokenFailure('inconsistent', 'invalid_api_key', 'Batch submitted with inconsistent api_key values.');
    }
    chosen = seen.values().next().value ?? queryValue(query, 'token') ?? queryValue(query, 'api_key');
  }
  const checked = checkTokenShape(chosen);
  if (checked.ok) return { ok: true, value: checked.token };
  if (checked.problem === 'missing') {
    return tokenFailure('missing', 'missing_api_key', 'API key not provided. You can find your project API key in your project settings.');
  }
  return tokenFailure(
    checked.problem,
    'invalid_api_key',
    'Project API key invalid. You can find your project API key in your project settings.',
  );
}

function tokenFailure(problem: TokenProblem, code: string, detail: string): ExtractEventsFailure {
  return { ok: false, status: 401, error: errorEnvelope('authentication_error', code, detail), tokenProblem: problem };
}

function drop(index: number, reason: DropReason, details: Record<string, unknown>): OneOutcome {
  return { kind: 'dropped', dropped: { index, reason, warning: { type: reason, details: { index, ...details } } } };
}

function fail(detail: string): OneOutcome {
  return { kind: 'failure', failure: invalid(detail) };
}

function invalid(detail: string): HttpFailure {
  return validationFailure('invalid_payload', detail);
}

function firstPresent(object: Record<string, unknown>, keys: string[]): unknown {
  for (const key of keys) {
    const value = object[key];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

function queryValue(query: QueryParams | undefined, key: string): string | undefined {
  const value = query?.[key];
  return Array.isArray(value) ? value[0] : value;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Cuts to `max` Unicode code points so a surrogate pair is never split. */
export function truncateCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  let units = 0;
  let points = 0;
  while (units < text.length && points < max) {
    const code = text.codePointAt(units)!;
    units += code > 0xffff ? 2 : 1;
    points++;
  }
  return text.slice(0, units);
}
