/**
 * Migration 027: definitions keyed by environment become the project's. Rows of environments of
 * one project that share a key merge into one (the primary's id, else the lowest environment id's;
 * the earliest created_at, the latest last_seen_at, a non-empty description and tags, the primary's
 * property type else any), another project's rows stay apart. The old state is made by running the
 * migrations up to 026.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { insertOrganization, insertProjectWithTeam, insertTeam } from '../../src/environments/tenancy-store.js';
import { defaultTeamSettings } from '../../src/environments/team-fields.js';
import { generateProjectApiToken } from '../../src/auth/tokens.js';
import { fromBool } from '../../src/platform/db/values.js';
import { freshStorage, type TestStorage } from '../helpers/backend.js';
import { databaseBefore } from '../helpers/migrated.js';

let storage: TestStorage | undefined;
let database: Database | undefined;
afterAll(async () => {
  await database?.close();
  await storage?.dispose();
});

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
const newTeam = (name: string) => ({ name, apiToken: generateProjectApiToken(), settings: defaultTeamSettings() });

describe('migration 027-definitions-per-project', () => {
  it('merges the environments of a project into one list', async () => {
    storage = await freshStorage();
    const before = await databaseBefore(storage, '027-definitions-per-project');
    ({ database } = before);
    const { db, types, step } = before;
    expect(migrations[step - 1]!.name).toBe('026-event-uuid-window');

    const organization = await insertOrganization(database.db, 'Org');
    const older = (await insertProjectWithTeam(database.db, { organizationId: organization.id, ...newTeam('Older') })).team;
    const { project, team: primary } = await insertProjectWithTeam(database.db, { organizationId: organization.id, ...newTeam('Prod') });
    const second = await insertTeam(database.db, project.id, { organizationId: organization.id, ...newTeam('Staging') });
    const apart = (await insertProjectWithTeam(database.db, { organizationId: organization.id, ...newTeam('Apart') })).team;
    const third = await insertTeam(database.db, project.id, { organizationId: organization.id, ...newTeam('Preview') });
    // An environment with a lower id than the project's primary, so "the primary first" and "the lowest id first" differ.
    await db.updateTable('teams').set({ project_id: project.id }).where('id', '=', older.id).execute();
    const [o, p, s, a, s2] = [older.id, primary.id, second.id, apart.id, third.id];
    expect(second.projectId).toBe(p);
    expect(o < p && p < s && s < s2).toBe(true);

    const event = (n: number, team: number, name: string, more: Record<string, unknown> = {}) => ({
      id: id(n),
      team_id: team,
      name,
      created_at: at(10),
      last_seen_at: at(10),
      description: null,
      tags: '[]',
      ...more,
    });
    await db
      .insertInto('event_definitions')
      .values([
        // Collide: the second environment saw it first and last, and has the tags; the primary has the description.
        event(1, s, 'signup', { created_at: at(1), last_seen_at: at(20), tags: '["growth"]' }),
        event(2, p, 'signup', { created_at: at(5), last_seen_at: at(9), description: 'Signed up' }),
        // Collide: only the second has a description; the primary's is empty.
        event(3, p, 'login', { description: '', last_seen_at: null }),
        event(4, s, 'login', { description: 'Logged in', tags: '["auth"]', last_seen_at: at(3) }),
        event(5, s, 'staging only'),
        // The primary's row is kept over a lower environment id's.
        event(7, o, 'logout', { description: 'Logged out' }),
        event(8, p, 'logout'),
        // No primary row: the lowest environment id's is kept, the other's description taken.
        event(9, s2, 'checkout', { created_at: at(2), description: 'Paid' }),
        event(10, s, 'checkout'),
        // Another project: the same name stays its own.
        event(6, a, 'signup', { description: 'theirs' }),
      ])
      .execute();
    const property = (n: number, team: number, name: string, more: Record<string, unknown> = {}) => ({
      id: id(100 + n),
      team_id: team,
      name,
      type: 1,
      group_type_index: -1,
      property_type: null,
      is_numerical: types.dialect === 'postgres' ? false : 0,
      description: null,
      tags: '[]',
      ...more,
    });
    const numeric = { property_type: 'Numeric', is_numerical: types.dialect === 'postgres' ? true : 1 };
    await db
      .insertInto('property_definitions')
      .values([
        // The primary has no type: the second's is taken.
        property(1, p, 'amount'),
        property(2, s, 'amount', { ...numeric, description: 'How much' }),
        // Both typed: the primary's wins.
        property(3, s, 'plan', { property_type: 'DateTime' }),
        property(4, p, 'plan', { property_type: 'String' }),
        // A person property of the same name is another key.
        property(5, s, 'plan', { type: 2, property_type: 'String' }),
        property(6, a, 'amount', { property_type: 'String' }),
        // No primary row: the lowest environment id's is kept, the other's type taken.
        property(7, s2, 'currency', { property_type: 'String' }),
        property(8, s, 'currency'),
        // The primary's type is kept over a lower environment id's.
        property(9, o, 'plan', { property_type: 'Numeric' }),
      ])
      .execute();
    await db
      .insertInto('event_properties')
      .values([
        { team_id: p, event: 'signup', property: 'plan' },
        { team_id: s, event: 'signup', property: 'plan' },
        { team_id: s, event: 'signup', property: 'amount' },
        { team_id: a, event: 'signup', property: 'plan' },
        { team_id: o, event: 'signup', property: 'plan' },
        { team_id: s2, event: 'checkout', property: 'plan' },
        { team_id: s, event: 'checkout', property: 'plan' },
      ])
      .execute();

    await migrations[step]!.up(db, types);

    const events = await db.selectFrom('event_definitions').selectAll().orderBy('project_id').orderBy('name').execute();
    const time = (v: unknown) => (v === null ? null : new Date(v as string).toISOString());
    expect(
      events.map((r) => ({
        id: r.id,
        project: Number(r.project_id),
        team: Number(r.team_id),
        name: r.name,
        created: time(r.created_at),
        seen: time(r.last_seen_at),
        description: r.description,
        tags: r.tags,
      })),
    ).toEqual([
      { id: id(10), project: p, team: s, name: 'checkout', created: at(2), seen: at(10), description: 'Paid', tags: '[]' },
      { id: id(3), project: p, team: p, name: 'login', created: at(10), seen: at(3), description: 'Logged in', tags: '["auth"]' },
      { id: id(8), project: p, team: p, name: 'logout', created: at(10), seen: at(10), description: 'Logged out', tags: '[]' },
      { id: id(2), project: p, team: p, name: 'signup', created: at(1), seen: at(20), description: 'Signed up', tags: '["growth"]' },
      { id: id(5), project: p, team: s, name: 'staging only', created: at(10), seen: at(10), description: null, tags: '[]' },
      { id: id(6), project: a, team: a, name: 'signup', created: at(10), seen: at(10), description: 'theirs', tags: '[]' },
    ]);

    const properties = await db
      .selectFrom('property_definitions')
      .selectAll()
      .orderBy('project_id')
      .orderBy('type')
      .orderBy('name')
      .execute();
    expect(
      properties.map((r) => ({
        id: r.id,
        project: Number(r.project_id),
        team: Number(r.team_id),
        name: r.name,
        type: Number(r.type),
        propertyType: r.property_type,
        numerical: fromBool(r.is_numerical),
        description: r.description,
      })),
    ).toEqual([
      { id: id(101), project: p, team: p, name: 'amount', type: 1, propertyType: 'Numeric', numerical: true, description: 'How much' },
      { id: id(108), project: p, team: s, name: 'currency', type: 1, propertyType: 'String', numerical: false, description: null },
      { id: id(104), project: p, team: p, name: 'plan', type: 1, propertyType: 'String', numerical: false, description: null },
      { id: id(105), project: p, team: s, name: 'plan', type: 2, propertyType: 'String', numerical: false, description: null },
      { id: id(106), project: a, team: a, name: 'amount', type: 1, propertyType: 'String', numerical: false, description: null },
    ]);

    const pairs = await db.selectFrom('event_properties').selectAll().orderBy('project_id').orderBy('property').orderBy('event').execute();
    expect(pairs.map((r) => [Number(r.project_id), Number(r.team_id), r.event, r.property])).toEqual([
      [p, s, 'signup', 'amount'],
      [p, s, 'checkout', 'plan'],
      [p, p, 'signup', 'plan'],
      [a, a, 'signup', 'plan'],
    ]);

    // The keys are the project's now: a second row of a project's name is refused, another project's is not.
    await expect(
      db
        .insertInto('event_definitions')
        .values({ ...event(11, s, 'signup'), project_id: p })
        .execute(),
    ).rejects.toThrow();
    await db
      .insertInto('event_definitions')
      .values({ ...event(12, a, 'login'), project_id: a })
      .execute();
  }, 120_000);
});
