import { listParked, queueCounts, retryParked } from '../ingestion/queue-admin.js';
import { parseRetryIds, withDatabase } from './admin-commands.js';

const USAGE = 'usage: hoglet queue status | hoglet queue parked [--limit N] | hoglet queue retry [--ids 1,2,…]';

/** `hoglet queue …`: the ingestion queue, for operators (see src/ingestion/queue-admin.ts). */
export async function runQueueCommand(
  sub: string | undefined,
  options: { limit?: string | undefined; ids?: string | undefined },
): Promise<number> {
  if (sub === 'status' || sub === undefined) {
    return withDatabase(async (database) => {
      const counts = await queueCounts(database);
      if (counts.length === 0) process.stdout.write('the ingestion queue is empty\n');
      for (const c of counts) process.stdout.write(`${c.lane}  waiting=${c.waiting}  parked=${c.parked}\n`);
      return 0;
    });
  }
  if (sub === 'parked') {
    const limit = options.limit === undefined ? 100 : Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`--limit takes a positive integer, got "${options.limit}"`);
    return withDatabase(async (database) => {
      const parked = await listParked(database, limit);
      if (parked.length === 0) process.stdout.write('no parked events\n');
      for (const p of parked) {
        process.stdout.write(
          `${p.id}  project=${p.teamId}  lane=${p.lane}  event=${JSON.stringify(p.event)}  distinct_id=${JSON.stringify(p.distinctId)}  uuid=${p.uuid ?? '-'}  received=${p.receivedAt}  attempts=${p.attempts}\n`,
        );
      }
      return 0;
    });
  }
  if (sub === 'retry') {
    const ids = parseRetryIds(options.ids, 'queue');
    return withDatabase(async (database) => {
      const count = await retryParked(database, ids);
      process.stdout.write(
        `${count} parked event${count === 1 ? '' : 's'} put back in the queue; the ingestion worker takes them in order\n`,
      );
      return 0;
    });
  }
  throw new Error(USAGE);
}
