/**
 * The bench's storage floor (bench/storage-floor.ts), the baseline of the worker figures: it must
 * write every row a worker stored, in Hoglet's schema, whatever migrations add. It runs on SQLite
 * in both suites (the floor is measured on SQLite only).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { storageFloor } from '../../bench/storage-floor.js';
import { realisticWorkload } from '../../bench/workload.js';
import { prepareAnalyticsStore } from '../../src/app.js';
import { openAndMigrate } from '../../src/platform/db/open-and-migrate.js';
import { loadConfig } from '../../src/config.js';
import { IngestionQueueWriter } from '../../src/ingestion/queue.js';
import { IngestionWorker } from '../../src/ingestion/worker/worker.js';
import { bootstrapIfEmpty } from '../../src/environments/bootstrap.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-floor-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('bench storage floor', () => {
  it('writes again every event, person, distinct id and group a worker stored', async () => {
    const log = pino({ level: 'silent' });
    const config = loadConfig({ DATA_DIR: dir, DATABASE_URL: '' });
    const database = await openAndMigrate(config, log);
    const analytics = prepareAnalyticsStore(config, log);
    analytics.begin();
    let stored: Record<string, number>;
    try {
      const boot = await bootstrapIfEmpty(database, { email: 'floor@hoglet.local', personalApiKey: undefined });
      // Visitors who sign up (merges), set properties, join groups and browse without a profile.
      await new IngestionQueueWriter(database, log, 0).enqueue(realisticWorkload(boot!.team.id, 600, 40));
      const worker = new IngestionWorker(database, log, { prepareAhead: false, analytics: analytics.engine });
      await worker.drain();
      await worker.stop();
      const count = async (table: 'event_uuids' | 'persons' | 'person_distinct_ids' | 'groups') =>
        Number(
          (
            await database.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const [events] = await analytics.engine.query<{ n: number }>(`SELECT count() AS n FROM ${analytics.engine.table('events')}`);
      stored = {
        events: events!.n,
        event_uuids: await count('event_uuids'),
        persons: await count('persons'),
        person_distinct_ids: await count('person_distinct_ids'),
        groups: await count('groups'),
      };
      await database.close();
    } catch (error) {
      await database.close();
      await analytics.engine.close();
      throw error;
    }
    expect(stored.events).toBe(stored.event_uuids);
    expect(stored.persons).toBeGreaterThan(0);
    expect(stored.person_distinct_ids).toBeGreaterThan(stored.persons!); // merged visitors have two
    expect(stored.groups).toBeGreaterThan(0);

    let floor;
    try {
      floor = await storageFloor(path.join(dir, 'hoglet.db'), analytics.engine);
    } finally {
      await analytics.engine.close();
    }
    expect(floor.rows).toEqual(stored);
    expect(floor.events).toBe(stored.events);
    expect(floor.propertiesLength).toBeGreaterThan(100);
    expect(floor.eventsPerSecond).toBeGreaterThan(0);
    expect(floor.eventsPerCpuSecond).toBeGreaterThan(0);
  });
});
