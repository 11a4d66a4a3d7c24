import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound, validationError } from '../posthog/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { getGroup, listGroups, listGroupTypes, MAX_GROUP_TYPES, type Group } from './store.js';
import { drfDateTime } from '../posthog/python-datetime.js';
import { pyInt } from '../posthog/python-values.js';

/** PostHog's GroupSerializer; `created_at` as its DateTimeField prints it (microseconds, `Z`). */
function serializeGroup(group: Group) {
  return {
    group_type_index: group.groupTypeIndex,
    group_key: group.groupKey,
    group_properties: group.properties,
    created_at: drfDateTime(group.createdAt),
  };
}

/** A query parameter as Django's `request.GET.get` reads it: the last value when repeated. */
function queryParam(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof last === 'string' ? last : undefined;
}

/**
 * The group type index as Python's `int()` reads it, or undefined when it is not one. No range
 * check: PostHog filters by whatever integer it got, so an index no group type has matches nothing.
 */
const pythonInt = (text: string): number | undefined => pyInt(text) ?? undefined;

/** Only 0..4 can exist (store.ts); other integers are not sent to the database (PostgreSQL's integer would overflow). */
const isPossibleIndex = (index: number) => index >= 0 && index < MAX_GROUP_TYPES;

// PostHog's texts, word for word (ee/clickhouse/views/groups.py).
const LIST_NEEDS_INDEX =
  'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.';
const NOT_AN_INTEGER = 'A valid integer is required.';
const REQUIRED_PARAM = 'This query parameter is required.';

export const groupRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/groups/`, { config: teamAccess('group:read', base) }, async (request) => {
      const raw = queryParam(request.query, 'group_type_index');
      if (!raw) throw validationError(LIST_NEEDS_INDEX, 'group_type_index');
      const index = pythonInt(raw);
      if (index === undefined) throw validationError(NOT_AN_INTEGER, 'group_type_index');
      const page = readPage(request.query);
      if (!isPossibleIndex(index)) return paginate(request, page, 0, []);
      // Not trimmed: PostHog searches for the text as sent, and ignores only an empty one.
      const filter = { keyContains: queryParam(request.query, 'group_key'), search: queryParam(request.query, 'search') };
      const { count, groups } = await listGroups(db, request.team!.id, index, filter, page);
      return paginate(request, page, count, groups.map(serializeGroup));
    });

    app.get(`${base.base}/groups/find/`, { config: teamAccess('group:read', base) }, async (request) => {
      const raw = queryParam(request.query, 'group_type_index');
      if (!raw) throw validationError(REQUIRED_PARAM, 'group_type_index');
      const groupKey = queryParam(request.query, 'group_key');
      if (!groupKey) throw validationError(REQUIRED_PARAM, 'group_key');
      // PostHog's find calls int() unguarded, so a non-integer is a 500 there; the list's
      // message is the nearest answer in the error envelope.
      const index = pythonInt(raw);
      if (index === undefined) throw validationError(NOT_AN_INTEGER, 'group_type_index');
      const group = isPossibleIndex(index) ? await getGroup(db, request.team!.id, index, groupKey) : undefined;
      if (!group) throw notFound();
      return serializeGroup(group);
    });

    app.get(`${base.base}/groups_types/`, { config: teamAccess('group:read', base) }, async (request) =>
      (await listGroupTypes(db, request.team!.id)).map((t) => ({
        group_type: t.groupType,
        group_type_index: t.groupTypeIndex,
        name_singular: t.nameSingular,
        name_plural: t.namePlural,
      })),
    );
  }
};
