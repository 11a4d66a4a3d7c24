import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound, validationError } from '../posthog/errors.js';
import { absoluteUrl, rowsWithinPageBytes } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { effectiveTimezone } from '../lib/zoned-time.js';
import { chainToElements } from './elements-chain.js';
import { ownersOf, type EventPerson } from './owners-store.js';
import { parseProperties } from './property-groups.js';
import { pythonIsoformat } from '../posthog/python-datetime.js';
import { pyInt, queryParam } from '../posthog/python-values.js';
import { canonicalUuid } from '../lib/uuid.js';
import { DateOutOfRangeError, relativeDateParse } from './relative-date.js';
import { eventListCursor, getEvent, listEvents, type EventFilter, type EventListCursor, type StoredEvent } from './store.js';
import { isInvalidRegexError } from '../posthog/property-conditions.js';
import { storedInstantText } from '../platform/db/values.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/**
 * `after` / `before` as PostHog reads them (relative_date_parse in the project's timezone), as the
 * stored timestamps' ISO text. Microseconds round outward (after down, before up), so the strict
 * comparisons keep exactly the events PostHog keeps.
 */
function timeBound(text: string | undefined, attr: 'after' | 'before', timezone: string): string | undefined {
  if (!text) return undefined;
  let ms: number;
  try {
    ms = relativeDateParse(text, timezone);
  } catch (error) {
    // Python's datetime overflows there (a server error in PostHog).
    if (error instanceof DateOutOfRangeError) throw validationError(`"${text}" is out of the supported date range.`, attr);
    throw error;
  }
  // Held within years 1-9999 in UTC too, which both databases read: no event lies outside them.
  return storedInstantText(attr === 'after' ? Math.floor(ms) : Math.ceil(ms));
}

/** `person_id`: a person's uuid, else its numeric id (`get_person_by_pk_or_uuid`); else no one. */
function personRef(text: string): EventFilter['person'] | null {
  const uuid = canonicalUuid(text);
  if (uuid) return { uuid };
  const id = pyInt(text);
  return id !== null && Number.isSafeInteger(id) ? { id } : null;
}

/** `offset`: Python's int(), 0 when unreadable; never negative, never past what SQL binds. */
function readOffset(text: string | undefined): number {
  const n = text ? pyInt(text) : null;
  return n === null || n < 0 ? 0 : Math.min(n, Number.MAX_SAFE_INTEGER);
}

/** `include_person`: "true" or "1", in any case. */
const includePerson = (request: FastifyRequest) =>
  ['true', '1'].includes((queryParam(request.query, 'include_person') ?? '').toLowerCase());

/** Only the display keys of a person's properties go out with its events. */
const PERSON_DISPLAY_KEYS = ['email', 'name', 'username'];

function serializePerson(person: EventPerson) {
  const properties: Record<string, unknown> = {};
  for (const key of PERSON_DISPLAY_KEYS) if (Object.hasOwn(person.properties, key)) properties[key] = person.properties[key];
  // Only the first distinct id, as PostHog, "to avoid a payload bloat".
  return { is_identified: person.isIdentified, distinct_ids: person.distinctIds.slice(0, 1), properties };
}

/**
 * PostHog's ClickhouseEventSerializer. The person is there only when asked for (`include_person`),
 * and it is the person its distinct id belongs to now (PostHog's `_get_people`), so events from
 * before a merge show the merged person. `timestamp` is Python's isoformat of the UTC instant
 * (`+00:00`, microseconds when there are any), not the stored `Z` text, whatever the timezone.
 */
async function serializeEvents(ctx: AppContext, teamId: number, events: StoredEvent[], withPerson: boolean) {
  const owners = withPerson
    ? await ownersOf(
        ctx.database,
        teamId,
        events.map((e) => e.distinctId),
      )
    : new Map<string, EventPerson>();
  return events.map((e) => {
    const owner = owners.get(e.distinctId);
    return {
      id: e.uuid,
      distinct_id: e.distinctId,
      properties: e.properties,
      event: e.event,
      timestamp: pythonIsoformat(e.timestamp),
      person: owner ? serializePerson(owner) : null,
      elements: chainToElements(e.elementsChain),
      elements_chain: e.elementsChain ?? '',
    };
  });
}

/**
 * PostHog pages events by time: `next` asks for what came before the last one shown, its
 * timestamp printed as the event shows it (`_build_next_url` uses the same isoformat). Events
 * that share that timestamp would be skipped (a batch's events often do), so `next` also names
 * the last event shown (`before_uuid`): the next page starts right after it in the list's order
 * (timestamp, then uuid). Its position is the cursor, so an `offset` is not carried on.
 */
function nextUrl(request: FastifyRequest, last: StoredEvent): string {
  const url = absoluteUrl(request);
  url.searchParams.set('before', pythonIsoformat(last.timestamp));
  url.searchParams.set('before_uuid', last.uuid);
  url.searchParams.delete('offset');
  return url.toString();
}

/** `before_uuid` (written by `next`): where the previous page ended, if that event is still stored. */
async function pageCursor(ctx: AppContext, teamId: number, text: string | undefined): Promise<EventListCursor | undefined> {
  const uuid = text ? canonicalUuid(text) : null;
  return uuid ? eventListCursor(ctx.analytics, teamId, uuid) : undefined;
}

export const eventRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/events/`, { config: teamAccess('query:read', base) }, async (request) => {
      const param = (name: string) => queryParam(request.query, name);
      const limitRaw = Number(param('limit'));
      const limit = Number.isInteger(limitRaw) && limitRaw > 0 ? Math.min(limitRaw, MAX_LIMIT) : DEFAULT_LIMIT;
      const team = request.team!;
      const timezone = effectiveTimezone(team.settings.timezone);
      const personParam = param('person_id');
      const person = personParam ? personRef(personParam) : undefined;
      // A person_id that names no one: no events, as PostHog's empty `distinct_id IN ()`.
      if (person === null) return { next: null, results: [] };
      // Where the previous page ended supersedes `before`, which `next` sets to its timestamp.
      const beforeEvent = await pageCursor(ctx, team.id, param('before_uuid'));
      let events: StoredEvent[];
      try {
        events = await listEvents(
          ctx,
          team.id,
          {
            event: param('event') || undefined,
            // PostHog filters whenever the parameter is there, even empty (`is not None`).
            distinctId: param('distinct_id'),
            person,
            after: timeBound(param('after'), 'after', timezone),
            // Without `before`, nothing past now + 5 s: events stamped in the future stay out.
            before: beforeEvent ? undefined : (timeBound(param('before'), 'before', timezone) ?? new Date(Date.now() + 5000).toISOString()),
            beforeEvent,
            properties: parseProperties(param('properties')),
          },
          { limit: limit + 1, offset: readOffset(param('offset')) },
        );
      } catch (error) {
        if (isInvalidRegexError(error)) throw validationError('Invalid regular expression in the properties filter.', 'properties');
        throw error;
      }
      const serialized = await serializeEvents(ctx, team.id, events.slice(0, limit), includePerson(request));
      const results = serialized.slice(0, rowsWithinPageBytes(serialized));
      return {
        next: events.length > results.length ? nextUrl(request, events[results.length - 1]!) : null,
        results,
      };
    });

    app.get(`${base.base}/events/:event_id/`, { config: teamAccess('query:read', base) }, async (request, reply) => {
      const { event_id: eventId } = request.params as { event_id: string };
      const uuid = canonicalUuid(eventId);
      // PostHog answers this one itself, without the exception handler's `attr`.
      if (!uuid) return reply.code(400).send({ detail: 'Invalid UUID', code: 'invalid', type: 'validation_error' });
      const event = await getEvent(ctx.analytics, request.team!.id, uuid);
      if (!event) throw notFound(`No events exist for event UUID ${eventId}`);
      return (await serializeEvents(ctx, request.team!.id, [event], includePerson(request)))[0];
    });
  }
};
