import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound, validationError } from '../http/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { getGroup, listGroups, listGroupTypes, type Group } from './store.js';

function serializeGroup(group: Group) {
  return {
    group_type_index: group.groupTypeIndex,
    group_key: group.groupKey,
    group_properties: group.properties,
    created_at: group.createdAt,
  };
}

function readGroupTypeIndex(raw: unknown): number {
  if (raw === undefined || raw === '') throw validationError('This field is required.', 'group_type_index', 'required');
  const index = Number(raw);
  if (!Number.isInteger(index) || index < 0 || index > 4) {
    throw validationError('A valid integer between 0 and 4 is required.', 'group_type_index');
  }
  return index;
}

export const groupRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/groups/`, { config: teamAccess('group:read', base) }, async (request) => {
      const q = request.query as { group_type_index?: string; search?: string };
      const index = readGroupTypeIndex(q.group_type_index);
      const page = readPage(request.query);
      const { count, groups } = await listGroups(db, request.team!.id, index, q.search?.trim() || undefined, page);
      return paginate(request, page, count, groups.map(serializeGroup));
    });

    app.get(`${base.base}/groups/find/`, { config: teamAccess('group:read', base) }, async (request) => {
      const q = request.query as { group_type_index?: string; group_key?: string };
      const index = readGroupTypeIndex(q.group_type_index);
      if (!q.group_key) throw validationError('This field is required.', 'group_key', 'required');
      const group = await getGroup(db, request.team!.id, index, q.group_key);
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
