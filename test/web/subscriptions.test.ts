/**
 * Subscriptions in Chromium against a real Hoglet with a real SMTP sink and a real HTTP receiver:
 * an insight's e-mail subscription made in the form is stored with the fields chosen (the time
 * and weekdays in the environment's zone, sent as the server's UTC schedule); a test delivery sent
 * from the page reaches the sink, and the link in the e-mail opens the subscription with its
 * deliveries and their attempts as the API lists them; a dashboard's webhook subscription is
 * delivered to the receiver; an invalid address shows the server's error on the recipients, Slack
 * without an integration on the target; delete asks first. No console errors; a screenshot of each page in .tmp/screenshots/.
 */
import net, { type AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot, type WatchedPage } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { createDashboard, createInsight } from '../subscriptions/helpers.js';
import { LOOPBACK_TARGETS_ENV, startReceiver, startSmtp } from '../subscriptions/receivers.js';
import { openSignedIn } from './signed-in.js';

/** The server's own address, as the links in its e-mails carry it (SITE_URL), so that they open. */
let SITE: string;
/** No daylight saving time: the UTC schedule the form sends can be worked out by hand. */
const ZONE = 'Asia/Kolkata';
const IST_MS = (5 * 60 + 30) * 60_000;
const DAY = 86_400_000;
const HOUR = 3_600_000;

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let browser: Browser;
let watched: WatchedPage;
let page: Page;
let env: number;
let insight: any;
let dashboard: any;

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const api = (path: string) => `/api/environments/${env}${path}`;

async function getJson(path: string) {
  const res = await server.request(api(path));
  expect(res.status, res.text).toBe(200);
  return res.body;
}

beforeAll(async () => {
  smtp = await startSmtp();
  receiver = await startReceiver();
  // The server's SITE_URL is its own address, so its port is chosen before it listens: another
  // process may take that port meanwhile (CI runs test files side by side), then another is tried.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    SITE = `http://127.0.0.1:${port}`;
    try {
      server = await startTestServer({
        ...LOOPBACK_TARGETS_ENV,
        SMTP_URL: smtp.url,
        EMAIL_FROM: 'reports@hoglet.test',
        PORT: String(port),
        SITE_URL: SITE,
      });
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt === 5) throw error;
    }
  }
  expect(server.url).toBe(SITE);
  env = server.bootstrap.team.id;
  const zone = await server.request(api('/'), { method: 'PATCH', body: { timezone: ZONE } });
  expect(zone.status, zone.text).toBe(200);
  // Four orders in the last two days, one a month ago (outside the insight's seven days), one signup.
  const now = Date.now();
  const batch = [
    ['u1', 'order placed', now - HOUR],
    ['u1', 'order placed', now - 2 * HOUR],
    ['u2', 'order placed', now - DAY],
    ['u3', 'order placed', now - 2 * DAY],
    ['u3', 'signed up', now - 2 * DAY],
    ['u4', 'order placed', now - 30 * DAY],
  ].map(([distinct_id, event, t]) => ({ event, distinct_id, timestamp: new Date(t as number).toISOString(), properties: {} }));
  const res = await server.request('/batch/', { method: 'POST', key: null, body: { api_key: server.bootstrap.team.apiToken, batch } });
  expect(res.status, res.text).toBe(200);
  await server.settle();
  dashboard = await createDashboard(server, { name: 'Sales KPIs' });
  insight = await createInsight(server, { name: 'Orders', dashboards: [dashboard.id] });
  ({ browser, watched, page } = await openSignedIn(server));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await smtp?.close();
  await receiver?.close();
});

