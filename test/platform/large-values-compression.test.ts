/**
 * Migration 029: on PostgreSQL the ingestion path's large values (queue payloads, outbox text,
 * person properties) are compressed with lz4 from then on; values written before keep pglz and
 * read back unchanged. On SQLite the migration changes nothing. Real storage, either backend.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { BACKEND, freshStorage, type TestStorage } from '../helpers/backend.js';
import { databaseBefore } from '../helpers/migrated.js';

const COLUMNS = [
  ['ingestion_queue', 'payload'],
  ['analytics_outbox', 'events'],
  ['persons', 'properties'],
] as const;

/** One person per tag. */
const personUuids = new Map<string, string>();
function personUuid(tag: string): string {
  if (!personUuids.has(tag)) personUuids.set(tag, randomUUID());
  return personUuids.get(tag)!;
}

/** A value large and repetitive enough that PostgreSQL compresses it out of line. */
function largeProperties(tag: string): Record<string, string> {
  const properties: Record<string, string> = {};
  for (let i = 0; i < 400; i++) properties[`$geoip_property_${i}`] = `${tag}-value-${i % 17}`;
  return properties;
}

/** One row in each of the three tables, `tag` in each value; returns the values written. */
async function writeRows(db: Kysely<any>, tag: string) {
  const properties = largeProperties(tag);
  const text = JSON.stringify(properties);
  const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ uuid: randomUUID(), i, properties })).join('\n');
  await db
    .insertInto('ingestion_queue')
    .values({ team_id: 1, lane: 'realtime', distinct_id: tag, payload: text, received_at: new Date().toISOString() })
    .execute();
  await db
    .insertInto('analytics_outbox')
    .values({ token: tag, events: lines, person_overrides: '', created_at: new Date().toISOString() })
    .execute();
  await db
    .insertInto('persons')
    .values({ uuid: personUuid(tag), team_id: 1, properties: text, created_at: new Date().toISOString(), version: 0 })
    .execute();
  return { text, lines, properties };
}

/** The values stored for `tag`, as read back. */
async function readRows(db: Kysely<any>, tag: string) {
  const queue = await db.selectFrom('ingestion_queue').select('payload').where('distinct_id', '=', tag).executeTakeFirstOrThrow();
  const outbox = await db.selectFrom('analytics_outbox').select('events').where('token', '=', tag).executeTakeFirstOrThrow();
  const person = await db.selectFrom('persons').select('properties').where('uuid', '=', personUuid(tag)).executeTakeFirstOrThrow();
  const properties = typeof person.properties === 'string' ? JSON.parse(person.properties) : person.properties;
  return { text: queue.payload as string, lines: outbox.events as string, properties };
}

/** How PostgreSQL compressed `tag`'s value in each column (pg_column_compression). */
async function compressionOf(db: Kysely<any>, tag: string): Promise<Array<string | null>> {
  const queue = await sql<{
    method: string | null;
  }>`select pg_column_compression(payload) as method from ingestion_queue where distinct_id = ${tag}`.execute(db);
  const outbox = await sql<{
    method: string | null;
  }>`select pg_column_compression(events) as method from analytics_outbox where token = ${tag}`.execute(db);
  const person = await sql<{ method: string | null }>`select pg_column_compression(properties) as method from persons
    where uuid = ${personUuid(tag)}`.execute(db);
  return [queue.rows[0]!.method, outbox.rows[0]!.method, person.rows[0]!.method];
}

describe('migration 029-large-values-lz4', () => {
  let storage: TestStorage | undefined;
  let migrated: Database | undefined;
  afterAll(async () => {
    await migrated?.close();
    await storage?.dispose();
  });

  it(`keeps values written before it readable, and compresses later ones with lz4 on PostgreSQL (${BACKEND})`, async () => {
    storage = await freshStorage();
    const before = await databaseBefore(storage, '029-large-values-lz4');
    migrated = before.database;
    const { db, types, step } = before;
    const old = await writeRows(db, 'before');

    await migrations[step]!.up(db, types);
    const later = await writeRows(db, 'after');

    expect(await readRows(db, 'before')).toEqual(old);
    expect(await readRows(db, 'after')).toEqual(later);
    if (BACKEND === 'postgres') {
      const methods = await sql<{ column: string; method: string }>`select attname as column, attcompression as method from pg_attribute
        where (attrelid = 'ingestion_queue'::regclass and attname = 'payload')
           or (attrelid = 'analytics_outbox'::regclass and attname = 'events')
           or (attrelid = 'persons'::regclass and attname = 'properties')
        order by attname`.execute(db);
      expect(methods.rows).toEqual(COLUMNS.map(([, column]) => ({ column, method: 'l' })).sort((a, b) => a.column.localeCompare(b.column)));
      expect(await compressionOf(db, 'before')).toEqual(['pglz', 'pglz', 'pglz']);
      expect(await compressionOf(db, 'after')).toEqual(['lz4', 'lz4', 'lz4']);
    }
  }, 60_000);
});
