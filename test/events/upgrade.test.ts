/**
 * The upgrade from a version that stored events in SQL (src/events/upgrade.ts): on start, the rows
 * of the SQL `events` table move to ClickHouse once, batch by batch, and the table is left empty;
 * a start cut short half-way (the process killed, or a batch's delete failing after its insert)
 * is finished by the next, and nothing is stored twice. Real storage, both backends.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openAnalyticsStore, startApp, type RunningApp } from '../../src/app.js';
import { openAndMigrate } from '../../src/platform/db/open-and-migrate.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AnalyticsEngine } from '../../src/platform/analytics/engine.js';
import { ch, raw } from '../../src/platform/analytics/sql.js';
import { toJson } from '../../src/platform/db/values.js';
import { eventRow } from '../../src/events/outbox-rows.js';
import { personUuidFromDistinctId } from '../../src/persons/person-uuid.js';
import { BACKEND, freshStorage, type TestStorage } from '../helpers/backend.js';
import { runHoglet } from '../helpers/process.js';
import { storedEvents, type StoredEvent } from '../helpers/stored-events.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const silent = pino({ level: 'silent' });

async function storage(): Promise<{ storage: TestStorage; config: Config }> {
  const made = await freshStorage();
  cleanups.push(() => made.dispose());
  return { storage: made, config: loadConfig({ ...made.env, PORT: '0', HOST: '127.0.0.1' }) };
}

/** Rows as a version before ClickHouse stored them, written straight into the SQL table; returns them as ClickHouse should hold them. */
async function writeOldEvents(config: Config, count: number): Promise<Map<string, StoredEvent>> {
  const database = await openAndMigrate(config, silent);
  const expected = new Map<string, StoredEvent>();
  try {
    const start = Date.parse('2025-06-01T00:00:00Z');
    const rows = Array.from({ length: count }, (_, n) => {
      const teamId = n % 3 === 0 ? 2 : 1;
      const time = new Date(start + n * 1000).toISOString();
      const row = {
        team_id: teamId,
        uuid: randomUUID(),
        event: n % 2 === 0 ? '$pageview' : 'clicked',
        distinct_id: `d-${n % 50}`,
        person_id: n % 5 === 0 ? null : randomUUID(),
        // Besides objects, two texts an older version might hold: not an object, and one with spaces around it.
        properties:
          n === 1
            ? '[1,"b"]'
            : n === 2
              ? ' {"padded":true} '
              : toJson({ n, $current_url: `https://x.test/${n % 7}`, nested: { a: [1, 'b'] }, 'k"ey': '\u2028 é' }),
        timestamp: time,
        created_at: new Date(start + n * 1000 + 500).toISOString(),
        session_id: n % 4 === 0 ? null : `s-${n % 10}`,
        elements_chain: n % 7 === 0 ? 'a:nth-child="1"nth-of-type="1"' : null,
      };
      expected.set(row.uuid, {
        ...row,
        person_id: row.person_id ?? personUuidFromDistinctId(teamId, row.distinct_id),
      });
      return row;
    });
    for (let i = 0; i < rows.length; i += 500)
      await database.db
        .insertInto('events')
        .values(rows.slice(i, i + 500))
        .execute();
  } finally {
    await database.close();
  }
  return expected;
}

async function sqlEventCount(config: Config): Promise<number> {
  const database = await openAndMigrate(config, silent);
  try {
    const row = await database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await database.close();
  }
}

/** Every stored event is one of those written, each exactly once, as it was. */
async function expectMovedOnce(analytics: AnalyticsEngine, expected: Map<string, StoredEvent>): Promise<void> {
  const comparable = (events: Iterable<StoredEvent>) =>
    [...events].map((e) => ({ ...e, properties: JSON.parse(e.properties) as unknown })).sort((x, y) => (x.uuid < y.uuid ? -1 : 1));
  const stored = await storedEvents(analytics);
  expect(stored).toHaveLength(expected.size);
  expect(comparable(stored)).toEqual(comparable(expected.values()));
}

async function start(config: Config, log = silent): Promise<RunningApp> {
  const running = await startApp(config, { log });
  cleanups.push(() => running.close());
  return running;
}

