/**
 * What makes the PostgreSQL bench's worker rounds fair (bench/postgres-held-stream.ts): a queued
 * stream set aside and put back at once after what was queued meanwhile, the workers' shares read
 * from their leases, and the floor's rows told from earlier ones by a mark. On PostgreSQL (the
 * bench's own database: DATABASE_URL or the suite's default one), in a scratch schema.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchPostgresUrl } from '../../bench/postgres-bench.js';
import { readTable } from '../../bench/postgres-floor.js';
import {
  dropHeld,
  holdQueued,
  releaseHeld,
  sharesSettled,
  WRITTEN_SINCE_MARK,
  writeMark,
  type LeaseRow,
} from '../../bench/postgres-held-stream.js';
import { memberLeaseName, partitionLeaseName } from '../../src/ingestion/core/partition-share.js';

describe('bench worker shares', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  const live = now + 10_000;
  const member = (owner: string, expiresAt = live): LeaseRow => ({ name: memberLeaseName(owner), owner, expiresAt });
  const partitions = (owner: string, from: number, to: number, expiresAt = live): LeaseRow[] =>
    Array.from({ length: to - from }, (_, i) => ({ name: partitionLeaseName(from + i), owner, expiresAt }));

  it('are settled when every worker is a member, every partition is held and none holds more than its share', () => {
    expect(sharesSettled([member('a'), ...partitions('a', 0, 16)], 1, 16, now)).toBe(true);
    expect(sharesSettled([member('a'), member('b'), ...partitions('a', 0, 8), ...partitions('b', 8, 16)], 2, 16, now)).toBe(true);
    const three = [member('a'), member('b'), member('c'), ...partitions('a', 0, 6), ...partitions('b', 6, 12), ...partitions('c', 12, 16)];
    expect(sharesSettled(three, 3, 16, now)).toBe(true);
  });

  it('are not while a joiner holds nothing, a holder keeps more than its share, or a partition is free or lapsed', () => {
    expect(sharesSettled([member('a'), member('b'), ...partitions('a', 0, 16)], 2, 16, now)).toBe(false);
    expect(sharesSettled([member('a'), member('b'), ...partitions('a', 0, 9), ...partitions('b', 9, 16)], 2, 16, now)).toBe(false);
    expect(sharesSettled([member('a'), member('b'), ...partitions('a', 0, 8), ...partitions('b', 8, 15)], 2, 16, now)).toBe(false);
    const lapsed = [member('a'), member('b'), ...partitions('a', 0, 8), ...partitions('b', 8, 15), ...partitions('b', 15, 16, now - 1)];
    expect(sharesSettled(lapsed, 2, 16, now)).toBe(false);
  });

  it('are not while a worker is missing, or one gone is still counted, or a partition is held by a non-member', () => {
    expect(sharesSettled([member('a'), ...partitions('a', 0, 16)], 2, 16, now)).toBe(false);
    expect(sharesSettled([member('a'), member('b', now - 1), ...partitions('a', 0, 16)], 1, 16, now)).toBe(true);
    expect(sharesSettled([member('a'), ...partitions('a', 0, 15), ...partitions('x', 15, 16)], 1, 16, now)).toBe(false);
  });
});

describe('bench held stream', () => {
  const schema = `bench_held_test_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: benchPostgresUrl(), options: `-c search_path=${schema}` });
  const queue = async () =>
    (
      await client.query<{ id: string; payload: string; event_count: number }>(
        'select id, payload, event_count from ingestion_queue order by id',
      )
    ).rows;
  const enqueue = (payloads: string[]) =>
    client.query(
      `insert into ingestion_queue (team_id, lane, distinct_id, payload, received_at, event_count, partition)
       select 1, 'realtime', 'd-' || p, p, now(), 100, length(p) % 16 from unnest($1::text[]) with ordinality as t(p, n) order by n`,
      [payloads],
    );

  beforeAll(async () => {
    await client.connect();
    await client.query(`create schema "${schema}"`);
    await client.query(
      `create table ingestion_queue (id bigserial primary key, team_id bigint not null, lane text not null, distinct_id text not null,
       payload text not null, received_at timestamptz not null, attempts integer not null default 0,
       event_count integer not null default 1, partition integer not null default 0)`,
    );
  });
  afterAll(async () => {
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  });

  it('sets rows aside, then puts them back in one statement, in order, after what was queued meanwhile', async () => {
    await enqueue(['warm-1', 'warm-2', 'measured-1', 'measured-2', 'measured-3']);
    const [, second] = await queue();
    expect(await holdQueued(client, 'held', Number(second!.id))).toBe(300);
    expect((await queue()).map((row) => row.payload)).toEqual(['warm-1', 'warm-2']);
    await enqueue(['queued-meanwhile']);
    await releaseHeld(client, 'held');
    const after = await queue();
    expect(after.map((row) => row.payload)).toEqual(['warm-1', 'warm-2', 'queued-meanwhile', 'measured-1', 'measured-2', 'measured-3']);
    expect(after.map((row) => Number(row.id))).toEqual([...after.map((row) => Number(row.id))].sort((a, b) => a - b));
    expect(new Set(after.map((row) => row.id)).size).toBe(6);
    expect(after.slice(3).every((row) => row.event_count === 100)).toBe(true);
    await dropHeld(client, 'held');
    const left = await client.query(
      'select count(*)::int as n from information_schema.tables where table_schema = $1 and table_name = $2',
      [schema, 'held'],
    );
    expect(left.rows[0].n).toBe(0);
  });

  it('reads only the rows written or updated since a mark', async () => {
    await client.query('create table stored (id int primary key, note text)');
    await client.query("insert into stored values (1, 'before'), (2, 'before')");
    const mark = await writeMark(client);
    await client.query("insert into stored values (3, 'after')");
    await client.query("update stored set note = 'updated after' where id = 2");
    const since = await readTable(client, schema, 'stored', `${WRITTEN_SINCE_MARK} order by id`, [mark]);
    expect(since.rows).toEqual([
      ['2', 'updated after'],
      ['3', 'after'],
    ]);
  });
});
