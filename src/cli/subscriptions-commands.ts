import { listDeliveries, type Delivery } from '../subscriptions/deliveries-store.js';
import { withDatabase } from './admin-commands.js';

const USAGE = 'usage: hoglet subscriptions deliveries [--id SUBSCRIPTION_ID] [--limit N]';

const text = (value: string | null) => (value === null ? '-' : JSON.stringify(value));

function deliveryLines(d: Delivery): string {
  const target = d.target.type === null ? '-' : `${d.target.type}:${d.target.value ?? ''}`;
  const lines = [
    `${d.id}  subscription=${d.subscriptionId}  project=${d.teamId}  trigger=${d.kind}  scheduled_at=${d.occurrence ?? '-'}  ` +
      `target=${JSON.stringify(target)}${d.target.webhookUrl && d.target.type === 'slack' ? `  webhook_url=${d.target.webhookUrl}` : ''}  ` +
      `status=${d.status}  attempt=${d.attempt}  created=${d.createdAt}  last_attempt=${d.lastAttemptAt ?? '-'}  ` +
      `delivered=${d.deliveredAt ?? '-'}${d.nextAttemptAt ? `  next_attempt=${d.nextAttemptAt}` : ''}  error=${text(d.error)}`,
  ];
  for (const a of d.attempts) {
    lines.push(`    attempt ${a.attempt}  ${a.status}  started=${a.startedAt}  finished=${a.finishedAt ?? '-'}  error=${text(a.error)}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * `hoglet subscriptions …`: the subscription delivery log, for operators: each delivery (newest
 * first) with its target, status and times, and its attempts beneath it.
 */
export async function runSubscriptionsCommand(
  sub: string | undefined,
  options: { id?: string | undefined; limit?: string | undefined },
): Promise<number> {
  if (sub === 'deliveries') {
    const limit = options.limit === undefined ? 50 : Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`--limit takes a positive integer, got "${options.limit}"`);
    if (options.id !== undefined && !/^\d{1,15}$/.test(options.id)) throw new Error(`--id takes a subscription id, got "${options.id}"`);
    const subscriptionId = options.id === undefined ? undefined : Number(options.id);
    return withDatabase(async (database) => {
      const { deliveries } = await listDeliveries(database.db, { subscriptionId }, { limit, offset: 0 });
      if (deliveries.length === 0)
        process.stdout.write(
          subscriptionId === undefined ? 'no subscription deliveries\n' : `no deliveries of subscription ${subscriptionId}\n`,
        );
      for (const d of deliveries) process.stdout.write(deliveryLines(d));
      return 0;
    });
  }
  throw new Error(USAGE);
}
