/**
 * Feature flags and cohorts in Chromium against a real Hoglet, signed in: a flag created and
 * rolled out in the UI is what posthog-js (loaded from Hoglet's /static/array.js on another
 * origin, with the project API key) receives; a multivariate split that does not sum to 100 shows
 * the API's error; the toggle disables; the history lists the changes; "what does this user get"
 * answers as /flags does; a cohort by a property rule (refused without a name) and a static one
 * from a CSV file, with their members; a cohort's behavioral filters kept through an edit. No console errors; a screenshot of each page in .tmp/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot } from '../helpers/browser.js';
import { sendHtml, snippetPage, startCustomerSite, type CustomerSite } from '../helpers/customer-site.js';
import { useTestServer } from '../helpers/server.js';
import { expectDatesInOneStyle } from './dates.js';
import { useSignedIn } from './signed-in.js';
import { storeGroup } from '../flags/flag-helpers.js';
import { ensureGroupTypeIndex } from '../../src/groups/store.js';
import { PERFORMED_PAGEVIEW } from '../helpers/cohort-filters.js';

const server = useTestServer();
const ui = useSignedIn(server);

let site: CustomerSite;

/** A customer's page: posthog-js from Hoglet as the snippet loads it, as `distinctId`, flags kept in memory only. */
function sitePage(hoglet: string, token: string, distinctId: string): string {
  const config = { persistence: 'memory', bootstrap: { distinctID: distinctId }, autocapture: false, capture_pageview: false };
  return snippetPage({ hoglet, token, config, title: 'Shop', body: 'Shop' });
}

/** What posthog-js on a fresh customer page, as `distinctId`, says of `key` once its flags loaded. */
async function whatPosthogJsGets(distinctId: string, key: string) {
  const shop = await ui.browser.newPage();
  try {
    await shop.goto(`${site.url}/?as=${encodeURIComponent(distinctId)}`);
    return await shop.evaluate(
      (flag) =>
        new Promise<{ enabled: boolean | undefined; value: unknown; payload: unknown }>((resolve) => {
          const posthog = (globalThis as any).posthog;
          const read = () =>
            resolve({
              enabled: posthog.isFeatureEnabled(flag),
              value: posthog.getFeatureFlag(flag),
              payload: posthog.getFeatureFlagPayload(flag),
            });
          // array.js replaces the stub when it has loaded; onFeatureFlags fires once /flags answered.
          const wait = () =>
            typeof posthog.onFeatureFlags === 'function' && posthog.__loaded ? posthog.onFeatureFlags(read) : setTimeout(wait, 20);
          wait();
        }),
      key,
    );
  } finally {
    await shop.close();
  }
}

beforeAll(async () => {
  site = await startCustomerSite((request, response) => {
    const as = new URL(request.url ?? '/', 'http://site').searchParams.get('as') ?? 'anonymous';
    sendHtml(response, sitePage(server.url, server.token, as));
  });
  // Persons with properties, as posthog-node or the browser would have sent them.
  await server.ingest([
    { event: '$identify', distinct_id: 'ana', properties: { $set: { email: 'ana@example.com', plan: 'pro' } } },
    { event: '$identify', distinct_id: 'bo', properties: { $set: { email: 'bo@elsewhere.org', plan: 'free' } } },
    { event: '$identify', distinct_id: 'cy', properties: { $set: { email: 'cy@example.com', plan: 'pro' } } },
  ]);
  await server.settle();
});

afterAll(async () => {
  await site?.close();
});

const flagsApi = () => `/api/projects/${server.bootstrap.project.id}/feature_flags/`;
const flagByKey = async (key: string) =>
  (await server.request(`${flagsApi()}?search=${key}`)).body.results.find((f: { key: string }) => f.key === key);

