/**
 * People and groups in Chromium against a real Hoglet, signed in: the persons list and its search
 * (a person sent by posthog-node, others through /batch), a person's page (properties as text,
 * events, recordings, cohorts, distinct ids), delete and split behind a confirmation, the groups
 * list and a group's page. No console errors; a screenshot of each page in .tmp/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot, type WatchedPage } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { fullSnapshot, meta, click, newSessionId, postSnapshots, snapshotEvent } from '../recordings/helpers.js';
import { expectDatesInOneStyle } from './dates.js';
import { openSignedIn } from './signed-in.js';

const server = useTestServer();
/** Markup and script in a person's property keys and values: all must show as text. */
const HOSTILE_PROPERTIES = {
  note: '<script>window.__xss=1</script><b>bold?</b>',
  '<i>key</i>': '<img src=x onerror="window.__xss=2">',
};

let browser: Browser;
let watched: WatchedPage;
let page: Page;
let env: number;
let sessionId: string;

const api = () => `/api/environments/${server.bootstrap.team.id}`;
const personPage = (distinctId: string) => `${server.url}/project/${env}/person/${encodeURIComponent(distinctId)}`;

async function personOf(distinctId: string): Promise<{ uuid: string; distinct_ids: string[] } | undefined> {
  const res = await server.request(`${api()}/persons/?distinct_id=${encodeURIComponent(distinctId)}`);
  expect(res.status).toBe(200);
  return res.body.results[0];
}

beforeAll(async () => {
  env = server.bootstrap.team.id;
  // One person from posthog-node, the rest through /batch as an SDK sends them.
  const posthog = new PostHog(server.token, { host: server.url, flushAt: 1, flushInterval: 0 });
  posthog.identify({ distinctId: 'node-dora', properties: { email: 'dora@example.com', name: 'Dora Node' } });
  posthog.capture({ distinctId: 'node-dora', event: 'signed up' });
  await posthog.shutdown();
  await server.ingest([
    {
      event: '$identify',
      distinct_id: 'alice-1',
      properties: { $set: { email: 'alice@example.com', name: 'Alice', plan: 'pro', ...HOSTILE_PROPERTIES } },
    },
    { event: 'viewed pricing', distinct_id: 'alice-1', properties: { $current_url: 'https://shop.example/pricing' } },
    { event: 'bought', distinct_id: 'alice-1', properties: { amount: 42 } },
    // Bob: three distinct ids (two anonymous visits identified as him), for the split.
    { event: '$identify', distinct_id: 'bob', properties: { $anon_distinct_id: 'bob-anon-a', $set: { email: 'bob@example.com' } } },
    { event: '$identify', distinct_id: 'bob', properties: { $anon_distinct_id: 'bob-anon-b' } },
    { event: '$identify', distinct_id: 'carol', properties: { $set: { email: 'carol@example.com' } } },
    { event: 'clicked', distinct_id: 'carol' },
    // A group, named by $groupidentify and used by an event.
    {
      event: '$groupidentify',
      distinct_id: 'alice-1',
      properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme Inc', industry: '<b>rockets</b>' } },
    },
    { event: 'used product', distinct_id: 'alice-1', properties: { $groups: { company: 'acme' } } },
  ]);
  // A recording of Alice's, and a cohort she is in.
  sessionId = newSessionId();
  const t = Date.now() - 60_000;
  const snapshots = [meta(t, 'https://shop.example/'), fullSnapshot(t + 1), click(t + 20_000)];
  const recorded = await postSnapshots(
    server,
    JSON.stringify([snapshotEvent(server.token, sessionId, snapshots, { distinctId: 'alice-1' })]),
    'application/json',
  );
  expect(recorded.status).toBe(200);
  await server.settle();
  const cohort = await server.request(`/api/projects/${server.bootstrap.project.id}/cohorts/`, {
    method: 'POST',
    body: {
      name: 'Pro customers',
      filters: {
        properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', operator: 'exact', value: 'pro' }] }] },
      },
    },
  });
  expect(cohort.status, cohort.text).toBe(201);

  ({ browser, watched, page } = await openSignedIn(server));
});

