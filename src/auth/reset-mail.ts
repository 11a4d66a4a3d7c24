/** Password reset e-mails (PostHog's `POST /api/reset/`), through the SMTP server subscriptions use. */
import type { AppContext } from '../context.js';
import { ApiError, throttled } from '../posthog/errors.js';
import { EmailSender, type EmailMessage } from '../subscriptions/delivery/email.js';
import { emailKey } from './account-fields.js';
import { createPasswordToken, RESET_TOKEN_AGE_MS } from './password-service.js';
import { findUserWithPassword } from './sessions-store.js';
import { failuresSince, recordFailure } from './throttle-store.js';

export interface Mailer {
  readonly configured: boolean;
  send(message: EmailMessage): Promise<void>;
  close(): void;
}

export function createMailer(ctx: AppContext): Mailer {
  const sender = new EmailSender(ctx.config.smtpUrl, ctx.config.emailFrom);
  return { configured: Boolean(ctx.config.smtpUrl), send: (m) => sender.send(m), close: () => sender.close() };
}

/** PostHog's UserPasswordResetThrottle, per address: a few e-mails an hour. */
const RESETS_PER_HOUR = 6;

/**
 * Sends a reset link when the e-mail is an active user's; answers the same either way, so the
 * endpoint does not tell who has an account.
 */
export async function requestPasswordReset(ctx: AppContext, mailer: Mailer, email: string, siteUrl: string): Promise<void> {
  if (!mailer.configured) {
    throw new ApiError(
      400,
      'validation_error',
      'email_not_available',
      'Cannot reset passwords because email is not configured for your instance. Please contact your administrator.',
    );
  }
  const { db } = ctx.database;
  const now = new Date();
  const hourAgo = new Date(now.getTime() - 3600_000);
  const key = `reset:${emailKey(email)}`;
  const counted = await failuresSince(db, key, hourAgo);
  if (counted && counted.failures >= RESETS_PER_HOUR) throw throttled((Date.parse(counted.startedAt) + 3600_000 - now.getTime()) / 1000);
  await recordFailure(db, key, now, hourAgo);
  const found = await findUserWithPassword(db, email);
  if (!found?.user.isActive) return;
  const token = await createPasswordToken(db, found.user.id, RESET_TOKEN_AGE_MS, now);
  const link = `${siteUrl}/reset/${found.user.uuid}/${token}`;
  try {
    await mailer.send({
      to: found.user.email,
      subject: 'Reset your Hoglet password',
      text: `Someone asked to reset the password of your Hoglet account ${found.user.email}.\n\nSet a new password: ${link}\n\nThe link works once, for three days. If you did not ask, ignore this e-mail.`,
      attachments: [],
      html: `<p>Someone asked to reset the password of your Hoglet account.</p><p><a href="${link}">Set a new password</a></p><p>The link works once, for three days. If you did not ask, ignore this e-mail.</p>`,
    });
  } catch (error) {
    ctx.log.warn({ err: { message: (error as Error).message } }, 'password reset e-mail not sent');
  }
}