describe('feature flags in the web app', () => {
  it('a flag created and rolled out in the UI is what posthog-js receives', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/feature_flags`);
    await ui.page.getByTestId('flags-empty').waitFor();
    await screenshot(ui.page, 'flags-empty');

    await ui.page.getByRole('link', { name: 'New feature flag' }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/feature_flags/new`);
    await ui.page.getByLabel('Key').fill('new-checkout');
    await ui.page.getByLabel('Description').fill('The <b>new</b> checkout');
    // Released to the example.com addresses, at 0% for now.
    await ui.page.getByRole('button', { name: 'Add property filter' }).click();
    await ui.page.getByLabel('Property', { exact: true }).fill('email');
    await ui.page.getByLabel('Operator').selectOption('icontains');
    await ui.page.getByLabel('Value').fill('@example.com');
    await ui.page.getByLabel('Payload when true (JSON)').fill('{"discount": 10}');
    await screenshot(ui.page, 'flag-new');
    await ui.page.getByRole('button', { name: 'Create flag' }).click();
    await ui.page.waitForURL(new RegExp(`/project/${ui.env}/feature_flags/\\d+$`));
    await ui.page.getByRole('heading', { name: 'new-checkout' }).waitFor();

    const created = await flagByKey('new-checkout');
    expect(created.filters.groups).toEqual([
      {
        properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@example.com' }],
        rollout_percentage: 0,
        variant: null,
      },
    ]);
    expect(created.filters.payloads).toEqual({ true: '{"discount": 10}' });
    expect((await whatPosthogJsGets('ana', 'new-checkout')).enabled).toBe(false);

    // Rolled out to all of them.
    await ui.page.getByLabel('Roll out to (% of users)').fill('100');
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.getByTestId('saved').waitFor();
    await expect.poll(async () => (await flagByKey('new-checkout')).filters.groups[0].rollout_percentage).toBe(100);
    expect(await whatPosthogJsGets('ana', 'new-checkout')).toEqual({ enabled: true, value: true, payload: { discount: 10 } });
    expect((await whatPosthogJsGets('bo', 'new-checkout')).enabled).toBe(false);
    await screenshot(ui.page, 'flag-edit');
    expectNoPageErrors(ui.watched);
  });

  it('"what does this user get" answers as /flags does', async () => {
    await ui.page.getByRole('tab', { name: 'What does this user get' }).click();
    await ui.page.waitForURL(/tab=evaluate/);
    await ui.page.getByLabel('Distinct id').fill('cy');
    await ui.page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => ui.page.getByTestId('evaluation-value').textContent()).toBe('true');
    expect(await ui.page.getByTestId('evaluation-reason').textContent()).toMatch(/condition/i);
    await screenshot(ui.page, 'flag-evaluate');
    await ui.page.getByLabel('Distinct id').fill('bo');
    await ui.page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => ui.page.getByTestId('evaluation-value').textContent()).toBe('false');
    // Checking no one says so, and leaves no other id's answer on show.
    await ui.page.getByLabel('Distinct id').fill('');
    await ui.page.getByRole('button', { name: 'Check' }).click();
    await ui.page.getByText('Enter a distinct id to check').waitFor();
    expect(await ui.page.getByTestId('evaluation').count()).toBe(0);
    expectNoPageErrors(ui.watched);
  });

  it('the toggle disables the flag, and the history lists the changes', async () => {
    const toggle = ui.page.getByRole('switch', { name: 'Enabled' });
    expect(await toggle.isChecked()).toBe(true);
    // The switch follows the saved flag: it turns once the API has answered.
    await toggle.click();
    await ui.page.getByRole('switch', { name: 'Disabled' }).waitFor();
    await expect.poll(async () => (await flagByKey('new-checkout')).active).toBe(false);
    // (posthog-js skips /flags while the project has no active flag: checked in the next test.)

    await ui.page.getByRole('tab', { name: 'History' }).click();
    await ui.page.waitForURL(/tab=history/);
    const entries = ui.page.getByTestId('history-entry');
    await expect.poll(() => entries.count()).toBe(3);
    expect(await entries.nth(0).textContent()).toContain('Changed active from true to false');
    expect(await entries.nth(1).textContent()).toContain('boolean: 0% of 1 filter → boolean: 100% of 1 filter');
    expect(await entries.nth(1).textContent()).toContain('"rollout_percentage":100');
    expect(await entries.nth(2).textContent()).toContain('Created the flag');
    expect(await entries.nth(0).textContent()).toContain(server.bootstrap.user.email);
    await expectDatesInOneStyle(ui.page.getByTestId('flag-history'));
    await screenshot(ui.page, 'flag-history');

    // The list: the filters find it as disabled and boolean, not as enabled or multivariate.
    await ui.page.goto(`${server.url}/project/${ui.env}/feature_flags?active=false`);
    await ui.page.getByTestId('flag-row').filter({ hasText: 'new-checkout' }).waitFor();
    expect(await ui.page.getByTestId('flag-row').filter({ hasText: 'new-checkout' }).textContent()).toContain('The <b>new</b> checkout');
    expect(await ui.page.locator('[data-testid="flags-table"] b').count()).toBe(0);
    await ui.page.getByLabel('Status').selectOption('true');
    await ui.page.getByTestId('flags-empty').waitFor();
    expect(ui.page.url()).toContain('active=true');
    expectNoPageErrors(ui.watched);
  });

  it('a multivariate split that does not sum to 100 shows the API error; fixed, users get their variant', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/feature_flags/new`);
    await ui.page.getByLabel('Key').fill('checkout-colour');
    await ui.page.getByLabel('Roll out to (% of users)').fill('100');
    await ui.page.getByRole('switch', { name: /Multivariate/ }).check();
    const splits = ui.page.getByLabel('Variant split');
    await splits.nth(0).fill('50');
    await splits.nth(1).fill('30');
    await ui.page.getByLabel('Variant payload').nth(1).fill('{"colour": "green"}');
    await ui.page.getByRole('button', { name: 'Create flag' }).click();
    const error = ui.page.getByTestId('variants-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Invalid variant definitions: Variant rollout percentages must sum to 100.');
    expect(ui.page.url()).toContain('/feature_flags/new');
    expect(await flagByKey('checkout-colour')).toBeUndefined();
    await screenshot(ui.page, 'flag-split-error');

    await splits.nth(0).fill('0');
    await splits.nth(1).fill('100');
    await ui.page.getByRole('button', { name: 'Create flag' }).click();
    await ui.page.getByRole('heading', { name: 'checkout-colour' }).waitFor();
    expect(await whatPosthogJsGets('bo', 'checkout-colour')).toEqual({ enabled: true, value: 'test', payload: { colour: 'green' } });
    // The flag disabled by the toggle above: posthog-js no longer gets it.
    expect((await whatPosthogJsGets('ana', 'new-checkout')).enabled).not.toBe(true);
    await ui.page.getByRole('tab', { name: 'What does this user get' }).click();
    await ui.page.getByLabel('Distinct id').fill('bo');
    await ui.page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => ui.page.getByTestId('evaluation-value').textContent()).toBe('test');

    await ui.page.goto(`${server.url}/project/${ui.env}/feature_flags?type=multivariant`);
    await ui.page.getByTestId('flag-row').first().waitFor();
    expect(await ui.page.getByTestId('flag-row').allTextContents()).toEqual([expect.stringContaining('checkout-colour')]);
    await ui.page.getByLabel('Search').fill('new checkout');
    await ui.page.getByLabel('Type').selectOption('');
    await ui.page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => ui.page.getByTestId('flag-row').allTextContents()).toEqual([expect.stringContaining('new-checkout')]);
    await screenshot(ui.page, 'flags-list');
    expectNoPageErrors(ui.watched, [400]);
  });

  it('deleting a flag asks first, then the list no longer shows it', async () => {
    const flag = await flagByKey('checkout-colour');
    await ui.page.goto(`${server.url}/project/${ui.env}/feature_flags/${flag.id}`);
    await ui.page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Delete this flag?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await server.request(`${flagsApi()}${flag.id}/`)).body.deleted).toBe(false);
    await ui.page.getByRole('button', { name: 'Delete', exact: true }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Delete flag' }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/feature_flags`);
    await ui.page.getByTestId('flag-row').first().waitFor();
    expect((await ui.page.getByTestId('flag-row').allTextContents()).some((t) => t.includes('checkout-colour'))).toBe(false);
    expect((await server.request(`${flagsApi()}${flag.id}/`)).body.deleted).toBe(true);
    expectNoPageErrors(ui.watched);
  });
});