/** Today's calendar date in India, as UTC midnight of that date. */
function todayInIndia(): number {
  const d = new Date(Date.now() + IST_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

const dateInput = (utcMidnight: number) => new Date(utcMidnight).toISOString().slice(0, 10);
const WEEKDAY_LABELS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

async function checkOnly(labels: string[]) {
  for (const day of WEEKDAY_LABELS) await page.getByRole('checkbox', { name: day, exact: true }).setChecked(labels.includes(day));
}

describe('an insight subscribed by e-mail', () => {
  let subscription: any;
  // The first Monday at least three days away, in India: at 03:00 there it is Sunday 21:30 UTC.
  let monday = todayInIndia() + 3 * DAY;
  while (new Date(monday).getUTCDay() !== 1) monday += DAY;

  it('lists nothing yet and links back to the insight', async () => {
    await page.goto(`${server.url}/project/${env}/insights/${insight.short_id}/subscriptions`);
    await page.getByTestId('subscriptions-empty').waitFor();
    const back = page.getByTestId('resource-link');
    expect(await back.textContent()).toBe('Orders');
    expect(await back.getAttribute('href')).toBe(`/project/${env}/insights/${insight.short_id}`);
    await screenshot(page, 'subscriptions-empty');
    expectNoPageErrors(watched);
  });

  it("shows the server's error on the recipients for an invalid address", async () => {
    await page.getByRole('link', { name: 'New subscription' }).click();
    await page.getByRole('heading', { name: 'New subscription' }).waitFor();
    await page.getByRole('textbox', { name: 'Recipient 1' }).fill('not-an-address');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const error = page.getByTestId('recipients-error');
    await error.waitFor();
    // What the API answers for that address, asked directly.
    const direct = await server.request(api('/subscriptions/'), {
      method: 'POST',
      body: {
        insight: insight.id,
        target_type: 'email',
        target_value: 'not-an-address',
        frequency: 'daily',
        start_date: new Date().toISOString(),
      },
    });
    expect(direct.status).toBe(400);
    expect(direct.body.attr).toBe('target_value');
    expect(await error.textContent()).toBe(direct.body.detail);
    expect(new URL(page.url()).pathname).toBe(`/project/${env}/insights/${insight.short_id}/subscriptions/new`);
    expect((await getJson(`/subscriptions/?insight=${insight.id}`)).count).toBe(0);
    await screenshot(page, 'subscription-invalid-email');
    expectNoPageErrors(watched, [400]);
  });

  it('creates a weekly e-mail subscription with the fields as chosen', async () => {
    await page.getByLabel('Title').fill('Orders for the team');
    await page.getByRole('textbox', { name: 'Recipient 1' }).fill('ana@example.com');
    await page.getByRole('button', { name: 'Add recipient' }).click();
    await page.getByRole('textbox', { name: 'Recipient 2' }).fill('bo@example.org');
    await page.getByLabel('Frequency').selectOption('weekly');
    await checkOnly(['Monday', 'Thursday']);
    // The time, its zone in its label, sits level with the date.
    const [date, time] = await Promise.all([page.getByLabel('Starting').boundingBox(), page.getByLabel(`At (${ZONE})`).boundingBox()]);
    expect(time!.y).toBe(date!.y);
    await page.getByLabel('Starting').fill(dateInput(monday));
    await page.getByLabel(`At (${ZONE})`).fill('03:00');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await page.waitForURL(/\/subscriptions\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());

    subscription = await getJson(`/subscriptions/${id}/`);
    // Monday and Thursday at 03:00 in India are Sunday and Wednesday at 21:30 UTC.
    const start = `${dateInput(monday - DAY)}T21:30:00Z`;
    expect(subscription).toMatchObject({
      insight: insight.id,
      dashboard: null,
      title: 'Orders for the team',
      target_type: 'email',
      target_value: 'ana@example.com,bo@example.org',
      frequency: 'weekly',
      interval: 1,
      byweekday: ['sunday', 'wednesday'],
      bysetpos: null,
      start_date: start,
      deleted: false,
      // The start is days away, so it is the first delivery.
      next_delivery_date: start,
    });
    await page.getByRole('heading', { name: 'Orders for the team' }).waitFor();
    expect(await page.getByTestId('schedule').textContent()).toContain('Sent every week on Monday, Thursday at 03:00');
    expectNoPageErrors(watched);
  });

  it('lists it with its schedule in words', async () => {
    await page.getByRole('link', { name: 'All subscriptions of this insight' }).click();
    const row = page.getByTestId('subscription-row');
    await row.waitFor();
    expect(await row.count()).toBe(1);
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[0]).toBe('Orders for the team');
    expect(cells[1]).toBe('E-mail ana@example.com, bo@example.org');
    expect(cells[2]).toBe('Sent every week on Monday, Thursday at 03:00');
    // 03:00 on the Monday in India, as the browser's locale writes it.
    const expected = await page.evaluate(
      ([zone, t]) =>
        new Intl.DateTimeFormat(undefined, { timeZone: zone as string, dateStyle: 'medium', timeStyle: 'short' }).format(
          new Date(t as number),
        ),
      [ZONE, monday + 3 * HOUR - IST_MS] as const,
    );
    expect(cells[3]).toBe(expected);
    await screenshot(page, 'subscriptions-list');
    expectNoPageErrors(watched);
  });

  it("shows on the insight's own page, whose link opens it", async () => {
    await page.goto(`${server.url}/project/${env}/insights/${insight.short_id}`);
    const summary = page.getByTestId('insight-subscriptions').getByTestId('subscriptions-summary');
    await summary.waitFor();
    await summary.getByText('Sent every week on Monday, Thursday at 03:00').waitFor();
    await summary.getByRole('link', { name: 'Orders for the team' }).click();
    await page.waitForURL(`${server.url}/project/${env}/insights/${insight.short_id}/subscriptions/${subscription.id}`);
    await page.getByRole('heading', { name: 'Orders for the team' }).waitFor();
    await screenshot(page, 'insight-page-subscriptions');
    expectNoPageErrors(watched);
    // Back where the next step starts: the insight's subscriptions.
    await page.goto(`${server.url}/project/${env}/insights/${insight.short_id}/subscriptions`);
    await page.getByTestId('subscription-row').waitFor();
  });

  it('sends a test delivery from the page to the SMTP sink, and the link in it opens the deliveries', async () => {
    await page.getByRole('link', { name: 'Edit Orders for the team' }).click();
    await page.getByRole('button', { name: 'Send test delivery' }).click();
    const result = page.getByTestId('test-result');
    await result.waitFor();
    expect(await result.getByTestId('delivery-status').textContent()).toBe('delivered');

    // One report per recipient (and, from the scheduler, one invitation each).
    const subject = 'Hoglet Insight report - Orders';
    const reports = await waitFor(() => smtp.messages.filter((m) => m.subject === subject), {
      what: 'the test report to both recipients',
      until: (m) => m.length === 2,
    });
    expect(reports.flatMap((m) => m.to).sort()).toEqual(['ana@example.com', 'bo@example.org']);
    const path = `/project/${env}/insights/${insight.short_id}/subscriptions/${subscription.id}`;
    const links = reports.map((m) =>
      new RegExp(`${SITE}(/project/[^\\s"?]+)\\?[^\\s"]*`).exec(m.decoded.split('Manage this subscription:')[1] ?? ''),
    );
    expect(links.map((l) => l?.[1])).toEqual([path, path]);

    // Every delivery finished (the invitations go out from the scheduler), as the API lists them.
    const deliveries = await waitFor(() => getJson(`/subscriptions/${subscription.id}/deliveries/`), {
      what: 'the test delivery and the invitations to finish',
      until: (d) => d.results.some((x: any) => x.is_test) && d.results.every((x: any) => !['pending', 'retrying'].includes(x.status)),
    });
    await page.goto(links[0]![0]);
    await page.getByRole('heading', { name: 'Orders for the team' }).waitFor();
    const cards = page.getByTestId('delivery');
    await cards.first().waitFor();
    expect(await cards.count()).toBe(deliveries.results.length);
    for (const [i, d] of deliveries.results.entries()) {
      const card = cards.nth(i);
      expect(await card.getByTestId('delivery-status').first().textContent()).toBe(d.status);
      const attempts = card.getByTestId('attempt');
      expect(await attempts.count()).toBe(d.attempts.length);
      for (const [j, a] of d.attempts.entries()) {
        const cells = await attempts.nth(j).getByRole('cell').allTextContents();
        expect(cells[0]).toBe(String(a.attempt));
        expect(cells[3]).toBe(a.status);
        expect(cells[4]).toBe(a.error ?? '');
      }
    }
    const test = deliveries.results.find((d: any) => d.is_test);
    expect(test).toMatchObject({ status: 'delivered', trigger_type: 'manual', target_type: 'email' });
    expect(test.attempts).toMatchObject([{ attempt: 1, status: 'delivered', error: null }]);
    await screenshot(page, 'subscription-deliveries');
    expectNoPageErrors(watched);
  });

  it('is deleted after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').waitFor();
    expect((await getJson(`/subscriptions/${subscription.id}/`)).deleted).toBe(false);
    await page.getByRole('button', { name: 'Delete subscription' }).click();
    await page.getByTestId('subscriptions-empty').waitFor();
    expect((await getJson(`/subscriptions/${subscription.id}/`)).deleted).toBe(true);
    expectNoPageErrors(watched);
  });
});

