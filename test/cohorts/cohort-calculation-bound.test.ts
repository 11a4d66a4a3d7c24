/**
 * A dynamic cohort of an environment past MAX_JUDGED persons is not judged (that would read every
 * person for minutes): its calculation fails at once and records it as PostHog records a failed
 * calculation (`errors_calculating` + 1, `last_error_at`, no longer calculating, the count kept).
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { cohortsPath, personFilter } from '../flags/flag-helpers.js';
import { MAX_JUDGED } from '../../src/cohorts/members.js';

const server = useTestServer();

/** MAX_JUDGED + 1 persons, written in one statement (as ingestion would leave them, without distinct ids). */
beforeAll(async () => {
  const { db, dialect } = server.running.ctx.database;
  const teamId = server.bootstrap.team.id;
  const total = MAX_JUDGED + 1;
  if (dialect === 'postgres') {
    await sql`insert into persons (uuid, team_id, properties, is_identified, created_at, version)
      select 'bulk-' || n, ${teamId}, '{"plan":"pro"}'::jsonb, false, now(), 0 from generate_series(1, ${total}) as n`.execute(db);
  } else {
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${total})
      insert into persons (uuid, team_id, properties, is_identified, created_at, version)
      select 'bulk-' || i, ${teamId}, '{"plan":"pro"}', 0, '2025-01-01T00:00:00.000Z', 0 from n`.execute(db);
  }
}, 120_000);

describe('a dynamic cohort past MAX_JUDGED persons', () => {
  it('records a failed calculation instead of judging them, and again after a change', async () => {
    const created = await server.request(cohortsPath(server), {
      method: 'POST',
      body: { name: 'Too many', filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [personFilter('plan', 'pro')] }] } } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.is_calculating).toBe(true);
    const read = async () => (await server.request(cohortsPath(server, `${created.body.id}/`))).body;
    const failed = await waitFor(read, { what: 'the calculation to fail', until: (c) => c.errors_calculating === 1 });
    expect(failed).toMatchObject({ is_calculating: false, count: null, last_calculation: null });
    expect(Date.parse(failed.last_error_at)).toBeGreaterThanOrEqual(Date.parse(created.body.created_at));

    // A change asks again; it fails again, counted.
    const patched = await server.request(cohortsPath(server, `${created.body.id}/`), { method: 'PATCH', body: { name: 'Still too many' } });
    expect(patched.body).toMatchObject({ is_calculating: true, errors_calculating: 1 });
    await waitFor(read, { what: 'the second failure', until: (c) => c.errors_calculating === 2 && !c.is_calculating });

    // Its members are refused as before.
    const members = await server.request(cohortsPath(server, `${created.body.id}/persons/`));
    expect(members.status).toBe(400);
  });
});
