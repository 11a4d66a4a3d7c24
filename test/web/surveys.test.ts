/**
 * Surveys in Chromium against a real Hoglet, signed in: a survey with every question type created
 * through the form (the API's validation errors shown at their field first), listed, launched,
 * answered by `survey sent` events sent through /batch as posthog-js sends them, and its results
 * shown per question on its page (choice and rating counts, open answers as text); then edited
 * (question ids kept), stopped, archived and deleted. No console errors; screenshots in
 * .tmp/screenshots/.
 */
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { useSignedIn } from './signed-in.js';

const server = useTestServer();
const ui = useSignedIn(server);
/** The API and ClickHouse may take a while on a shared machine: polls wait this long. */
const SLOW = { timeout: 15_000 };

interface StoredQuestion {
  id: string;
  type: string;
  question: string;
  choices?: string[];
  hasOpenChoice?: boolean;
  display?: string;
  scale?: number;
  link?: string | null;
  optional?: boolean;
}
interface StoredSurvey {
  id: string;
  name: string;
  type: string;
  questions: StoredQuestion[];
  conditions: Record<string, unknown> | null;
  appearance: Record<string, unknown> | null;
  start_date: string | null;
  end_date: string | null;
  archived: boolean;
  targeting_flag: { filters: { groups: { properties: unknown[] }[] } } | null;
}

const surveysApi = () => `/api/projects/${server.bootstrap.project.id}/surveys/`;
const surveys = async (): Promise<StoredSurvey[]> => (await server.request(surveysApi())).body.results;
const surveyNamed = async (name: string) => (await surveys()).find((s) => s.name === name);

/** The n-th question of the form (0-based), with its type chosen. */
async function question(n: number, type: string): Promise<Locator> {
  if (n > 0) await ui.page.getByRole('button', { name: 'Add question' }).click();
  const card = ui.page.getByTestId('question').nth(n);
  await card.getByLabel('Question type').selectOption(type);
  return card;
}

/** A `survey sent` event as posthog-js captures it for `answers` (question id → response). */
function surveySent(survey: StoredSurvey, distinctId: string, answers: Record<string, unknown>, submission: string) {
  const properties: Record<string, unknown> = {
    $survey_id: survey.id,
    $survey_name: survey.name,
    $survey_submission_id: submission,
    $survey_completed: true,
    $survey_questions: survey.questions.map((q) => ({ id: q.id, question: q.question, response: answers[q.id] ?? null })),
    $set: { [`$survey_responded/${survey.id}`]: true },
    $lib: 'web',
  };
  for (const [id, value] of Object.entries(answers)) properties[`$survey_response_${id}`] = value;
  return { event: 'survey sent', distinct_id: distinctId, timestamp: new Date().toISOString(), properties };
}

