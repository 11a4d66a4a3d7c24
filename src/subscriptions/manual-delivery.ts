/**
 * `test_delivery`: one delivery of a subscription now, outside its schedule, to every recipient.
 * It is recorded as a test (trigger `manual`) and never retried; the subscription's schedule and
 * retry state are left alone.
 */
import type { AppContext } from '../context.js';
import { conflict } from '../posthog/errors.js';
import { attemptDelivery } from './attempt.js';
import { getDelivery, testUnderWay, type Delivery } from './deliveries-store.js';
import { createDeliverer } from './delivery/index.js';
import type { Subscription } from './store.js';

/** How long a test still pending blocks another (one whose process died stops blocking then). */
const TEST_UNDER_WAY_MS = 5 * 60_000;

export async function sendTestDelivery(ctx: AppContext, subscription: Subscription): Promise<Delivery> {
  const { database } = ctx;
  // PostHog answers 409 while a test delivery of the subscription is still running.
  if (await testUnderWay(database.db, subscription.id, new Date(Date.now() - TEST_UNDER_WAY_MS).toISOString())) {
    throw conflict('Delivery already in progress');
  }
  const deliverer = createDeliverer(ctx);
  try {
    const test = { ...subscription, sentTo: [] };
    const attempt = await attemptDelivery(
      database,
      ctx.log,
      { subscription: test, kind: 'test', occurrence: null, target: await deliverer.target(test), retryAt: null },
      () => deliverer.deliverScheduled(test, null, new Date(), subscription.nextDeliveryDate),
    );
    return (await getDelivery(database.db, attempt.handle.deliveryId))!;
  } finally {
    deliverer.close();
  }
}