describe('group aggregation', () => {
  it('a flag matched by a group type filters on the group’s properties and is judged per group', async () => {
    await storeGroup(server, 'organization', 'acme', { tier: 'enterprise' });
    await storeGroup(server, 'organization', 'corner-shop', { tier: 'free' });
    // A property of the type's, known from an event.
    await server.ingest([
      {
        event: '$groupidentify',
        distinct_id: 'bo',
        properties: { $group_type: 'organization', $group_key: 'acme', $group_set: { region: 'eu' } },
      },
    ]);
    await ui.page.goto(`${server.url}/project/${ui.env}/feature_flags/new`);
    await ui.page.getByLabel('Key').fill('org-beta');
    await ui.page.getByLabel('Match by').selectOption({ label: 'organization(s)' });
    await ui.page.getByRole('button', { name: 'Add property filter' }).click();
    // Group flags take the group's properties only: no cohort choice.
    expect(await ui.page.getByLabel('Filter type').count()).toBe(0);
    // The type's property names are offered, not persons', once the field is entered: nothing typed
    // yet, every name it has, and no person's (the persons here have a plan).
    await ui.page.getByLabel('Property', { exact: true }).focus();
    const offered = () =>
      ui.page
        .getByTestId('property-names')
        .locator('option')
        .evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    await expect.poll(offered).toContain('region');
    expect(await offered()).not.toContain('plan');
    await ui.page.getByLabel('Property', { exact: true }).fill('tier');
    await ui.page.getByLabel('Value').fill('enterprise');
    await ui.page.getByLabel('Roll out to (% of organization)').fill('100');
    await ui.page.getByRole('button', { name: 'Create flag' }).click();
    await ui.page.getByRole('heading', { name: 'org-beta' }).waitFor();
    const flag = await flagByKey('org-beta');
    expect(flag.filters.aggregation_group_type_index).toBe(0);
    expect(flag.filters.groups[0].properties).toEqual([
      { key: 'tier', operator: 'exact', value: 'enterprise', type: 'group', group_type_index: 0 },
    ]);

    await ui.page.getByRole('tab', { name: 'What does this user get' }).click();
    await ui.page.getByLabel('Distinct id').fill('bo');
    await ui.page.getByLabel('Group key (organization)').fill('acme');
    await ui.page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => ui.page.getByTestId('evaluation-value').textContent()).toBe('true');
    await ui.page.getByLabel('Group key (organization)').fill('corner-shop');
    await ui.page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => ui.page.getByTestId('evaluation-value').textContent()).toBe('false');
    await screenshot(ui.page, 'flag-group-evaluate');
    expectNoPageErrors(ui.watched);
  });

  it("another environment's flag editor offers the project's group types", async () => {
    const created = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, {
      method: 'POST',
      body: { name: 'Retail' },
    });
    expect(created.status, created.text).toBe(201);
    await ensureGroupTypeIndex(server.running.ctx.database.db, created.body.id, 'store');
    await ui.page.goto(`${server.url}/project/${created.body.id}/feature_flags/new`);
    const matchBy = ui.page.getByLabel('Match by');
    await matchBy.locator('option', { hasText: 'store(s)' }).waitFor({ state: 'attached' });
    // Group types are the project's (PostHog's GroupTypeMapping): the first environment's
    // organizations are this one's too, and its store type is the first environment's.
    expect(await matchBy.locator('option').allTextContents()).toContain('organization(s)');
    await ui.page.goto(`${server.url}/project/${ui.env}/feature_flags/new`);
    await ui.page.getByLabel('Match by').locator('option', { hasText: 'store(s)' }).waitFor({ state: 'attached' });
    expectNoPageErrors(ui.watched);
  });
});