describe('a dashboard subscribed to a webhook', () => {
  it('is created monthly on the last Friday and delivered to the receiver', async () => {
    await page.goto(`${server.url}/project/${env}/dashboard/${dashboard.id}/subscriptions`);
    expect(await page.getByTestId('resource-link').textContent()).toBe('Sales KPIs');
    await page.getByRole('link', { name: 'New subscription' }).click();
    await page.getByLabel('Title').fill('KPIs to the warehouse');
    await page.getByLabel('Send to').selectOption('webhook');
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/hooks/kpis`);
    await page.getByLabel('Frequency').selectOption('monthly');
    await page.getByLabel('Every').fill('2');
    await page.getByRole('radio', { name: 'The', exact: true }).check();
    await page.getByLabel('Which one').selectOption('-1');
    await page.getByLabel('Day of the week').selectOption('friday');
    // The first of next month in India, at 10:00 there: 04:30 UTC the same day.
    const today = new Date(todayInIndia());
    const first = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1);
    await page.getByLabel('Starting').fill(dateInput(first));
    await page.getByLabel(`At (${ZONE})`).fill('10:00');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await page.waitForURL(/\/subscriptions\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());

    // That month's last Friday, at 04:30 UTC, is the first delivery.
    let lastFriday = Date.UTC(new Date(first).getUTCFullYear(), new Date(first).getUTCMonth() + 1, 0);
    while (new Date(lastFriday).getUTCDay() !== 5) lastFriday -= DAY;
    const subscription = await getJson(`/subscriptions/${id}/`);
    expect(subscription).toMatchObject({
      dashboard: dashboard.id,
      insight: null,
      title: 'KPIs to the warehouse',
      target_type: 'webhook',
      target_value: `${receiver.url}/hooks/kpis`,
      frequency: 'monthly',
      interval: 2,
      byweekday: ['friday'],
      bysetpos: -1,
      start_date: `${dateInput(first)}T04:30:00Z`,
      next_delivery_date: `${dateInput(lastFriday)}T04:30:00Z`,
      summary: 'sent every 2 months on the last Friday',
    });
    expect(await page.getByTestId('schedule').textContent()).toContain('Sent every 2 months on the last Friday at 10:00');

    await page.getByRole('button', { name: 'Send test delivery' }).click();
    await page.getByTestId('test-result').waitFor();
    const post = (await waitFor(() => receiver.posts.find((p) => p.path === '/hooks/kpis'), { what: 'the webhook delivery' }))!;
    expect(post.body).toMatchObject({
      type: 'subscription_report',
      subscription: { id, title: 'KPIs to the warehouse', url: `${SITE}/project/${env}/dashboard/${dashboard.id}/subscriptions/${id}` },
      resource: { type: 'dashboard', id: dashboard.id, name: 'Sales KPIs' },
    });
    // The dashboard's one insight, with the four orders of the fixture's last seven days.
    expect(post.body.insights.map((i: any) => i.short_id)).toEqual([insight.short_id]);
    expect(post.body.insights[0].result[0].count).toBe(4);

    const card = page.getByTestId('delivery');
    await card.waitFor();
    expect(await card.getByTestId('delivery-status').first().textContent()).toBe('delivered');
    expect(await card.getByTestId('attempt').count()).toBe(1);
    expect(await card.getByTestId('delivery-target').textContent()).toContain(receiver.url);
    await screenshot(page, 'dashboard-subscription-webhook');
    expectNoPageErrors(watched);
  });

  it("shows the server's refusal of Slack, without a Slack integration, on the target", async () => {
    await page.goto(`${server.url}/project/${env}/dashboard/${dashboard.id}/subscriptions/new`);
    await page.getByLabel('Send to').selectOption('slack');
    await page.getByLabel('Slack channel').fill('C0123456789|#sales');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const select = page.getByLabel('Send to');
    await expect.poll(() => select.getAttribute('aria-invalid')).toBe('true');
    const direct = await server.request(api('/subscriptions/'), {
      method: 'POST',
      body: {
        dashboard: dashboard.id,
        target_type: 'slack',
        target_value: 'C0123456789|#sales',
        frequency: 'daily',
        start_date: new Date().toISOString(),
      },
    });
    expect(direct.status).toBe(400);
    expect(direct.body.attr).toBe('target_type');
    await page.getByText(direct.body.detail, { exact: true }).waitFor();
    expect((await getJson(`/subscriptions/?dashboard=${dashboard.id}`)).count).toBe(1);
    await screenshot(page, 'subscription-slack-refused');
    expectNoPageErrors(watched, [400]);
  });
});
