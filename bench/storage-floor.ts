/**
 * The storage floor of a worker figure: the rows a worker run stored (persons, their distinct ids,
 * groups, the events' uuids in SQL; the events in ClickHouse), written again into fresh storage of
 * the same schema with nothing but prepared inserts on a connection set up as Hoglet's, and one
 * ClickHouse insert per 10,000 events (as the worker's copier makes them under a backlog). No JSON is parsed or made, nothing is read
 * or looked up, no person is compared or updated, no queue row is read or deleted: no worker can
 * store the same rows faster on this machine. Beside it, a worker figure says how much of its cost
 * is processing, and a target above it is out of reach of any processing at all.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { openAndMigrate } from '../src/platform/db/open-and-migrate.js';
import { loadConfig } from '../src/config.js';
import { configureSqliteConnection } from '../src/platform/db/database.js';
import { fallbackAutocheckpointFrames, startCheckpointer } from '../src/platform/db/sqlite-checkpointer.js';
import { bootstrapIfEmpty } from '../src/environments/bootstrap.js';
import { EmbeddedEngine } from '../src/platform/analytics/embedded-engine.js';
import type { AnalyticsEngine } from '../src/platform/analytics/engine.js';
import { ensureAnalyticsSchema } from '../src/events/analytics-tables.js';

export interface StorageFloor {
  eventsPerSecond: number;
  /** Events per second of this process's CPU time. */
  eventsPerCpuSecond: number;
  events: number;
  /** Average length of an event's properties JSON, in characters. */
  propertiesLength: number;
  /** Rows of each table in the fresh storage afterwards (read back: all were written). */
  rows: Record<(typeof TABLES)[number]['name'] | 'events', number>;
}

/** What the worker stores, parents before children (person_distinct_ids refer to persons). */
const TABLES = [
  { name: 'persons', order: 'id' },
  { name: 'person_distinct_ids', order: 'person_id' },
  { name: 'groups', order: 'rowid' },
  { name: 'event_uuids', order: 'rowid' },
] as const;

/** The stored events as ClickHouse's JSONEachRow lines (what the worker inserted), oldest first. */
async function readEvents(source: AnalyticsEngine): Promise<string[]> {
  const columns = 'team_id, uuid, event, distinct_id, person_id, properties, timestamp, created_at, session_id, elements_chain';
  const rows = await source.query<Record<string, unknown>>(`SELECT ${columns} FROM ${source.table('events')} ORDER BY timestamp, uuid`);
  return rows.map((row) => JSON.stringify(row));
}

/** Events per transaction, as the worker's batches (its default batch size). */
const EVENTS_PER_TRANSACTION = 1000;
/** Events per ClickHouse insert, as the worker's copier under a backlog (its `copyAtEvents`). */
const EVENTS_PER_INSERT = 10_000;

interface TableRows {
  columns: string[];
  insert: string;
  rows: unknown[][];
}

function readStored(sourceFile: string): Map<string, TableRows> {
  const source = new BetterSqlite3(sourceFile, { readonly: true });
  try {
    const tables = new Map<string, TableRows>();
    for (const { name, order } of TABLES) {
      const select = source.prepare(`select * from ${name} order by ${order}`).raw();
      const columns = select.columns().map((column) => column.name);
      const placeholders = columns.map(() => '?').join(', ');
      tables.set(name, {
        columns,
        insert: `insert into ${name} (${columns.join(', ')}) values (${placeholders})`,
        rows: select.all() as unknown[][],
      });
    }
    return tables;
  } finally {
    source.close();
  }
}

/**
 * Writes the rows stored in `sourceFile` (a Hoglet SQLite database a worker wrote) into a fresh
 * one: each transaction takes the next 1000 events and the same share of every other table's rows.
 * The time is wall time; the CPU is this process's, checkpoint thread included, as the worker's.
 */
export async function storageFloor(sourceFile: string, source: AnalyticsEngine): Promise<StorageFloor> {
  const stored = readStored(sourceFile);
  const events = await readEvents(source);
  const propertiesLength =
    events.length === 0
      ? 0
      : events.reduce((sum, line) => sum + String((JSON.parse(line) as { properties: string }).properties).length, 0) / events.length;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-storage-floor-'));
  // The events go to an embedded engine's database of their own (in this process's engine when it
  // has one already: one a process).
  const target = await EmbeddedEngine.open(
    { path: path.join(dir, 'clickhouse'), maxMemoryBytes: 2048 * 1024 * 1024, maxThreads: os.availableParallelism() },
    'floor',
  );
  try {
    await target.command(`DROP DATABASE IF EXISTS ${target.database}`);
    await target.command(`CREATE DATABASE ${target.database}`);
    await ensureAnalyticsSchema(target);
    // The same schema as Hoglet's, and the environment the rows belong to (created the same way).
    const log = pino({ level: 'silent' });
    const migrated = await openAndMigrate(loadConfig({ DATA_DIR: dir, DATABASE_URL: '' }), log);
    await bootstrapIfEmpty(migrated, { email: 'bench@hoglet.local', personalApiKey: undefined });
    await migrated.close();

    // WAL checkpoints on their own thread, as for the worker (openAndMigrate's long-running mode):
    // copying the WAL into the database file is part of storing rows, and most of its cost.
    const file = path.join(dir, 'hoglet.db');
    const checkpoints = { log };
    const sqlite = new BetterSqlite3(file);
    const checkpointer = startCheckpointer(file, checkpoints, () => undefined);
    try {
      configureSqliteConnection(sqlite, fallbackAutocheckpointFrames(checkpoints));
      const tables = [...stored.values()].map(({ insert, rows }) => ({ statement: sqlite.prepare(insert), rows }));
      const transactions = Math.max(1, Math.ceil(events.length / EVENTS_PER_TRANSACTION));
      const writeShare = sqlite.transaction((k: number) => {
        for (const { statement, rows } of tables) {
          const from = Math.floor((k * rows.length) / transactions);
          const to = Math.floor(((k + 1) * rows.length) / transactions);
          for (let i = from; i < to; i++) statement.run(rows[i]!);
        }
      });
      const cpu = process.cpuUsage();
      const started = process.hrtime.bigint();
      let copiedTo = 0;
      for (let k = 0; k < transactions; k++) {
        writeShare(k);
        const to = Math.floor(((k + 1) * events.length) / transactions);
        if (to - copiedTo < EVENTS_PER_INSERT && k < transactions - 1) continue;
        await target.insert('events', events.slice(copiedTo, to).join('\n'), { deduplicationToken: `floor-${k}` });
        copiedTo = to;
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const used = process.cpuUsage(cpu);
      const rows = Object.fromEntries(
        TABLES.map(({ name }) => [name, (sqlite.prepare(`select count(*) as n from ${name}`).get() as { n: number }).n]),
      ) as StorageFloor['rows'];
      const [counted] = await target.query<{ n: number }>(`SELECT count() AS n FROM ${target.table('events')}`);
      rows.events = counted!.n;
      return {
        eventsPerSecond: events.length / seconds,
        eventsPerCpuSecond: events.length / ((used.user + used.system) / 1e6),
        events: events.length,
        propertiesLength,
        rows,
      };
    } finally {
      await checkpointer.stop();
      sqlite.close();
    }
  } finally {
    await target.command(`DROP DATABASE IF EXISTS ${target.database}`).catch(() => undefined);
    await target.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
