/**
 * Slack deliveries through the environment's incoming webhook. Incoming webhooks take no file
 * uploads, so the results travel as a text table; the channel is the part of target_value
 * before `|` (PostHog stores `"<channel id>|#name"`).
 */
import type { AllowedHosts } from '../core/index.js';
import { postJson } from './http.js';
import { resultTable, type Report } from './report.js';

export function slackChannel(targetValue: string): string {
  return targetValue.split('|')[0]!.trim();
}

function table(results: Report['items'][number]['results']): string {
  const { header, rows } = resultTable(results);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return ['```', line(header), ...rows.map(line), '```'].join('\n');
}

export function slackMessage(report: Report, targetValue: string, invite: { nextDeliveryDate: string | null } | null) {
  const title = invite
    ? `This channel has been subscribed to the ${report.kind} *${report.resourceName}* on Hoglet! 🎉`
    : `Your subscription to the ${report.kind} *${report.resourceName}* is ready! 🎉`;
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: title } }];
  if (invite) {
    const next = invite.nextDeliveryDate ? ` The next one will be sent on ${invite.nextDeliveryDate.slice(0, 10)}.` : '';
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `This subscription is ${report.summary}.${next}` }] });
  }
  for (const item of report.items) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*<${item.url}|${item.name}>*\n${table(item.results)}` } });
  }
  if (report.totalCount > report.items.length) {
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Showing ${report.items.length} of ${report.totalCount} Insights. <${report.resourceUrl}|View the rest in Hoglet>`,
        },
      ],
    });
  }
  blocks.push({
    type: 'actions',
    elements: [
      { type: 'button', text: { type: 'plain_text', text: 'View in Hoglet' }, url: report.resourceUrl },
      { type: 'button', text: { type: 'plain_text', text: 'Manage Subscription' }, url: report.subscriptionUrl },
    ],
  });
  return { channel: slackChannel(targetValue), text: title.replace(/\*/g, ''), blocks };
}

export async function sendSlack(
  webhookUrl: string,
  report: Report,
  targetValue: string,
  invite: { nextDeliveryDate: string | null } | null,
  allowed: AllowedHosts,
) {
  await postJson(webhookUrl, slackMessage(report, targetValue, invite), allowed);
}