describe('surveys in the web app', () => {
  it('a survey with every question type is created through the form, errors shown at their field', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/surveys`);
    await ui.page.getByTestId('surveys-empty').waitFor();
    await ui.page.getByRole('link', { name: 'New survey' }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/surveys/new`);

    await ui.page.getByLabel('Description', { exact: true }).fill('After checkout');
    const open = await question(0, 'open');
    await open.getByLabel('Question', { exact: true }).fill('What could we do better?');
    const rating = await question(1, 'rating');
    await rating.getByLabel('Question', { exact: true }).fill('How likely are you to recommend us?');
    await rating.getByLabel('Scale').selectOption('5');
    const single = await question(2, 'single_choice');
    await single.getByLabel('Question', { exact: true }).fill('How was checkout?');
    await single.getByLabel('Choice 1', { exact: true }).fill('Smooth');
    await single.getByLabel('Choice 2', { exact: true }).fill('Slow');
    await single.getByRole('button', { name: 'Add open-ended choice' }).click();
    const multiple = await question(3, 'multiple_choice');
    await multiple.getByLabel('Question', { exact: true }).fill('What did you buy?');
    await multiple.getByLabel('Choice 1', { exact: true }).fill('Shoes');
    await multiple.getByLabel('Choice 2', { exact: true }).fill('Socks');
    await multiple.getByRole('button', { name: 'Add choice' }).click();
    await multiple.getByLabel('Choice 3', { exact: true }).fill('Hats');
    await multiple.getByLabel('Optional').check();
    const link = await question(4, 'link');
    await link.getByLabel('Question', { exact: true }).fill('Read our changelog');
    await link.getByLabel('Link', { exact: true }).fill('http://example.com/changelog');
    await ui.page.getByLabel('URL', { exact: true }).fill('/thank-you');
    await ui.page.getByLabel('URL match').selectOption('exact');
    await ui.page.getByLabel('Wait period (days)').fill('14');
    await ui.page.getByRole('button', { name: 'Add property filter' }).click();
    await ui.page.getByLabel('Property', { exact: true }).fill('plan');
    await ui.page.getByLabel('Value').fill('pro');

    // No name: the API's error at the name.
    await ui.page.getByRole('button', { name: 'Save as draft' }).click();
    const name = ui.page.getByLabel('Name', { exact: true });
    await expect.poll(() => name.getAttribute('aria-invalid'), SLOW).toBe('true');
    expect(await ui.page.getByText('This field may not be blank.').count()).toBe(1);
    await screenshot(ui.page, 'survey-name-error');
    await name.fill('Checkout survey');
    // The API's error goes once its field is edited.
    await expect.poll(() => name.getAttribute('aria-invalid'), SLOW).not.toBe('true');
    expect(await ui.page.getByText('This field may not be blank.').count()).toBe(0);

    // A link that is not https: the API's error among the questions.
    await ui.page.getByRole('button', { name: 'Save as draft' }).click();
    const linkError = ui.page.getByTestId('questions-editor').getByRole('alert');
    await linkError.waitFor();
    expect(await linkError.textContent()).toContain('Link must be a URL with one of these schemes: [https, mailto]');
    expect(ui.page.url()).toContain('/surveys/new');
    expect(await surveyNamed('Checkout survey')).toBeUndefined();
    await screenshot(ui.page, 'survey-link-error');

    await link.getByLabel('Link', { exact: true }).fill('https://example.com/changelog');
    await expect.poll(() => linkError.count(), SLOW).toBe(0);

    // A colour posthog-js could not paint is refused at its field, before anything is sent.
    const background = ui.page.getByLabel('Background colour');
    await background.fill('not a colour');
    await ui.page.getByRole('button', { name: 'Save as draft' }).click();
    await expect.poll(() => background.getAttribute('aria-invalid'), SLOW).toBe('true');
    expect(await ui.page.getByText('Not a CSS colour (such as #1d4aff or white)').count()).toBe(1);
    expect(await surveyNamed('Checkout survey')).toBeUndefined();
    await background.fill('rebeccapurple');
    await expect.poll(() => background.getAttribute('aria-invalid'), SLOW).not.toBe('true');
    await screenshot(ui.page, 'survey-new');
    await ui.page.getByRole('button', { name: 'Save as draft' }).click();
    await ui.page.waitForURL(new RegExp(`/project/${ui.env}/surveys/[0-9a-f-]{36}$`));
    await ui.page.getByRole('heading', { name: 'Checkout survey' }).waitFor();
    expect(await ui.page.getByTestId('survey-status').textContent()).toBe('Draft');
    await expect.poll(() => ui.page.getByTestId('survey-question').count(), SLOW).toBe(5);

    const created = (await surveyNamed('Checkout survey'))!;
    expect(created.type).toBe('popover');
    expect(created.questions.map((q) => q.type)).toEqual(['open', 'rating', 'single_choice', 'multiple_choice', 'link']);
    expect(created.questions[1]).toMatchObject({ display: 'number', scale: 5 });
    expect(created.questions[2]).toMatchObject({ choices: ['Smooth', 'Slow', 'Other'], hasOpenChoice: true });
    expect(created.questions[3]).toMatchObject({ choices: ['Shoes', 'Socks', 'Hats'], optional: true });
    expect(created.questions[4]?.link).toBe('https://example.com/changelog');
    expect(created.conditions).toMatchObject({ url: '/thank-you', urlMatchType: 'exact', seenSurveyWaitPeriodInDays: 14 });
    expect(created.appearance).toMatchObject({ backgroundColor: 'rebeccapurple' });
    expect(created.targeting_flag?.filters.groups[0]?.properties).toEqual([
      { key: 'plan', type: 'person', operator: 'exact', value: 'pro' },
    ]);
    expect(created.start_date).toBeNull();
    expectNoPageErrors(ui.watched, [400]);
  });

  it('the list shows it; launched, its answers arrive per question on its page', async () => {
    await ui.page.getByRole('link', { name: '← Surveys' }).click();
    const row = ui.page.getByTestId('survey-row').filter({ hasText: 'Checkout survey' });
    await row.waitFor();
    expect(await row.getByTestId('survey-status').textContent()).toBe('Draft');
    await expect.poll(() => row.getByTestId('survey-responses').textContent(), SLOW).toBe('0');
    await screenshot(ui.page, 'surveys-list');
    const background = (l: Locator) => l.evaluate((e) => (globalThis as any).getComputedStyle(e).backgroundColor as string);
    // The app's primary button, as the list's "New survey" is.
    const primary = await background(ui.page.getByRole('link', { name: 'New survey' }));

    await row.getByRole('link', { name: 'Checkout survey' }).click();
    expect((await server.request(`/api/environments/${server.bootstrap.team.id}/`)).body.surveys_opt_in).not.toBe(true);
    // Launch is the survey page's primary action (PostHog's type="primary"): the same filled colour.
    const launchButton = ui.page.getByRole('button', { name: 'Launch' });
    expect(await background(launchButton)).toBe(primary);
    expect(primary).not.toMatch(/rgba\(0, 0, 0, 0\)|transparent/);
    await launchButton.click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Launch' }).click();
    await expect.poll(() => ui.page.getByTestId('survey-status').textContent(), SLOW).toBe('Running');
    // Launching turned surveys on for the environment (they were off), as PostHog's app does.
    await expect
      .poll(async () => (await server.request(`/api/environments/${server.bootstrap.team.id}/`)).body.surveys_opt_in, SLOW)
      .toBe(true);
    const survey = (await surveyNamed('Checkout survey'))!;
    expect(survey.start_date).not.toBeNull();
    expect(survey.end_date).toBeNull();

    const [openQ, ratingQ, singleQ, multipleQ] = survey.questions.map((q) => q.id) as [string, string, string, string];
    await server.ingest([
      surveySent(
        survey,
        'ana',
        { [openQ]: 'Faster <b>delivery</b>', [ratingQ]: 5, [singleQ]: 'Smooth', [multipleQ]: ['Shoes', 'Hats'] },
        'sub-ana',
      ),
      surveySent(survey, 'bo', { [openQ]: 'Nothing', [ratingQ]: 4, [singleQ]: 'Slow', [multipleQ]: ['Shoes'] }, 'sub-bo'),
      surveySent(survey, 'cy', { [ratingQ]: 5, [singleQ]: 'Took a while' }, 'sub-cy'),
    ]);

    await ui.page.getByRole('tab', { name: 'Results' }).click();
    await ui.page.reload();
    const cards = ui.page.getByTestId('question-result');
    await expect.poll(() => cards.count(), SLOW).toBe(5);
    await expect.poll(() => ui.page.getByTestId('results-total').textContent(), SLOW).toMatch(/^3 submissions/);

    // Open text: the answers as text, newest first, markup shown as typed.
    const answers = cards.nth(0).getByTestId('answer-value');
    expect((await answers.allTextContents()).sort()).toEqual(['Faster <b>delivery</b>', 'Nothing']);
    expect(await cards.nth(0).locator('b').count()).toBe(0);

    // Rating: the whole scale, and the average of 5, 4, 5.
    expect(await cards.nth(1).getByTestId('rating-average').textContent()).toBe('Average: 4.67 / 5');
    const ratingBars = cards.nth(1).getByTestId('rating-result');
    expect(await ratingBars.count()).toBe(5);
    expect(await ratingBars.nth(4).getByTestId('bar-count').textContent()).toBe('2 (66.7%)');
    expect(await ratingBars.nth(3).getByTestId('bar-count').textContent()).toBe('1 (33.3%)');
    expect(await ratingBars.nth(0).getByTestId('bar-count').textContent()).toBe('0 (0%)');

    // Single choice: each choice, then the typed "other" answer.
    const single = cards.nth(2).getByTestId('choice-result');
    const singleText = await single.allTextContents();
    expect(singleText.find((t) => t.startsWith('Smooth'))).toContain('1 (33.3%)');
    expect(singleText.find((t) => t.startsWith('Slow'))).toContain('1 (33.3%)');
    expect(singleText.find((t) => t.startsWith('Took a while'))).toContain('1 (33.3%)');

    // Multiple choice: counted per choice, out of the two who answered it.
    expect(await cards.nth(3).getByTestId('question-responses').textContent()).toBe('2 responses');
    const multiple = await cards.nth(3).getByTestId('choice-result').allTextContents();
    expect(multiple.find((t) => t.startsWith('Shoes'))).toContain('2 (100%)');
    expect(multiple.find((t) => t.startsWith('Hats'))).toContain('1 (50%)');
    expect(multiple.find((t) => t.startsWith('Socks'))).toContain('0 (0%)');
    // The stats: three sent, from three persons.
    await expect.poll(() => ui.page.getByTestId('stat-sent').textContent(), SLOW).toBe('3');
    await screenshot(ui.page, 'survey-results');

    await ui.page.getByRole('link', { name: '← Surveys' }).click();
    await expect.poll(() => row.getByTestId('survey-responses').textContent(), SLOW).toBe('3');
    expect(await row.getByTestId('survey-status').textContent()).toBe('Running');
    expectNoPageErrors(ui.watched);
  });

  it('editing keeps the question ids; stopped, archived and deleted', async () => {
    const before = (await surveyNamed('Checkout survey'))!;
    await ui.page.getByTestId('survey-row').filter({ hasText: 'Checkout survey' }).getByRole('link').click();
    await ui.page.getByRole('link', { name: 'Edit' }).click();
    await ui.page.waitForURL(/\/edit$/);
    await ui.page.getByLabel('Name', { exact: true }).fill('Checkout survey (v2)');
    await ui.page.getByTestId('question').nth(0).getByLabel('Question', { exact: true }).fill('What would you change?');
    await ui.page.getByRole('button', { name: 'Remove this filter' }).click();
    await ui.page.getByRole('button', { name: 'Save', exact: true }).click();
    await ui.page.getByRole('heading', { name: 'Checkout survey (v2)' }).waitFor();

    const after = (await surveyNamed('Checkout survey (v2)'))!;
    expect(after.id).toBe(before.id);
    expect(after.questions.map((q) => q.id)).toEqual(before.questions.map((q) => q.id));
    expect(after.questions[0]?.question).toBe('What would you change?');
    expect(after.targeting_flag).toBeNull();
    // The answers keep their question: the results still show them.
    await ui.page.getByRole('tab', { name: 'Results' }).click();
    await expect.poll(() => ui.page.getByTestId('question-result').nth(0).getByTestId('answer-value').count(), SLOW).toBe(2);

    await ui.page.getByRole('button', { name: 'Stop' }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => ui.page.getByTestId('survey-status').textContent(), SLOW).toBe('Completed');
    expect((await surveyNamed('Checkout survey (v2)'))!.end_date).not.toBeNull();
    // Resumed, it runs again with no end date; stopped again.
    await ui.page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => ui.page.getByTestId('survey-status').textContent(), SLOW).toBe('Running');
    expect((await surveyNamed('Checkout survey (v2)'))!.end_date).toBeNull();
    await ui.page.getByRole('button', { name: 'Stop' }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => ui.page.getByTestId('survey-status').textContent(), SLOW).toBe('Completed');

    await ui.page.getByRole('button', { name: 'Archive' }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Archive' }).click();
    await ui.page.getByText('Archived', { exact: true }).waitFor();
    await ui.page.getByRole('link', { name: '← Surveys' }).click();
    await ui.page.getByTestId('surveys-empty').waitFor();
    await ui.page.getByText('Archived', { exact: true }).click();
    await ui.page.getByTestId('survey-row').filter({ hasText: 'Checkout survey (v2)' }).waitFor();
    await screenshot(ui.page, 'surveys-archived');

    await ui.page.getByTestId('survey-row').getByRole('link').click();
    await ui.page.getByRole('button', { name: 'Delete' }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Delete survey' }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/surveys`);
    await ui.page.getByTestId('surveys-empty').waitFor();
    expect(await surveys()).toEqual([]);
    expectNoPageErrors(ui.watched);
  });
});
