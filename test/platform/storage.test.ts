import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openAndMigrate } from '../../src/platform/db/open-and-migrate.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/platform/db/database.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { bootstrapIfEmpty } from '../../src/environments/bootstrap.js';
import { getTeam, getTeamByApiToken } from '../../src/environments/tenancy-store.js';
import { BACKEND, freshStorage, type TestStorage } from '../helpers/backend.js';
import { createProject } from '../helpers/fixtures.js';

const quiet = pino({ level: 'silent' });
const open: Database[] = [];
const stores: TestStorage[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  for (const s of stores.splice(0)) await s.dispose();
});

async function openFresh(s?: TestStorage) {
  const storage = s ?? (await freshStorage());
  if (!s) stores.push(storage);
  const database = await openAndMigrate(loadConfig(storage.env), quiet);
  open.push(database);
  return { storage, database };
}

describe(`storage on ${BACKEND}`, () => {
  it('uses the configured backend', async () => {
    const { storage, database } = await openFresh();
    expect(database.dialect).toBe(BACKEND);
    if (BACKEND === 'sqlite') expect(database.location).toBe(path.join(storage.dataDir, 'hoglet.db'));
  });

  it('runs every migration once, and again is a no-op', async () => {
    const { storage, database } = await openFresh();
    const applied = await database.db
      .selectFrom('hoglet_migrations' as never)
      .select('name' as never)
      .execute();
    expect(applied.map((r: Record<string, string>) => r.name)).toEqual(migrations.map((m) => m.name));
    const second = await openFresh(storage);
    const again = await second.database.db
      .selectFrom('hoglet_migrations' as never)
      .select('name' as never)
      .execute();
    expect(again).toHaveLength(migrations.length);
  });

  it("gives a project's first environment the project's id, and later ids never collide", async () => {
    const { database } = await openFresh();
    const boot = (await bootstrapIfEmpty(database, { email: 'a@example.com' }))!;
    expect(boot.team.id).toBe(boot.project.id);
    const second = await createProject(database, boot.organization.id);
    expect(second.team.id).toBe(second.project.id);
    expect(second.team.id).toBeGreaterThan(boot.team.id);
    const found = await getTeamByApiToken(database.db, second.team.apiToken);
    expect(found?.id).toBe(second.team.id);
    expect((await getTeam(database.db, boot.team.id))?.settings.timezone).toBe('UTC');
  });

  it('reads booleans, JSON and timestamps back in the same shapes on both backends', async () => {
    const { database } = await openFresh();
    const boot = (await bootstrapIfEmpty(database, { email: 'a@example.com' }))!;
    const team = (await getTeam(database.db, boot.team.id))!;
    expect(team.ingestedEvent).toBe(false);
    expect(team.settings.data_attributes).toEqual(['data-attr']);
    expect(team.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(typeof team.id).toBe('number');
  });
});
