import { afterAll, describe, expect, it } from 'vitest';
import { acquireLease, leaseHolder } from '../../src/platform/lease.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

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
    expect(await acquireLease(db, 'fence-test', 'first', 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the first's lease has lapsed
    const order: string[] = [];
    let takeover: Promise<boolean> | undefined;
    await db.transaction().execute(async (trx) => {
      expect(await leaseHolder(trx, 'fence-test')).toBe('first');
      takeover = acquireLease(db, 'fence-test', 'second', 60_000).then((taken) => {
        order.push('taken over');
        return taken;
      });
      // Time for the takeover to go through, were it not held back.
      await new Promise((resolve) => setTimeout(resolve, 300));
      order.push('first committed');
    });
    expect(await takeover).toBe(true);
    expect(order).toEqual(['first committed', 'taken over']);
    expect(await leaseHolder(db, 'fence-test')).toBe('second');
  }, 60_000);
});
