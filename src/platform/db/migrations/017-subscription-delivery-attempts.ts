import type { Kysely } from 'kysely';
import type { HogletMigration } from './column-types.js';

/** Old per-attempt statuses as an attempt's and as a delivery's (a `failed` row was to be retried). */
const ATTEMPT_STATUS: Record<string, string> = { sent: 'delivered', failed: 'failed', abandoned: 'failed', skipped: 'skipped' };
const DELIVERY_STATUS: Record<string, string> = { sent: 'delivered', failed: 'retrying', abandoned: 'failed', skipped: 'skipped' };

interface OldRow {
  id: number;
  team_id: number;
  kind: string;
  occurrence: string | null;
  status: string;
  attempt: number;
  error: string | null;
  created_at: string;
}

/**
 * Subscription deliveries that can be listed: `subscription_deliveries` held one row per attempt;
 * it now holds one row per delivery (an occurrence, an invite, a test) with its target, status and
 * times, and `subscription_delivery_attempts` one row per attempt. Existing rows are folded: the
 * attempts at one occurrence (a failed row followed by the retries of the same kind and
 * occurrence) become one delivery with those attempts. Their target was not recorded, so it stays
 * null.
 */
export const subscriptionDeliveryAttempts: HogletMigration = {
  name: '017-subscription-delivery-attempts',
  async up(db, t) {
    for (const [column, type] of [
      ['target_type', 'text'],
      ['target_value', 'text'],
      ['webhook_url', 'text'],
      ['last_attempt_at', t.timestamp],
      ['next_attempt_at', t.timestamp],
      ['delivered_at', t.timestamp],
    ] as const) {
      await db.schema.alterTable('subscription_deliveries').addColumn(column, type).execute();
    }
    await t
      .serialId(db.schema.createTable('subscription_delivery_attempts'))
      .addColumn('delivery_id', t.bigint, (c) => c.notNull().references('subscription_deliveries.id').onDelete('cascade'))
      // The environment's deletion removes every row with its team_id.
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('started_at', t.timestamp, (c) => c.notNull())
      .addColumn('finished_at', t.timestamp)
      .execute();
    await db.schema
      .createIndex('subscription_delivery_attempts_delivery_idx')
      .on('subscription_delivery_attempts')
      .columns(['delivery_id', 'attempt'])
      .execute();
    await foldAttempts(db);
  },
};

async function foldAttempts(db: Kysely<any>): Promise<void> {
  const subscriptions = await db.selectFrom('subscription_deliveries').select('subscription_id').distinct().execute();
  for (const { subscription_id } of subscriptions) {
    const rows = (await db
      .selectFrom('subscription_deliveries')
      .select(['id', 'team_id', 'kind', 'occurrence', 'status', 'attempt', 'error', 'created_at'])
      .where('subscription_id', '=', subscription_id)
      .orderBy('id')
      .execute()) as OldRow[];
    let group: OldRow[] = [];
    for (const row of rows) {
      const previous = group.at(-1);
      const retry =
        previous !== undefined &&
        previous.status === 'failed' &&
        row.kind === previous.kind &&
        row.occurrence === previous.occurrence &&
        Number(row.attempt) > Number(previous.attempt);
      if (retry) group.push(row);
      else {
        await fold(db, group);
        group = [row];
      }
    }
    await fold(db, group);
  }
}

async function fold(db: Kysely<any>, group: OldRow[]): Promise<void> {
  const first = group[0];
  const last = group.at(-1);
  if (!first || !last) return;
  await db
    .insertInto('subscription_delivery_attempts')
    .values(
      group.map((row) => ({
        delivery_id: first.id,
        team_id: first.team_id,
        attempt: row.attempt,
        status: ATTEMPT_STATUS[row.status] ?? row.status,
        error: row.error,
        started_at: row.created_at,
        finished_at: row.created_at,
      })),
    )
    .execute();
  await db
    .updateTable('subscription_deliveries')
    .set({
      status: DELIVERY_STATUS[last.status] ?? last.status,
      attempt: last.attempt,
      error: last.error,
      last_attempt_at: last.created_at,
      delivered_at: last.status === 'sent' ? last.created_at : null,
    })
    .where('id', '=', first.id)
    .execute();
  if (group.length > 1)
    await db
      .deleteFrom('subscription_deliveries')
      .where(
        'id',
        'in',
        group.slice(1).map((row) => row.id),
      )
      .execute();
}
