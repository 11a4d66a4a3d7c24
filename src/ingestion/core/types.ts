import { errorEnvelope, type ErrorEnvelope } from '../../posthog/errors.js';
/**
 * Shared shapes of the pure ingestion cores.
 *
 * Everything in `src/ingestion/core/` is a plain function over these values: no I/O, no clock
 * (callers inject `now`), no randomness unless passed in. Routes and workers own side effects.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Query values as HTTP frameworks hand them over (fastify gives arrays for repeated keys). */
export type QueryParams = Record<string, string | string[] | undefined>;

/** A property bag as it travels on an event or a person. Values are JSON but typed loosely. */
export type Properties = Record<string, unknown>;

/** A failure that a route answers directly. */
export interface HttpFailure {
  ok: false;
  status: 400 | 401 | 413;
  error: ErrorEnvelope;
}

/** Ingestion warning as PostHog records it (`type` is PostHog's warning name, details free-form). */
export interface IngestionWarning {
  type: string;
  details: Record<string, unknown>;
}

export function validationFailure(code: string, detail: string, status: 400 | 413 = 400): HttpFailure {
  return {
    ok: false,
    status,
    error: errorEnvelope(status === 413 ? 'invalid_request' : 'validation_error', code, detail),
  };
}

/** What capture commits for one accepted event: the event as sent plus its request context. */
export interface QueuedEvent {
  /** Sent by the client, or generated at capture so a replay after a crash dedupes. */
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Properties;
  timestamp?: unknown;
  offset?: unknown;
  set?: Properties | undefined;
  set_once?: Properties | undefined;
  unset?: unknown;
  /** The request's sent_at, ISO, when known. */
  sent_at?: string | null;
  /** When capture received it, ISO. */
  now: string;
  /** The client address, for `$ip` and GeoIP. */
  ip: string | null;
  /** Person-only replay of an event whose person processing was deferred by spike detection. */
  person_only?: boolean;
  /** Rounds in which the event failed even alone, while in a chunk (a row of its own counts its row's `attempts`). */
  attempts?: number;
}