describe('cohorts in the web app', () => {
  it('a cohort by a property rule lists its members and targets a flag', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/cohorts`);
    await ui.page.getByTestId('cohorts-empty').waitFor();
    await ui.page.getByRole('link', { name: 'New cohort' }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/cohorts/new`);
    // A cohort needs a name: refused under the field, nothing sent.
    await ui.page.getByRole('button', { name: 'Create cohort' }).click();
    await ui.page.getByText('Cohort name cannot be empty').waitFor();
    expect(await ui.page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    expect(ui.page.url()).toBe(`${server.url}/project/${ui.env}/cohorts/new`);
    expect((await server.request(`/api/projects/${server.bootstrap.project.id}/cohorts/`)).body.count).toBe(0);
    await ui.page.getByLabel('Name').fill('Pro customers');
    // A rule naming no property is refused on its field, not saved as a cohort of no one.
    await ui.page.getByRole('button', { name: 'Create cohort' }).click();
    await ui.page.getByText('Name a property, or remove this filter').waitFor();
    expect(await ui.page.getByText('Cohort name cannot be empty').count()).toBe(0);
    expect(ui.page.url()).toBe(`${server.url}/project/${ui.env}/cohorts/new`);
    expect((await server.request(`/api/projects/${server.bootstrap.project.id}/cohorts/`)).body.count).toBe(0);
    // The environment's person properties are offered as one types.
    await ui.page.getByLabel('Property', { exact: true }).fill('pl');
    await expect
      .poll(() =>
        ui.page
          .getByTestId('property-names')
          .locator('option')
          .evaluateAll((os) => os.map((o) => o.getAttribute('value'))),
      )
      .toContain('plan');
    await ui.page.getByLabel('Property', { exact: true }).fill('plan');
    await ui.page.getByLabel('Value').fill('pro');
    await screenshot(ui.page, 'cohort-new');
    await ui.page.getByRole('button', { name: 'Create cohort' }).click();
    await ui.page.waitForURL(new RegExp(`/project/${ui.env}/cohorts/\\d+$`));
    await expect.poll(() => ui.page.getByTestId('member-count').textContent()).toBe('2 persons');
    expect((await ui.page.getByTestId('member-row').allTextContents()).join(' ')).toMatch(/ana.*cy|cy.*ana/);
    await screenshot(ui.page, 'cohort-dynamic');
    const cohortId = Number(ui.page.url().split('/').pop());

    // The list shows its person count once it is calculated in the background ("Calculating…" meanwhile).
    await ui.page.goto(`${server.url}/project/${ui.env}/cohorts`);
    const row = ui.page.getByTestId('cohort-row').filter({ hasText: 'Pro customers' });
    await expect.poll(() => row.getByTestId('cohort-count').textContent()).toBe('2');
    expect(await row.getByTestId('cohort-calculating').count()).toBe(0);

    // A flag released to the cohort.
    await ui.page.goto(`${server.url}/project/${ui.env}/feature_flags/new`);
    await ui.page.getByLabel('Key').fill('pro-beta');
    await ui.page.getByLabel('Roll out to (% of users)').fill('100');
    await ui.page.getByRole('button', { name: 'Add property filter' }).click();
    await ui.page.getByLabel('Filter type').selectOption('cohort');
    await ui.page.getByLabel('Cohort', { exact: true }).selectOption(String(cohortId));
    await ui.page.getByRole('button', { name: 'Create flag' }).click();
    await ui.page.getByRole('heading', { name: 'pro-beta' }).waitFor();
    expect((await whatPosthogJsGets('cy', 'pro-beta')).enabled).toBe(true);
    expect((await whatPosthogJsGets('bo', 'pro-beta')).enabled).toBe(false);
    expectNoPageErrors(ui.watched);
  });

  it('a static cohort from a CSV upload, a refused file shown on the field', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/cohorts/new`);
    await ui.page.getByLabel('Name').fill('Imported');
    await ui.page.getByText('Static: a list (CSV)').click();
    await ui.page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('name,plan\nana,pro\n') });
    await ui.page.getByRole('button', { name: 'Create cohort' }).click();
    const error = ui.page.getByTestId('csv-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('Multi-column CSV must contain at least one column');
    expectNoPageErrors(ui.watched, [400]);

    await ui.page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'users.csv', mimeType: 'text/csv', buffer: Buffer.from('distinct_id\nana\nbo\nnobody\n') });
    await ui.page.getByRole('button', { name: 'Create cohort' }).click();
    await ui.page.waitForURL(new RegExp(`/project/${ui.env}/cohorts/\\d+$`));
    await expect.poll(() => ui.page.getByTestId('member-count').textContent()).toBe('2 persons');
    expect((await ui.page.getByTestId('member-row').allTextContents()).join(' ')).toMatch(/ana.*bo|bo.*ana/);
    await screenshot(ui.page, 'cohort-static');

    await ui.page.goto(`${server.url}/project/${ui.env}/cohorts`);
    await expect.poll(() => ui.page.getByTestId('cohort-row').count()).toBe(2);
    expect(await ui.page.getByTestId('cohort-row').filter({ hasText: 'Imported' }).textContent()).toContain('Static');
    await screenshot(ui.page, 'cohorts-list');

    // Deleting asks first, then the list no longer shows it.
    await ui.page.getByTestId('cohort-row').filter({ hasText: 'Imported' }).getByRole('link').first().click();
    await ui.page.waitForURL(new RegExp(`/project/${ui.env}/cohorts/\\d+$`));
    const importedId = Number(ui.page.url().split('/').pop());
    await ui.page.getByRole('button', { name: 'Delete', exact: true }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Delete cohort' }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/cohorts`);
    await expect.poll(() => ui.page.getByTestId('cohort-row').count()).toBe(1);
    expect((await server.request(`/api/projects/${server.bootstrap.team.projectId}/cohorts/${importedId}/`)).body.deleted).toBe(true);
    expectNoPageErrors(ui.watched);
  });
  it('editing a cohort keeps the filters the editor does not show, and refuses an empty group', async () => {
    const projectId = server.bootstrap.team.projectId;
    const visited = PERFORMED_PAGEVIEW;
    const made = await server.request(`/api/projects/${projectId}/cohorts/`, {
      method: 'POST',
      body: {
        name: 'Active pros',
        filters: {
          properties: {
            type: 'OR',
            values: [
              { type: 'AND', values: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro'] }, visited] },
              { type: 'AND', values: [{ key: 'plan', type: 'person', operator: 'exact', value: 'free' }] },
            ],
          },
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    await ui.page.goto(`${server.url}/project/${ui.env}/cohorts/${made.body.id}`);
    const groups = ui.page.getByTestId('rule-group');
    await expect.poll(() => groups.count()).toBe(2);
    // The behavioral filter is shown as text beside the editable row.
    expect(await groups.nth(0).getByTestId('kept-filter').allTextContents()).toEqual(['Performed event $pageview in the last 30 days']);
    expect(await groups.nth(1).getByTestId('kept-filter').count()).toBe(0);
    expect(await groups.nth(0).getByTestId('behavioral-note').textContent()).toContain('match no one');
    await screenshot(ui.page, 'cohort-kept-filters');

    // Editing the row and saving keeps the behavioral filter where it was.
    await groups.nth(0).getByLabel('Value').fill('pro, enterprise');
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.getByTestId('saved').waitFor();
    const edited = await server.request(`/api/projects/${projectId}/cohorts/${made.body.id}/`);
    expect(edited.body.filters.properties.values[0]).toEqual({
      type: 'AND',
      values: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro', 'enterprise'] }, visited],
    });

    // A kept filter can be dropped: saved without it.
    await groups.nth(0).getByLabel('Remove this kept filter').click();
    await expect.poll(() => groups.nth(0).getByTestId('kept-filter').count()).toBe(0);
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await server.request(`/api/projects/${projectId}/cohorts/${made.body.id}/`)).body.filters.properties.values[0])
      .toEqual({ type: 'AND', values: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro', 'enterprise'] }] });
    const saved = await server.request(`/api/projects/${projectId}/cohorts/${made.body.id}/`);

    // The second group's only row removed: refused, nothing sent, the stored filters unchanged.
    await groups.nth(1).getByLabel('Remove this filter').click();
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => ui.page.getByTestId('filters-error').textContent())
      .toBe('Group 2 has no filters: add one, or remove the group.');
    expect((await server.request(`/api/projects/${projectId}/cohorts/${made.body.id}/`)).body.filters).toEqual(saved.body.filters);

    // A kept reference to another cohort names it.
    const referring = await server.request(`/api/projects/${projectId}/cohorts/`, {
      method: 'POST',
      body: {
        name: 'Active pros, by reference',
        filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'id', type: 'cohort', value: made.body.id }] }] } },
      },
    });
    expect(referring.status, referring.text).toBe(201);
    await ui.page.goto(`${server.url}/project/${ui.env}/cohorts/${referring.body.id}`);
    await expect.poll(() => ui.page.getByTestId('kept-filter').allTextContents()).toEqual([`Cohort "Active pros" (#${made.body.id})`]);
    expectNoPageErrors(ui.watched);
  });
});
