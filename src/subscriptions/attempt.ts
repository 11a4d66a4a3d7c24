/**
 * One attempt at a delivery, whatever started it (the scheduler, an invite, a test): recorded in
 * the delivery log before and after, and logged in one line, info when it went out, warn when it
 * failed.
 */
import type { Logger } from 'pino';
import type { Database } from '../platform/db/database.js';
import { beginAttempt, finishAttempt, type AttemptHandle, type DeliveryKind, type DeliveryTarget } from './deliveries-store.js';
import { DeliveryConfigurationError, type DeliveryResult } from './delivery/index.js';
import type { Subscription } from './store.js';

/** An error as the delivery log shows it: its message and its cause's (fetch's "fetch failed" says little alone), no stack. */
export function errorText(error: unknown): string {
  const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
  let text = message(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause !== undefined && cause !== null) text += ` (${message(cause)})`;
  return text.slice(0, 1000);
}

export interface AttemptSpec {
  subscription: Subscription;
  kind: DeliveryKind;
  occurrence: string | null;
  skippedOccurrences?: number;
  target: DeliveryTarget;
  /** When a failure is tried again; null: a failure ends the delivery. A configuration error always ends it. */
  retryAt: string | null;
}

export type AttemptOutcome =
  | { ok: true; result: DeliveryResult; handle: AttemptHandle }
  /** `final`: the failure is a configuration error, not retried whatever the attempt count. */
  | { ok: false; error: unknown; text: string; handle: AttemptHandle; final: boolean };

export async function attemptDelivery(
  database: Database,
  log: Logger,
  spec: AttemptSpec,
  send: () => Promise<DeliveryResult>,
): Promise<AttemptOutcome> {
  const s = spec.subscription;
  const handle = await beginAttempt(database.db, {
    subscriptionId: s.id,
    teamId: s.teamId,
    kind: spec.kind,
    occurrence: spec.occurrence,
    ...(spec.skippedOccurrences !== undefined ? { skippedOccurrences: spec.skippedOccurrences } : {}),
    target: spec.target,
  });
  const fields = {
    subscription: s.id,
    team: s.teamId,
    delivery: handle.deliveryId,
    trigger: spec.kind,
    targetType: spec.target.type,
    occurrence: spec.occurrence,
    attempt: handle.attempt,
  };
  let result: DeliveryResult;
  try {
    result = await send();
  } catch (error) {
    const text = errorText(error);
    const final = error instanceof DeliveryConfigurationError;
    const retryAt = final ? null : spec.retryAt;
    await finishAttempt(database.db, handle, { status: 'failed', error: text, retryAt });
    log.warn({ ...fields, error: text, retryAt }, 'subscription delivery attempt failed');
    return { ok: false, error, text, handle, final };
  }
  if (result === 'sent') {
    await finishAttempt(database.db, handle, { status: 'delivered' });
    log.info(fields, 'subscription delivered');
  } else {
    const reason = 'skipped: the insight or dashboard is deleted';
    await finishAttempt(database.db, handle, { status: 'skipped', error: reason });
    log.info(fields, `subscription delivery ${reason}`);
  }
  return { ok: true, result, handle };
}