afterAll(async () => {
  await browser?.close();
});

/** Waits for a modal's opening animation to end, so a screenshot shows it still. */
const settled = () => page.waitForFunction(() => (globalThis as any).document.getAnimations().length === 0);

describe('People and groups in Chromium', () => {
  it('lists persons and finds one by search, kept in the address', async () => {
    await page.goto(`${server.url}/project/${env}/activity`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'People' }).click();
    await page.waitForURL(`${server.url}/project/${env}/persons`);
    const rows = page.getByTestId('person-row');
    await rows.filter({ hasText: 'dora@example.com' }).waitFor();
    expect(await rows.count()).toBe(4);
    expect(await page.getByTestId('persons-table').textContent()).toContain('bob');
    await expectDatesInOneStyle(page.getByTestId('persons-table'));
    await screenshot(page, 'people-list');

    await page.getByRole('textbox', { name: 'Search persons' }).fill('dora@');
    await page.waitForURL(/search=dora%40/);
    await expect.poll(async () => (await rows.allTextContents()).length).toBe(1);
    expect(await rows.first().textContent()).toContain('node-dora');
    await screenshot(page, 'people-search');

    await page.getByRole('textbox', { name: 'Search persons' }).fill('nobody-like-this');
    await page.getByTestId('persons-empty').waitFor();
    expect(await page.getByTestId('persons-empty').textContent()).toContain('No person matches');
    expectNoPageErrors(watched);
  });

  it("shows a person's properties as text, events, recordings, cohorts and distinct ids", async () => {
    await page.goto(`${server.url}/project/${env}/persons?search=alice`);
    // Named as PostHog names a person: its email first.
    await page.getByRole('link', { name: 'alice@example.com' }).click();
    await page.waitForURL(personPage('alice-1'));
    expect(await page.getByTestId('person-name').textContent()).toBe('alice@example.com');
    // The person page is part of People in the navigation.
    const people = page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'People' });
    expect(await people.getAttribute('data-active')).toBe('true');
    const properties = page.getByRole('table', { name: 'Person properties' });
    await properties.waitFor();
    const text = await properties.textContent();
    for (const [key, value] of Object.entries(HOSTILE_PROPERTIES)) {
      expect(text).toContain(key);
      expect(text).toContain(value);
    }
    expect(text).toContain('alice@example.com');
    // Nothing of the markup became an element or ran.
    expect(await page.locator('main img[src="x"], main b:text("bold?"), main i:text("key"), main script').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: unknown }).__xss)).toBeUndefined();
    await screenshot(page, 'person-properties');

    await page.getByRole('tab', { name: 'Events' }).click();
    await page.waitForURL(/tab=events/);
    const eventRows = page.getByTestId('event-row');
    await eventRows.filter({ hasText: 'bought' }).waitFor();
    const names = await eventRows.allTextContents();
    expect(names.some((row) => row.includes('viewed pricing'))).toBe(true);
    // Only this person's events.
    expect(names.some((row) => row.includes('clicked') || row.includes('signed up'))).toBe(false);
    await eventRows.filter({ hasText: 'bought' }).click();
    await page.getByTestId('event-detail').waitFor();
    expect(await page.getByTestId('event-properties').textContent()).toContain('amount');
    await settled();
    await screenshot(page, 'person-events');
    await page.keyboard.press('Escape');
    await page.getByTestId('event-detail').waitFor({ state: 'detached' });

    await page.getByRole('tab', { name: 'Recordings' }).click();
    const recording = page.getByTestId('person-recordings').getByRole('link');
    await recording.waitFor();
    expect(await recording.getAttribute('href')).toBe(`/project/${env}/replay/${sessionId}`);
    expect(await page.getByTestId('person-recordings').textContent()).toContain('https://shop.example/');

    await page.getByRole('tab', { name: 'Cohorts' }).click();
    await page.getByTestId('person-cohorts').getByRole('link', { name: 'Pro customers' }).waitFor();
    // Its person count, once calculated in the background ("Calculating…" meanwhile): Alice alone.
    await expect.poll(() => page.getByTestId('person-cohorts').getByTestId('cohort-count').textContent()).toBe('1');
    await screenshot(page, 'person-cohorts');

    await page.getByRole('tab', { name: /Distinct IDs/ }).click();
    expect(await page.getByTestId('distinct-ids').textContent()).toBe('alice-1');

    // A shared address opens the same tab; PostHog's older /persons/<uuid> lands on the person too.
    const alice = (await personOf('alice-1'))!;
    await page.goto(`${server.url}/project/${env}/persons/${alice.uuid}`);
    await page.waitForURL(personPage('alice-1'));
    await page.getByRole('table', { name: 'Person properties' }).waitFor();
    await page.goto(personPage('no-such-person'));
    await page.getByRole('heading', { name: 'Person not found' }).waitFor();
    expectNoPageErrors(watched);
  });

  it('deletes a person only once confirmed, with its events when asked', async () => {
    await page.goto(personPage('carol'));
    await page.getByRole('button', { name: 'Delete person' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this person?' });
    await dialog.waitFor();
    // Cancelled: nothing happens.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await personOf('carol')).toBeDefined();

    await page.getByRole('button', { name: 'Delete person' }).click();
    await dialog.waitFor();
    await dialog.getByRole('checkbox', { name: /delete their events/ }).check();
    await settled();
    await screenshot(page, 'person-delete-dialog');
    await dialog.getByRole('button', { name: 'Delete person' }).click();
    await page.waitForURL(`${server.url}/project/${env}/persons`);
    await page.getByTestId('person-row').first().waitFor();
    expect(await page.getByTestId('persons-table').textContent()).not.toContain('carol');
    expect(await personOf('carol')).toBeUndefined();
    // Its events were queued for deletion.
    const status = await server.request(`${api()}/persons/deletion_status/`);
    expect(status.body.results.length).toBe(1);
    expectNoPageErrors(watched);
  });

  it('splits a person once confirmed: the other ids become persons of their own', async () => {
    const before = (await personOf('bob'))!;
    expect(before.distinct_ids.sort()).toEqual(['bob', 'bob-anon-a', 'bob-anon-b']);
    await page.goto(personPage('bob-anon-a'));
    await page.getByTestId('person-uuid').filter({ hasText: before.uuid }).waitFor();
    await page.getByRole('button', { name: 'Split IDs' }).click();
    const dialog = page.getByRole('dialog', { name: 'Split this person?' });
    await dialog.waitFor();
    await dialog.getByRole('radio', { name: 'bob', exact: true }).check();
    await settled();
    await screenshot(page, 'person-split-dialog');
    await dialog.getByRole('button', { name: 'Split 2 distinct ids' }).click();
    // On to the kept id's person: Bob, with only that id now.
    await page.waitForURL(personPage('bob'));
    await page.getByRole('status').filter({ hasText: '2 distinct ids became persons of their own' }).waitFor();
    await page.getByRole('tab', { name: 'Distinct IDs (1)' }).click();
    expect(await page.getByTestId('distinct-ids').textContent()).toBe('bob');
    expect((await personOf('bob'))!.uuid).toBe(before.uuid);
    const leftA = (await personOf('bob-anon-a'))!;
    const leftB = (await personOf('bob-anon-b'))!;
    expect(new Set([before.uuid, leftA.uuid, leftB.uuid]).size).toBe(3);
    // Without a second id there is nothing to split.
    expect(await page.getByRole('button', { name: 'Split IDs' }).isDisabled()).toBe(true);
    expectNoPageErrors(watched);
  });

  it('lists a group type’s groups and shows a group’s properties as text', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Groups' }).click();
    await page.waitForURL(`${server.url}/project/${env}/groups/0`);
    const row = page.getByTestId('group-row').filter({ hasText: 'Acme Inc' });
    await row.waitFor();
    expect(await row.textContent()).toContain('acme');
    expect(await page.getByRole('tab', { name: 'company' }).getAttribute('aria-selected')).toBe('true');
    await screenshot(page, 'groups-list');

    await page.getByRole('textbox', { name: 'Search groups' }).fill('nothing-like-this');
    await page.getByTestId('groups-empty').waitFor();
    await page.getByRole('textbox', { name: 'Search groups' }).fill('acme');
    await row.waitFor();
    await row.getByRole('link', { name: 'Acme Inc' }).click();
    await page.waitForURL(`${server.url}/project/${env}/groups/0/acme`);
    const properties = page.getByRole('table', { name: 'Group properties' });
    await properties.waitFor();
    expect(await properties.textContent()).toContain('<b>rockets</b>');
    expect(await page.locator('main b:text("rockets")').count()).toBe(0);
    await screenshot(page, 'group');

    // The People tab goes back to persons.
    await page.goto(`${server.url}/project/${env}/groups/0/no-such-group`);
    await page.getByRole('heading', { name: 'Group not found' }).waitFor();
    // A type the environment does not have says so once, with no list or search beside it.
    await page.goto(`${server.url}/project/${env}/groups/3`);
    await page.getByRole('alert').filter({ hasText: 'This environment has no group type 3.' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await page.getByTestId('groups-empty').count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Search groups' }).count()).toBe(0);
    // An index that is no number names no type either, and nothing is asked of the API for it.
    const asked: string[] = [];
    const onRequest = (request: { url(): string }) => asked.push(request.url());
    page.on('request', onRequest);
    await page.goto(`${server.url}/project/${env}/groups/abc`);
    await page.getByRole('alert').filter({ hasText: 'This environment has no group type abc.' }).waitFor();
    page.off('request', onRequest);
    // The type list was asked for (the alert needs it); no list of groups was.
    expect(asked.some((url) => url.includes('/groups_types/'))).toBe(true);
    expect(asked.filter((url) => url.includes('/groups/?'))).toEqual([]);
    await page.goto(`${server.url}/project/${env}/groups/0`);
    await page.getByRole('tab', { name: 'Persons' }).click();
    await page.waitForURL(`${server.url}/project/${env}/persons`);
    expectNoPageErrors(watched, [404]);
  });

  it('pages through the persons list, the page kept in the address', async () => {
    // Five persons so far (Carol deleted, two more from Bob's split); 100 more make two pages.
    await server.ingest(
      Array.from({ length: 100 }, (_, i) => ({ event: 'visited', distinct_id: `visitor-${String(i).padStart(3, '0')}` })),
    );
    await page.goto(`${server.url}/project/${env}/persons`);
    const pager = page.getByTestId('pager');
    await pager.filter({ hasText: '1–100 of 105' }).waitFor();
    expect(await page.getByTestId('person-row').count()).toBe(100);
    await pager.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/offset=100/);
    await pager.filter({ hasText: '101–105 of 105' }).waitFor();
    expect(await page.getByTestId('person-row').count()).toBe(5);
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await screenshot(page, 'people-page-2');
    await pager.getByRole('button', { name: 'Previous' }).click();
    await pager.filter({ hasText: '1–100 of 105' }).waitFor();
    expectNoPageErrors(watched);
  });

  it("says why an action failed, in its dialog: the API's detail", async () => {
    await page.goto(personPage('node-dora'));
    await page.getByRole('button', { name: 'Delete person' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this person?' });
    await dialog.waitFor();
    // Someone else deletes the person meanwhile.
    const dora = (await personOf('node-dora'))!;
    expect((await server.request(`${api()}/persons/${dora.uuid}/`, { method: 'DELETE' })).status).toBe(202);
    await dialog.getByRole('button', { name: 'Delete person' }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    const detail = (await server.request(`${api()}/persons/${dora.uuid}/`)).body.detail as string;
    expect(detail).toBeTruthy();
    expect(await alert.textContent()).toBe(detail);
    expect(page.url()).toBe(personPage('node-dora'));
    expectNoPageErrors(watched, [404]);
  });
});
