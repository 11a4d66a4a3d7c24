/**
 * Sends one delivery of a subscription to its target: builds the report once, then e-mail,
 * slack or webhook. Throws on any failure so the scheduler can retry with backoff (a
 * DeliveryConfigurationError, such as e-mail without SMTP, is not retried).
 */
import type { AppContext } from '../../context.js';
import type { Database } from '../../platform/db/database.js';
import type { AnalyticsEngine } from '../../platform/analytics/engine.js';
import { getTeam, getUser } from '../../environments/tenancy-store.js';
import { maskUrl, NO_ALLOWED_HOSTS, type AllowedHosts } from '../core/index.js';
import type { DeliveryTarget } from '../deliveries-store.js';
import type { PendingInvite, Subscription } from '../store.js';
import { composeEmail, EmailSender } from './email.js';
import { buildReport } from './report.js';
import { sendSlack } from './slack.js';
import { sendWebhook } from './webhook.js';

export { DeliveryConfigurationError } from './errors.js';

export interface DelivererOptions {
  siteUrl: string;
  smtpUrl: string | undefined;
  emailFrom: string;
  /** Internal hosts and networks webhook and Slack deliveries may reach (WEBHOOK_ALLOWED_HOSTS); none when absent. */
  allowedHosts?: AllowedHosts;
}

export type DeliveryResult = 'sent' | 'skipped';

export class Deliverer {
  private readonly email: EmailSender;

  constructor(
    private readonly database: Database,
    /** Where the insights' events are. */
    private readonly analytics: AnalyticsEngine,
    private readonly options: DelivererOptions,
  ) {
    this.email = new EmailSender(options.smtpUrl, options.emailFrom);
  }

  private async slackWebhookOrNull(teamId: number): Promise<string | null> {
    const team = await getTeam(this.database.db, teamId);
    const url = team?.settings.slack_incoming_webhook;
    return typeof url === 'string' && url ? url : null;
  }

  private async slackWebhook(teamId: number): Promise<string> {
    const url = await this.slackWebhookOrNull(teamId);
    if (!url) throw new Error('the environment has no slack_incoming_webhook');
    return url;
  }

  /** Where a delivery (or the invite, when given) goes, as the delivery log shows it: URLs masked. */
  async target(s: Subscription, invite?: PendingInvite): Promise<DeliveryTarget> {
    switch (s.targetType) {
      case 'email': {
        const current = s.targetValue.split(',').map((e) => e.trim());
        const value = invite ? invite.recipients.filter((r) => current.includes(r)).join(',') : current.join(',');
        return { type: 'email', value, webhookUrl: null };
      }
      case 'slack': {
        const url = await this.slackWebhookOrNull(s.teamId);
        return { type: 'slack', value: s.targetValue, webhookUrl: url && maskUrl(url) };
      }
      case 'webhook':
        return { type: 'webhook', value: maskUrl(s.targetValue), webhookUrl: maskUrl(s.targetValue) };
      default:
        return { type: s.targetType, value: s.targetValue, webhookUrl: null };
    }
  }

  /**
   * The scheduled report for the occurrence at `occurrence` (null for a test). 'skipped' when the
   * resource is gone.
   * E-mail recipients in `s.sentTo` were served by an earlier, partly failed attempt and are
   * skipped; each address served now is pushed to `sent` (kept even when a later one fails).
   */
  async deliverScheduled(
    s: Subscription,
    occurrence: string | null,
    now: Date,
    nextDeliveryDate: string | null,
    sent: string[] = [],
  ): Promise<DeliveryResult> {
    const report = await buildReport({ database: this.database, analytics: this.analytics }, this.options.siteUrl, s, now);
    if (!report) return 'skipped';
    switch (s.targetType) {
      case 'email':
        for (const to of s.targetValue
          .split(',')
          .map((e) => e.trim())
          .filter((e) => e && !s.sentTo.includes(e))) {
          await this.email.send(composeEmail(report, to, null));
          sent.push(to);
        }
        break;
      case 'slack':
        await sendSlack(await this.slackWebhook(s.teamId), report, s.targetValue, null, this.allowedHosts);
        break;
      case 'webhook':
        await sendWebhook(s.targetValue, report, { subscriptionId: s.id, title: s.title, occurrence, nextDeliveryDate }, this.allowedHosts);
        break;
      default:
        throw new Error(`unknown target type ${s.targetType}`);
    }
    return 'sent';
  }

  /** The invite owed to new recipients (e-mail addresses, or the slack channel); served ones are pushed to `sent`. */
  async deliverInvite(s: Subscription, invite: PendingInvite, now: Date, sent: string[] = []): Promise<DeliveryResult> {
    const report = await buildReport({ database: this.database, analytics: this.analytics }, this.options.siteUrl, s, now);
    if (!report) return 'skipped';
    if (s.targetType === 'email') {
      const inviter = s.createdById === null ? undefined : await getUser(this.database.db, s.createdById);
      const current = new Set(s.targetValue.split(',').map((e) => e.trim()));
      // Only addresses still on the list: one removed since the invite was queued gets nothing.
      for (const to of invite.recipients.filter((r) => current.has(r))) {
        await this.email.send(
          composeEmail(report, to, {
            inviterName: inviter?.firstName || null,
            inviterEmail: inviter?.email ?? null,
            message: invite.message,
            nextDeliveryDate: s.nextDeliveryDate,
          }),
        );
        sent.push(to);
      }
    } else if (s.targetType === 'slack') {
      await sendSlack(
        await this.slackWebhook(s.teamId),
        report,
        s.targetValue,
        { nextDeliveryDate: s.nextDeliveryDate },
        this.allowedHosts,
      );
    }
    return 'sent';
  }

  private get allowedHosts(): AllowedHosts {
    return this.options.allowedHosts ?? NO_ALLOWED_HOSTS;
  }

  close(): void {
    this.email.close();
  }
}

/** A deliverer configured from the app's settings. */
export function createDeliverer(ctx: AppContext): Deliverer {
  const { config } = ctx;
  return new Deliverer(ctx.database, ctx.analytics, {
    siteUrl: config.siteUrl ?? `http://127.0.0.1:${config.port}`,
    smtpUrl: config.smtpUrl,
    emailFrom: config.emailFrom,
    allowedHosts: config.webhookAllowedHosts,
  });
}
