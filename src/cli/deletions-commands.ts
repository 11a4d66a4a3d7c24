import { listPendingDeletions, MAX_DELETION_ATTEMPTS, retryParkedDeletions } from '../deletions/store.js';
import { parseRetryIds, withDatabase } from './admin-commands.js';

const USAGE = 'usage: hoglet deletions list | hoglet deletions retry [--ids 1,2,…]';

/**
 * `hoglet deletions …`: the background deletions (src/deletions/), for operators: what is still
 * being deleted, how far it got, which are parked after repeated failures, and giving those
 * another round once the cause is mended (a restart does that too).
 */
export async function runDeletionsCommand(sub: string | undefined, options: { ids?: string | undefined }): Promise<number> {
  if (sub === 'list' || sub === undefined) {
    return withDatabase(async (database) => {
      const pending = await listPendingDeletions(database.db);
      if (pending.length === 0) process.stdout.write('no background deletions pending\n');
      for (const d of pending) {
        const attempts = Number(d.attempts);
        const progress = d.cursor_timestamp === null ? 'not started' : `at ${d.cursor_timestamp}`;
        process.stdout.write(
          `${d.id}  project=${d.owner_team_id}  kind=${d.kind}  target=${d.target ?? '-'}  ${progress}  attempts=${attempts}${attempts >= MAX_DELETION_ATTEMPTS ? '  parked' : ''}  queued=${d.created_at}\n`,
        );
      }
      return 0;
    });
  }
  if (sub === 'retry') {
    const ids = parseRetryIds(options.ids, 'deletion');
    return withDatabase(async (database) => {
      const count = await retryParkedDeletions(database.db, ids);
      process.stdout.write(
        `${count} parked deletion${count === 1 ? '' : 's'} given another round; the worker's runner takes them in order\n`,
      );
      return 0;
    });
  }
  throw new Error(USAGE);
}