describe('events stored in SQL by an earlier version', () => {
  it('move to ClickHouse on start, once, in batches, with their sessions; the SQL table is left empty', async () => {
    const { config } = await storage();
    const expected = await writeOldEvents(config, 12_345);
    const lines: string[] = [];
    const running = await start(config, pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }));

    await expectMovedOnce(running.ctx.analytics, expected);
    expect(await running.ctx.database.db.selectFrom('events').select('uuid').execute()).toEqual([]);
    const progress = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((m) => m.msg === 'moving stored events to ClickHouse');
    expect(progress.map((m) => [m.moved, m.total])).toEqual([
      [10_000, 12_345],
      [12_345, 12_345],
    ]);
    // The sessions view saw them: one session per (team, session id).
    const sessions =
      ch`SELECT count() AS n FROM (SELECT team_id, session_id FROM ${raw(running.ctx.analytics.table('sessions'))} GROUP BY team_id, session_id)`.compile();
    const wanted = new Set([...expected.values()].filter((e) => e.session_id !== null).map((e) => `${e.team_id}/${e.session_id}`));
    expect(await running.ctx.analytics.query(sessions.sql, sessions.params)).toEqual([{ n: wanted.size }]);

    // A later start finds nothing to move.
    await running.close();
    const again: string[] = [];
    const restarted = await start(config, pino({ level: 'info' }, { write: (line: string) => void again.push(line) }));
    expect(again.filter((line) => line.includes('moving stored events'))).toEqual([]);
    await expectMovedOnce(restarted.ctx.analytics, expected);
  });

  it('finish after a start that failed between a batch insert and its delete, repeating nothing', async () => {
    const { config } = await storage();
    const expected = await writeOldEvents(config, 12_345);
    // A real fault: the database refuses to delete events, after the first batch reached ClickHouse.
    const fault =
      BACKEND === 'sqlite'
        ? ["CREATE TRIGGER refuse_moves BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'refused'); END"]
        : [
            "CREATE FUNCTION refuse_moves() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$",
            'CREATE TRIGGER refuse_moves BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION refuse_moves()',
          ];
    const mend =
      BACKEND === 'sqlite' ? ['DROP TRIGGER refuse_moves'] : ['DROP TRIGGER refuse_moves ON events', 'DROP FUNCTION refuse_moves()'];
    const run = async (statements: string[]) => {
      const database = await openAndMigrate(config, silent);
      try {
        for (const statement of statements) await sql.raw(statement).execute(database.db);
      } finally {
        await database.close();
      }
    };
    await run(fault);
    await expect(startApp(config, { log: silent })).rejects.toThrow(/refused/);
    const analytics = await openAnalyticsStore(config, silent);
    const half = await storedEvents(analytics);
    await analytics.close();
    expect({ inClickHouse: half.length, inSql: await sqlEventCount(config) }).toEqual({ inClickHouse: 10_000, inSql: 12_345 });

    await run(mend);
    const running = await start(config);
    await expectMovedOnce(running.ctx.analytics, expected);
    expect(await running.ctx.database.db.selectFrom('events').select('uuid').execute()).toEqual([]);
  });

  it('finish after the process moving them was killed', async () => {
    const { storage: made, config } = await storage();
    const expected = await writeOldEvents(config, 25_000);
    const first = runHoglet(['serve'], { ...made.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    cleanups.push(async () => {
      if (first.child.exitCode === null) first.child.kill('SIGKILL');
      await first.exited;
    });
    await first.waitFor(/"moved":10000,"total":25000/, 120_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const left = await sqlEventCount(config);
    expect(left).toBeLessThan(25_000);

    const running = await start(config);
    await expectMovedOnce(running.ctx.analytics, expected);
    expect(await running.ctx.database.db.selectFrom('events').select('uuid').execute()).toEqual([]);
  }, 180_000);

  it('events in ClickHouse before the sessions table existed get their sessions when it is made', async () => {
    const { config } = await storage();
    let analytics = await openAnalyticsStore(config, silent);
    cleanups.push(() => analytics.close());
    // As a version without the sessions table left them.
    await analytics.command(`DROP VIEW ${analytics.table('sessions_mv')}`);
    await analytics.command(`DROP TABLE ${analytics.table('sessions')}`);
    const at = (second: number) => new Date(Date.parse('2025-06-01T00:00:00Z') + second * 1000).toISOString();
    const lines = [
      eventRow(1, randomUUID(), '$pageview', 'd', randomUUID(), toJson({ $current_url: 'https://x.test/in' }), at(0), at(0), 's-1', null),
      eventRow(1, randomUUID(), '$pageview', 'd', randomUUID(), toJson({ $current_url: 'https://x.test/out' }), at(9), at(9), 's-1', null),
      eventRow(1, randomUUID(), 'other', 'd', randomUUID(), '{}', at(5), at(5), null, null),
    ];
    await analytics.insert('events', lines.join('\n'));
    await analytics.close();

    analytics = await openAnalyticsStore(config, silent);
    const sessions = ch`SELECT session_id, min(min_timestamp) AS start, argMinMerge(entry_url) AS entry, argMaxMerge(exit_url) AS exit,
        uniqExactMerge(event_count) AS events FROM ${raw(analytics.table('sessions'))} GROUP BY session_id`.compile();
    const expected = [
      { session_id: 's-1', start: '2025-06-01T00:00:00.000000Z', entry: 'https://x.test/in', exit: 'https://x.test/out', events: 2 },
    ];
    expect(await analytics.query(sessions.sql, sessions.params)).toEqual(expected);
    // Once: the table no longer says its backfill is pending.
    const comment = await analytics.query("SELECT comment FROM system.tables WHERE name = 'sessions' AND database = {database:String}", {
      database: /^`([^`]+)`/.exec(analytics.table('sessions'))![1],
    });
    expect(comment).toEqual([{ comment: '' }]);
  });
});
