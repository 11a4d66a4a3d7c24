import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { loadOr404, notFound, validationError } from '../posthog/errors.js';
import { drfDateTime } from '../posthog/python-datetime.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { readDefinitionChanges, readEventDefinitionParams, readPropertyDefinitionParams, type ParamResult } from './core/list-params.js';
import {
  getEventDefinition,
  getPropertyDefinition,
  listEventDefinitions,
  listPropertyDefinitions,
  projectEnvironmentIds,
  updateEventDefinition,
  updatePropertyDefinition,
  type EventDefinition,
  type PropertyDefinition,
} from './store.js';
import { eventVolumes } from './volume-store.js';

function valid<T>(result: ParamResult<T>): T {
  if (!result.ok) throw validationError(result.detail, result.attr);
  return result.value;
}

/** PostHog's EventDefinitionSerializer, with the enterprise serializer's description and volume. */
function serializeEventDefinition(d: EventDefinition, volume: number | null) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    tags: d.tags,
    created_at: drfDateTime(d.createdAt),
    last_seen_at: d.lastSeenAt === null ? null : drfDateTime(d.lastSeenAt),
    last_updated_at: null,
    volume_30_day: volume,
    query_usage_30_day: null,
    is_action: false,
    action_id: null,
    is_calculating: false,
    last_calculated_at: null,
    created_by: null,
    post_to_slack: false,
  };
}

/** PostHog's PropertyDefinitionSerializer, with the enterprise serializer's description. */
function serializePropertyDefinition(d: PropertyDefinition) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    is_numerical: d.isNumerical,
    property_type: d.propertyType,
    tags: d.tags,
    is_seen_on_filtered_events: d.isSeenOnFilteredEvents,
  };
}

/** Definitions' ids are uuids: anything else is no definition (and never reaches the database). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function idOf(request: FastifyRequest): string {
  const id = (request.params as { id?: string }).id ?? '';
  if (!UUID.test(id)) throw notFound();
  return id.toLowerCase();
}

/**
 * `event_definitions/` and `property_definitions/`: what ingestion saw (definitions-step in the
 * worker), listed, searched and filtered as PostHog does; one read and a PATCH of the description
 * and tags each. One list per project: `/api/environments/:id/` of any of its environments and
 * `/api/projects/:id/` answer the same rows (PostHog filters on the project for both).
 */
export const definitionRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { database } = ctx;
  const { db } = database;
  for (const base of TEAM_ROUTE_BASES) {
    const events = `${base.base}/event_definitions`;
    const properties = `${base.base}/property_definitions`;

    app.get(`${events}/`, { config: teamAccess('event_definition:read', base) }, async (request) => {
      const params = valid(readEventDefinitionParams(request.query));
      const page = readPage(request.query);
      const { projectId } = request.team!;
      const { count, rows } = await listEventDefinitions(database, projectId, params, page);
      const volumes = await eventVolumes(
        ctx.analytics,
        await projectEnvironmentIds(db, projectId),
        rows.map((r) => r.name),
        Date.now(),
      );
      return paginate(
        request,
        page,
        count,
        rows.map((r) => serializeEventDefinition(r, volumes.get(r.name) ?? 0)),
      );
    });

    app.get(`${events}/:id/`, { config: teamAccess('event_definition:read', base) }, async (request) => {
      const { projectId } = request.team!;
      const definition = await loadOr404(getEventDefinition(db, projectId, idOf(request)));
      const volumes = await eventVolumes(ctx.analytics, await projectEnvironmentIds(db, projectId), [definition.name], Date.now());
      return serializeEventDefinition(definition, volumes.get(definition.name) ?? 0);
    });

    app.patch(`${events}/:id/`, { config: teamAccess('event_definition:write', base) }, async (request) => {
      const { projectId } = request.team!;
      const id = idOf(request);
      const changes = valid(readDefinitionChanges(request.body));
      const definition = await loadOr404(updateEventDefinition(db, projectId, id, changes));
      const volumes = await eventVolumes(ctx.analytics, await projectEnvironmentIds(db, projectId), [definition.name], Date.now());
      return serializeEventDefinition(definition, volumes.get(definition.name) ?? 0);
    });

    app.get(`${properties}/`, { config: teamAccess('property_definition:read', base) }, async (request) => {
      const params = valid(readPropertyDefinitionParams(request.query));
      const page = readPage(request.query);
      const { count, rows } = await listPropertyDefinitions(database, request.team!.projectId, params, page);
      return paginate(request, page, count, rows.map(serializePropertyDefinition));
    });

    app.get(`${properties}/:id/`, { config: teamAccess('property_definition:read', base) }, async (request) => {
      return serializePropertyDefinition(await loadOr404(getPropertyDefinition(db, request.team!.projectId, idOf(request))));
    });

    app.patch(`${properties}/:id/`, { config: teamAccess('property_definition:write', base) }, async (request) => {
      const id = idOf(request);
      const changes = valid(readDefinitionChanges(request.body));
      return serializePropertyDefinition(await loadOr404(updatePropertyDefinition(db, request.team!.projectId, id, changes)));
    });
  }
};
