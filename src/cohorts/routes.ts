import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { loadOr404 } from '../posthog/errors.js';
import { pathId } from '../http/path-id.js';
import { serializerData } from '../posthog/fields.js';
import { paginate, readPage } from '../http/pagination.js';
import { personListResults } from '../persons/list-results.js';
import { parseMultipart } from './csv-members.js';
import { cohortMembers } from './members.js';
import { createCohort, editCohort, serializeCohort } from './service.js';
import { addPersonsToStaticCohort, removePersonFromStaticCohort } from './static-members.js';
import { getCohort, listLiveCohorts, type Cohort } from './store.js';

type Json = Record<string, unknown>;

const TEAM = { from: 'project', param: 'project_id' } as const;
const READ = { access: { scope: 'cohort:read', team: TEAM } };
const WRITE = { access: { scope: 'cohort:write', team: TEAM } };
/** PostHog's `persons` action declares both scopes. */
const MEMBERS = { access: { scope: ['cohort:read', 'person:read'], team: TEAM } };

/**
 * A JSON body, or a multipart form whose `csv` file part is an upload (as Django, only a part with
 * a file name counts as a file). A JSON `csv` string is taken as an upload too (Hoglet's addition).
 */
function readBody(request: FastifyRequest): { body: Json; csv?: Buffer | string } {
  const raw = request.body;
  if (Buffer.isBuffer(raw)) {
    const body: Json = {};
    let csv: Buffer | undefined;
    for (const part of parseMultipart(raw, String(request.headers['content-type'] ?? ''))) {
      if (part.filename !== undefined) {
        if (part.name === 'csv' && part.filename !== '') csv = part.value;
      } else body[part.name] = part.value.toString('utf8');
    }
    return { body, ...(csv ? { csv } : {}) };
  }
  const body = serializerData(raw);
  return { body, ...(typeof body.csv === 'string' ? { csv: body.csv } : {}) };
}

export const cohortRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  const base = '/projects/:project_id/cohorts';
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const loadCohort = (request: FastifyRequest): Promise<Cohort> => loadOr404(getCohort(db, request.team!.projectId, pathId(request)));

  app.get(`${base}/`, { config: READ }, async (request) => {
    const page = readPage(request.query);
    const { count, cohorts } = await listLiveCohorts(db, request.team!.projectId, page);
    return paginate(request, page, count, await Promise.all(cohorts.map((c) => serializeCohort(ctx, c))));
  });

  app.post(`${base}/`, { config: WRITE }, async (request, reply) => {
    const { body, csv } = readBody(request);
    const cohort = await createCohort(ctx, request.team!, request.principal!.user, body, csv);
    reply.code(201);
    return serializeCohort(ctx, cohort);
  });

  app.get(`${base}/:id/`, { config: READ }, async (request) => serializeCohort(ctx, await loadCohort(request)));

  // The cohort's members (members.ts), paged with limit/offset; `count` is Hoglet's addition.
  app.get(`${base}/:id/persons/`, { config: MEMBERS }, async (request) => {
    const cohort = await loadCohort(request);
    const team = request.team!;
    const page = readPage(request.query);
    const { count, persons } = await cohortMembers(ctx, team, cohort, page);
    return paginate(request, page, count, await personListResults(db, team, persons));
  });

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: `${base}/:id/`,
      config: WRITE,
      handler: async (request) => {
        const { body, csv } = readBody(request);
        return serializeCohort(ctx, await editCohort(ctx, request.team!, await loadCohort(request), body, method, csv));
      },
    });
  }

  // PostHog's member actions answer `{"success": true}`, not the cohort.
  app.patch(`${base}/:id/add_persons_to_static_cohort/`, { config: WRITE }, async (request) => {
    const cohort = await loadCohort(request);
    return addPersonsToStaticCohort(ctx, request.team!, cohort, readBody(request).body);
  });

  app.patch(`${base}/:id/remove_person_from_static_cohort/`, { config: WRITE }, async (request) => {
    const cohort = await loadCohort(request);
    return removePersonFromStaticCohort(ctx, request.team!, cohort, readBody(request).body);
  });
  // DELETE answers 405: cohorts are soft-deleted with PATCH {"deleted": true}, as in PostHog.
};
