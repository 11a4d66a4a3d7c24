import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound, validationError } from '../http/errors.js';
import { absoluteUrl } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { distinctIdsOf, getPersonsByDistinctIds } from '../persons/store.js';
import { getEvent, listEvents, UnsupportedFilterError, type PropertyFilter, type StoredEvent } from './store.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

interface EventsQuery {
  event?: string;
  distinct_id?: string;
  person_id?: string;
  properties?: string;
  after?: string;
  before?: string;
  limit?: string;
}

function parseProperties(raw: string | undefined): PropertyFilter[] | undefined {
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationError('Properties are unparsable!', 'properties');
  }
  // PostHog also takes `{"type": "AND", "values": [...]}`; a flat list is the common form.
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Array.isArray((parsed as { values?: unknown }).values)) {
    parsed = (parsed as { values: unknown[] }).values;
  }
  if (!Array.isArray(parsed) || parsed.some((p) => !p || typeof p !== 'object' || typeof (p as PropertyFilter).key !== 'string')) {
    throw validationError('Properties must be a list of {key, value, operator, type} filters.', 'properties');
  }
  return parsed as PropertyFilter[];
}

function parseTime(value: string | undefined, attr: string): string | undefined {
  if (!value) return undefined;
  const relative = /^-(\d+)([hdwm])$/.exec(value);
  if (relative) {
    const unit = { h: 3_600_000, d: 86_400_000, w: 604_800_000, m: 2_592_000_000 }[relative[2] as 'h' | 'd' | 'w' | 'm'];
    return new Date(Date.now() - Number(relative[1]) * unit).toISOString();
  }
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw validationError(`"${value}" is not a valid date.`, attr);
  return new Date(ms).toISOString();
}

/**
 * PostHog's event shape (EventViewSet), with the person embedded when there is one: the person its
 * distinct id belongs to now (PostHog's `_get_people`), so events from before a merge show the
 * merged person.
 */
async function serializeEvents(ctx: AppContext, teamId: number, events: StoredEvent[]) {
  const db = ctx.database.db;
  const owners = await getPersonsByDistinctIds(db, teamId, [...new Set(events.map((e) => e.distinctId))]);
  const distinctIds = await distinctIdsOf(db, [...new Set([...owners.values()].map((p) => p.id))]);
  return events.map((e) => {
    const owner = owners.get(e.distinctId);
    const person = owner && { ...owner, distinctIds: distinctIds.get(owner.id) ?? [] };
    return {
      id: e.uuid,
      distinct_id: e.distinctId,
      properties: e.properties,
      event: e.event,
      timestamp: e.timestamp,
      person: person ? { is_identified: person.isIdentified, distinct_ids: person.distinctIds, properties: person.properties } : null,
      elements: [],
      elements_chain: e.elementsChain ?? '',
    };
  });
}

/** PostHog pages events by time: `next` asks for what came before the last one shown. */
function nextUrl(request: FastifyRequest, last: StoredEvent): string {
  const url = absoluteUrl(request);
  url.searchParams.set('before', last.timestamp);
  return url.toString();
}

export const eventRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/events/`, { config: teamAccess('query:read', base) }, async (request) => {
      const q = request.query as EventsQuery;
      const limitRaw = Number(q.limit);
      const limit = Number.isInteger(limitRaw) && limitRaw > 0 ? Math.min(limitRaw, MAX_LIMIT) : DEFAULT_LIMIT;
      const teamId = request.team!.id;
      let events: StoredEvent[];
      try {
        events = await listEvents(
          ctx.database,
          teamId,
          {
            event: q.event || undefined,
            distinctId: q.distinct_id || undefined,
            personUuid: q.person_id || undefined,
            after: parseTime(q.after, 'after'),
            before: parseTime(q.before, 'before'),
            properties: parseProperties(q.properties),
          },
          limit + 1,
        );
      } catch (error) {
        if (error instanceof UnsupportedFilterError) throw validationError(error.message, 'properties');
        throw error;
      }
      const page = events.slice(0, limit);
      return {
        next: events.length > limit ? nextUrl(request, page[page.length - 1]!) : null,
        results: await serializeEvents(ctx, teamId, page),
      };
    });

    app.get(`${base.base}/events/:event_id/`, { config: teamAccess('query:read', base) }, async (request) => {
      const { event_id: eventId } = request.params as { event_id: string };
      const event = await getEvent(ctx.database, request.team!.id, eventId.toLowerCase());
      if (!event) throw notFound();
      return (await serializeEvents(ctx, request.team!.id, [event]))[0];
    });
  }
};
