/**
 * Subscription e-mails through SMTP (nodemailer): an HTML part with a results table and a chart
 * image per insight (inline, by content id), a plain-text twin, and links back to Hoglet. One
 * message per recipient, as PostHog sends them.
 */
import { createRequire } from 'node:module';
import type { Transporter } from 'nodemailer';
import { chartPng } from '../chart.js';
import { humanDate, resultTable, type Report } from './report.js';
import { DeliveryConfigurationError } from './errors.js';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: Array<{ filename: string; content: Buffer; cid: string; contentType: string }>;
}

export interface InviteDetails {
  inviterName: string | null;
  inviterEmail: string | null;
  message: string;
  nextDeliveryDate: string | null;
}

const escapeHtml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);

const UTM = 'utm_source=hoglet&utm_campaign=subscription_report&utm_medium=email';
const withUtm = (url: string) => `${url}${url.includes('?') ? '&' : '?'}${UTM}`;
const noun = (report: Report) => (report.kind === 'insight' ? 'Insight' : 'Dashboard');

function subject(report: Report, to: string, invite: InviteDetails | null): string {
  if (!invite) return `Hoglet ${noun(report)} report - ${report.resourceName}`;
  if (invite.inviterEmail && invite.inviterEmail.toLowerCase() === to.toLowerCase()) {
    return `You have been subscribed to a Hoglet ${report.kind}`;
  }
  return `${invite.inviterName || 'Someone'} subscribed you to a Hoglet ${report.kind}`;
}

/** The message for one recipient: the report itself, or an invite (which also shows the report). */
export function composeEmail(report: Report, to: string, invite: InviteDetails | null): EmailMessage {
  const text: string[] = [];
  const html: string[] = ['<div style="font-family:sans-serif;color:#111">'];
  if (invite) {
    const when = humanDate(invite.nextDeliveryDate);
    const summary = `This subscription is ${report.summary}.${when ? ` The next subscription will be sent on ${when}` : ''}`;
    if (invite.message) {
      text.push(invite.message, '');
      html.push(`<p style="white-space:pre-wrap">${escapeHtml(invite.message)}</p>`);
    }
    text.push(summary, '');
    html.push(`<p>${escapeHtml(summary)}</p>`);
  }
  text.push(`${noun(report)}: ${report.resourceName}`, withUtm(report.resourceUrl), '');
  html.push(`<h2><a href="${escapeHtml(withUtm(report.resourceUrl))}">${escapeHtml(report.resourceName)}</a></h2>`);
  const attachments: EmailMessage['attachments'] = [];
  report.items.forEach((item, i) => {
    const table = resultTable(item.results);
    const cid = `chart-${i}@hoglet`;
    attachments.push({
      filename: `insight-${item.shortId}.png`,
      content: chartPng(item.name, item.results),
      cid,
      contentType: 'image/png',
    });
    text.push(`== ${item.name} == ${withUtm(item.url)}`, table.header.join(' | '), ...table.rows.map((r) => r.join(' | ')), '');
    html.push(
      `<h3><a href="${escapeHtml(withUtm(item.url))}">${escapeHtml(item.name)}</a></h3>`,
      `<img src="cid:${cid}" alt="${escapeHtml(item.name)}" width="720" style="max-width:100%"/>`,
      '<table border="1" cellpadding="4" cellspacing="0" style="border-collapse:collapse;font-size:13px">',
      `<tr>${table.header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>`,
      ...table.rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`),
      '</table>',
    );
  });
  if (report.totalCount > report.items.length) {
    const more = `Showing ${report.items.length} of ${report.totalCount} insights. View the rest in Hoglet: ${withUtm(report.resourceUrl)}`;
    text.push(more, '');
    html.push(`<p>${escapeHtml(more)}</p>`);
  }
  text.push(`Manage this subscription: ${withUtm(report.subscriptionUrl)}`);
  html.push(
    `<p style="font-size:12px;color:#666"><a href="${escapeHtml(withUtm(report.subscriptionUrl))}">Manage this subscription</a></p></div>`,
  );
  return { to, subject: subject(report, to, invite), text: text.join('\n'), html: html.join('\n'), attachments };
}

/** Why an e-mail cannot go out: what saving an e-mail subscription without SMTP warns of. */
export const SMTP_NOT_CONFIGURED = 'e-mail is not configured on this server: SMTP_URL is not set';

/** What a delivery attempted without SMTP records as its error: why, and the settings that mend it. */
export const SMTP_NOT_CONFIGURED_DETAIL =
  `${SMTP_NOT_CONFIGURED}. To send e-mail, set SMTP_URL (smtp://user:password@host:587, or smtps:// for TLS) ` +
  'and EMAIL_FROM (the sender) where Hoglet and its workers run, then restart them';

export class EmailSender {
  private transport: Transporter | undefined;
  constructor(
    private readonly smtpUrl: string | undefined,
    private readonly from: string,
  ) {}

  async send(message: EmailMessage): Promise<void> {
    if (!this.smtpUrl) throw new DeliveryConfigurationError(SMTP_NOT_CONFIGURED_DETAIL);
    // Loaded with the first e-mail, not by every start (it is slow to load).
    this.transport ??= (createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer')).createTransport(this.smtpUrl, {
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    } as never);
    await this.transport.sendMail({ from: this.from, ...message });
  }

  close(): void {
    this.transport?.close();
    this.transport = undefined;
  }
}
