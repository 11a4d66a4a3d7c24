import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireLease, claimLeases, holdsLeasesReading, leaseHolder } from '../../../src/platform/lease.js';
import { notePersonsChangedOutsideWorker, PERSON_DELETIONS } from '../../../src/persons/store.js';
import pino from 'pino';
import { partitionCount } from '../../../src/ingestion/core/partition.js';
import { partitionLeaseName } from '../../../src/ingestion/core/partition-share.js';
import { PartitionLeases } from '../../../src/ingestion/worker/partition-leases.js';
import { BACKEND } from '../../helpers/backend.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * The worker checks in each batch's transaction that it still holds its lease (leaseHolder). For
 * that check to be a fence, another process must not take the lease over until that transaction
 * ends: SQLite's write lock sees to it, and on PostgreSQL the row is read FOR SHARE.
 */
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
});

describe('worker lease', () => {
  it('is not taken over while a transaction that read its holder is open', async () => {
    server = await startTestServer({ INGESTION_WORKER: 'off' });
    const { db } = server.running.ctx.database;
    expect(await acquireLease(db, 'fence-test', 'first', 60_000)).toBe(true);
    // The first's lease has lapsed (an explicit time, not a pause past it).
    await db.updateTable('worker_leases').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('name', '=', 'fence-test').execute();
    const order: string[] = [];
    let takeover: Promise<boolean> | undefined;
    let sent = false;
    // Marks the takeover's first statement as handed to the driver.
    const watched = db.withPlugin({
      transformQuery: (args) => ((sent = true), args.node),
      transformResult: async (args) => args.result,
    });
    await db.transaction().execute(async (trx) => {
      expect(await leaseHolder(trx, 'fence-test')).toBe('first');
      takeover = acquireLease(watched, 'fence-test', 'second', 60_000).then((taken) => {
        order.push('taken over');
        return taken;
      });
      // The takeover has reached the point where it would go through, were it not held back:
      // on PostgreSQL its update waits for this transaction's row lock (pg_blocking_pids);
      // on SQLite its statement is queued behind this transaction on the one connection.
      await waitFor(() => sent, { what: "the takeover's statement to be sent" });
      if (BACKEND === 'postgres') {
        const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!;
        const blocked = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`;
        await waitFor(async () => (await blocked.execute(db)).rows[0]!.n, {
          what: 'the takeover to wait for this transaction',
          until: (n) => n > 0,
        });
      }
      order.push('first committed');
    });
    expect(await takeover).toBe(true);
    expect(order).toEqual(['first committed', 'taken over']);
    expect(await leaseHolder(db, 'fence-test')).toBe('second');
  }, 60_000);

  it("reads a counter's value in the fence's statement, and tells a lease held by another", async () => {
    server ??= await startTestServer({ INGESTION_WORKER: 'off' });
    const { db } = server.running.ctx.database;
    const names = ['counter-test:1', 'counter-test:2'];
    expect(await claimLeases(db, names, 'me', 60_000)).toEqual(names);
    const read = (owner: string, list = names) => db.transaction().execute((trx) => holdsLeasesReading(trx, list, owner, PERSON_DELETIONS));
    const before = await read('me');
    expect(before.held).toBe(true);
    await db.transaction().execute((trx) => notePersonsChangedOutsideWorker(trx));
    expect(await read('me')).toEqual({ held: true, counter: before.counter! + 1 });
    expect(await read('someone else')).toEqual({ held: false, counter: before.counter! + 1 });
    expect(await read('me', [...names, 'counter-test:3'])).toMatchObject({ held: false });
    expect(await read('me', [])).toEqual({ held: true, counter: undefined });
  }, 60_000);

  it('counts the holders of live leases and the live leases of a group in the same statement', async () => {
    server ??= await startTestServer({ INGESTION_WORKER: 'off' });
    const { db } = server.running.ctx.database;
    await claimLeases(db, ['live-test:part-1', 'live-test:part-2'], 'me', 60_000);
    await claimLeases(db, ['live-test:part-3'], 'other', 60_000);
    await claimLeases(db, ['live-test:member-third'], 'third', 60_000);
    // Lapsed already: neither its holder nor the lease counts.
    await claimLeases(db, ['live-test:part-4', 'live-test:member-gone'], 'gone', -60_000);
    const live = { ownersOf: ['live-test:part-', 'live-test:member-'], countOf: 'live-test:part-', at: new Date() };
    const read = await db.transaction().execute((trx) => holdsLeasesReading(trx, ['live-test:part-1'], 'me', undefined, live));
    expect(read).toEqual({ held: true, counter: undefined, live: { owners: 3, leases: 3 } });
    const none = await db.transaction().execute((trx) => holdsLeasesReading(trx, ['live-test:part-1'], 'me'));
    expect(none.live).toBeUndefined();
  }, 60_000);

  it("extends a worker's partition leases in a long round, and asks for a renewal when one was taken", async () => {
    server ??= await startTestServer({ INGESTION_WORKER: 'off' });
    const { db } = server.running.ctx.database;
    const leases = new PartitionLeases(db, 'extender', partitionCount(BACKEND), 60_000, pino({ level: 'silent' }));
    await leases.renew();
    expect(leases.held.length).toBe(partitionCount(BACKEND));
    const expiries = async () =>
      (await db.selectFrom('worker_leases').select('expires_at').where('owner', '=', 'extender').execute()).map((row) =>
        Date.parse(row.expires_at),
      );
    const before = await expiries();
    // Lapsing sooner than extend() sets them: the extension shows in the rows.
    await db
      .updateTable('worker_leases')
      .set({ expires_at: new Date(Date.now() + 30_000).toISOString() })
      .where('owner', '=', 'extender')
      .execute();
    await leases.extend();
    expect(leases.renewDue).toBe(false);
    const after = await expiries();
    expect(after).toHaveLength(before.length);
    expect(Math.min(...after)).toBeGreaterThan(Date.now() + 30_000);

    // Another worker took a partition (its lease lapsed, say): extend() leaves it taken and asks for a renewal.
    await db.updateTable('worker_leases').set({ owner: 'other' }).where('name', '=', partitionLeaseName(leases.held[0]!)).execute();
    await leases.extend();
    expect(leases.renewDue).toBe(true);
    expect(await leaseHolder(db, partitionLeaseName(leases.held[0]!))).toBe('other');
    await leases.release();
    await db.deleteFrom('worker_leases').where('owner', '=', 'other').execute();
  }, 60_000);
});
