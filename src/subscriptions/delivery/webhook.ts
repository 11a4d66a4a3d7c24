/**
 * Webhook deliveries: one JSON POST per occurrence to the subscription's URL, with the results.
 * PostHog never implemented this target; the body is Hoglet's own, kept flat and explicit.
 */
import type { AllowedHosts } from '../core/index.js';
import { postJson } from './http.js';
import type { Report } from './report.js';

export interface WebhookContext {
  subscriptionId: number;
  title: string | null;
  occurrence: string | null;
  nextDeliveryDate: string | null;
}

export function webhookBody(report: Report, context: WebhookContext) {
  return {
    type: 'subscription_report',
    subscription: { id: context.subscriptionId, title: context.title, summary: report.summary, url: report.subscriptionUrl },
    occurrence: context.occurrence,
    next_delivery_date: context.nextDeliveryDate,
    resource: { type: report.kind, id: report.resourceId, name: report.resourceName, url: report.resourceUrl },
    insights: report.items.map((item) => ({ id: item.id, short_id: item.shortId, name: item.name, url: item.url, result: item.results })),
    total_insights: report.totalCount,
  };
}

export async function sendWebhook(url: string, report: Report, context: WebhookContext, allowed: AllowedHosts): Promise<void> {
  await postJson(url, webhookBody(report, context), allowed);
}
