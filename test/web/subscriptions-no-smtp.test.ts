/**
 * An e-mail subscription in Chromium on a server without SMTP_URL: a test delivery from the page
 * fails at once and says that e-mail is not configured and which settings to set; the delivery
 * list shows the same error on its attempt, and no next attempt (a configuration error is not
 * retried). No console errors.
 */
import { describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { useSignedIn } from './signed-in.js';

const server = useTestServer();
const ui = useSignedIn(server);
const SLOW = { timeout: 15_000 };
const HOW_TO = /e-mail is not configured on this server: SMTP_URL is not set\. To send e-mail, set SMTP_URL .* and EMAIL_FROM/;

describe('an e-mail subscription without SMTP', () => {
  it('says on a test delivery and in its deliveries that e-mail is not configured, with no retry', async () => {
    const api = (path: string) => `/api/environments/${ui.env}${path}`;
    const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'order placed' }] } };
    const insight = await server.request(api('/insights/'), { method: 'POST', body: { name: 'Orders', query } });
    expect(insight.status, insight.text).toBe(201);
    const subscription = await server.request(api('/subscriptions/'), {
      method: 'POST',
      body: {
        insight: insight.body.id,
        target_type: 'email',
        target_value: 'ada@example.com',
        frequency: 'daily',
        start_date: '2030-01-01T08:00:00Z',
      },
    });
    expect(subscription.status, subscription.text).toBe(201);

    await ui.page.goto(`${server.url}/project/${ui.env}/insights/${insight.body.short_id}/subscriptions/${subscription.body.id}`);
    await ui.page.getByRole('button', { name: 'Send test delivery' }).click();
    const result = ui.page.getByTestId('test-result');
    await result.waitFor(SLOW);
    expect(await result.getByTestId('delivery-status').textContent()).toBe('failed');
    expect(await result.textContent()).toMatch(HOW_TO);

    const test = ui.page.getByTestId('delivery').filter({ hasText: 'Test' });
    await expect.poll(() => test.count(), SLOW).toBe(1);
    expect(await test.getByTestId('delivery-status').first().textContent()).toBe('failed');
    expect(await test.getByTestId('attempt-error').allTextContents()).toEqual([expect.stringMatching(HOW_TO)]);
    // Whatever the in-process scheduler sent meanwhile (the invite) failed the same way, for good.
    const statuses = await ui.page.getByTestId('deliveries').getByTestId('delivery-status').allTextContents();
    expect(statuses.every((s) => s === 'failed')).toBe(true);
    expect(await ui.page.getByText('Next attempt').count()).toBe(0);
    await screenshot(ui.page, 'subscription-no-smtp');
    expectNoPageErrors(ui.watched);
  });
});
