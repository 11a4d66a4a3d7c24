/**
 * The retention insight in Chromium: chosen as the insight type, built with its editor, drawn as
 * PostHog's cohort table (each cohort's size, then the share of it back in each later period),
 * equal to what POST /query/ answers and to the cohorts counted by hand from the insights fixture
 * (insights-fixture.ts, in Asia/Tokyo), a cohort's persons listed on a click; saved, reloaded and
 * listed as a retention.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot, type WatchedPage } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { DATE_RANGE, useInsightsFixture } from './insights-fixture.js';

const server = useTestServer();

let watched: WatchedPage;
let page: Page;
let env: number;

const ui = useInsightsFixture(server);

beforeAll(() => {
  ({ page, watched, env } = ui);
});

/** The table's rows: cohort, size and each period's cell as shown. */
async function tableRows(): Promise<string[][]> {
  const rows = page.getByTestId('retention-row');
  const texts: string[][] = [];
  for (const row of await rows.all()) texts.push((await row.locator('td').allInnerTexts()).map((t) => t.trim()));
  return texts;
}

describe('a retention', () => {
  it("shows each cohort's size and share back per period, as the query answers and by hand", async () => {
    await page.goto(`${server.url}/project/${env}/insights/new`);
    await page.getByText('Retention', { exact: true }).click();
    await page.getByTestId('retention-editor').waitFor();
    await page.getByLabel('Date range').first().selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill(DATE_RANGE.date_from);
    await page.getByLabel('To', { exact: true }).fill(DATE_RANGE.date_to);

    const query = {
      kind: 'RetentionQuery',
      retentionFilter: {
        period: 'Day',
        totalIntervals: 8,
        retentionType: 'retention_first_time',
        targetEntity: { id: '$pageview', name: '$pageview', type: 'events' },
        returningEntity: { id: '$pageview', name: '$pageview', type: 'events' },
      },
      dateRange: DATE_RANGE,
    };
    const answer = await server.request(`/api/environments/${env}/query/`, { method: 'POST', body: { query } });
    expect(answer.status, answer.text).toBe(200);
    const counts = (answer.body.results as Array<{ values: Array<{ count: number }> }>).map((row) => row.values.map((v) => v.count));
    // By hand (local days): alice and bob first on the 6th, alice back on the 7th; carol on the 8th;
    // dave on the 10th, back on the 12th; eve's first was the 5th, before the range.
    const zeros = [0, 0, 0, 0, 0, 0, 0];
    expect(counts.map((row) => row.slice(0, 3))).toEqual([
      [2, 1, 0],
      [0, 0, 0],
      [1, 0, 0],
      [0, 0, 0],
      [1, 0, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    expect(counts.map((row) => row.slice(1).some((n, k) => n > 0 && k >= 2))).toEqual(zeros.map(() => false));

    // Cohort i shows periods 0..6-i (the range ends on the 12th): the rest are not reached yet.
    await expect.poll(tableRows).toEqual([
      ['6-Oct-2025', '2', '100.0%', '50.0%', '0.0%', '0.0%', '0.0%', '0.0%', '0.0%', ''],
      ['7-Oct-2025', '0', '–', '–', '–', '–', '–', '–', '', ''],
      ['8-Oct-2025', '1', '100.0%', '0.0%', '0.0%', '0.0%', '0.0%', '', '', ''],
      ['9-Oct-2025', '0', '–', '–', '–', '–', '', '', '', ''],
      ['10-Oct-2025', '1', '100.0%', '0.0%', '100.0%', '', '', '', '', ''],
      ['11-Oct-2025', '0', '–', '–', '', '', '', '', '', ''],
      ['12-Oct-2025', '0', '–', '', '', '', '', '', '', ''],
    ]);
    await screenshot(page, 'insight-retention');

    // The 6th's cohort: alice, back the next day, then bob.
    await page.getByTestId('retention-row').first().getByRole('button', { name: '2' }).click();
    const modal = page.getByTestId('persons-modal-table');
    await modal.waitFor();
    expect(await modal.getByTestId('persons-modal-row').locator('a').allTextContents()).toEqual(['alice', 'bob']);
    expect(await modal.getByTestId('persons-modal-back').allTextContents()).toEqual(['Day 1', '–']);
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'detached' });

    // Recurring: every day with a pageview is a cohort of its own; alice is in the 6th's and the 7th's.
    await page.getByLabel('Performed').selectOption('retention_recurring');
    await expect.poll(async () => (await tableRows()).map((row) => row[1])).toEqual(['2', '1', '1', '0', '1', '0', '1']);
    await page.getByLabel('Performed').selectOption('retention_first_time');
    expectNoPageErrors(watched);

    await page.getByLabel('Name').fill('Visitors back');
    await page.getByRole('button', { name: 'Save insight' }).click();
    await page.waitForURL(/\/insights\/[A-Za-z0-9]{8}$/);
    await page.reload();
    await expect.poll(async () => (await tableRows()).map((row) => row[1])).toEqual(['2', '0', '1', '0', '1', '0', '0']);
    expect(await page.getByLabel('Performed').inputValue()).toBe('retention_first_time');
    await page.goto(`${server.url}/project/${env}/insights`);
    const row = page.getByTestId('insight-row').filter({ hasText: 'Visitors back' });
    await expect.poll(async () => (await row.innerText()).toLowerCase()).toContain('retention');
    expectNoPageErrors(watched);
  });
});
