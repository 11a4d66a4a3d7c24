import { describe, expect, it } from 'vitest';
import { cleanHtml, isHtml } from '../../src/surveys/core/html.js';
import {
  parseLink,
  SurveyRuleError,
  truthy,
  validateAppearance,
  validateQuestions,
  validateSchedule,
  withQuestionIds,
} from '../../src/surveys/core/questions.js';
import {
  checkExternalSurvey,
  checkIterationCount,
  checkLinkedFlagVariant,
  checkSampling,
  checkTargetingFilters,
  flagVariants,
} from '../../src/surveys/core/rules.js';
import { samplingDailyLimits, surveyIterations } from '../../src/surveys/core/schedule.js';
import {
  interactedFilters,
  waitPeriodDays,
  interactionKey,
  internalFlagActive,
  internalFlagFilters,
  surveyFlagKey,
} from '../../src/surveys/core/targeting.js';

function ruleError(run: () => unknown): { detail: string; attr: string | null } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SurveyRuleError);
    const { detail, attr } = error as SurveyRuleError;
    return { detail, attr };
  }
  throw new Error('expected a SurveyRuleError');
}

describe('HTML cleaning', () => {
  it('tells markup from text', () => {
    expect(isHtml('a < b and c > d')).toBe(false);
    expect(isHtml('1<2')).toBe(false);
    expect(isHtml('<b>x</b>')).toBe(true);
    expect(isHtml('x</p>')).toBe(true);
    expect(isHtml('<!-- c -->')).toBe(true);
  });

  it.each([
    ['<b>bold</b> text', '<b>bold</b> text'],
    ['<script>alert(1)</script>after', 'after'],
    ['<style>p{}</style><p>x</p>', '<p>x</p>'],
    ['<iframe src="x">inside</iframe>', 'inside'],
    ['<img src="x" onerror="alert(1)">', '<img src="x">'],
    ['<a href="https://posthog.com" onclick="x">link</a>', '<a href="https://posthog.com" rel="noopener">link</a>'],
    ['<a href="javascript:alert(1)">x</a>', '<a rel="noopener">x</a>'],
    ['<a href=" JaVaScRiPt:alert(1)">x</a>', '<a rel="noopener">x</a>'],
    ['<a href="/relative" rel="opener">x</a>', '<a href="/relative" rel="noopener">x</a>'],
    ['<p style="color:red" class="c">x</p>', '<p style="color:red">x</p>'],
    ['<td colspan=2 onmouseover=y>x</td>', '<td colspan="2">x</td>'],
    ['<b><i>unclosed', '<b><i>unclosed</i></b>'],
    ['</b>stray', 'stray'],
    ['<b>a</i>b</b>', '<b>ab</b>'],
    ['<!-- note -->x', 'x'],
    ['<p title="a&quot;b">x</p>', '<p title="a&quot;b">x</p>'],
    ["<p title='<script>'>x</p>", '<p title="&lt;script&gt;">x</p>'],
    ['Tom & Jerry <br>', 'Tom &amp; Jerry <br>'],
    ['&lt;ok&gt; <br/>', '&lt;ok&gt; <br>'],
    ['<SCRIPT>x</SCRIPT><B>y</B>', '<b>y</b>'],
    ['<svg onload=alert(1)><circle/></svg>z', 'z'],
    ['<img src="data:image/png;base64,AAA">', '<img>'],
  ])('%s', (input, output) => {
    expect(cleanHtml(input)).toBe(output);
  });
});

describe('questions', () => {
  it('keeps null and well-formed questions, cleaning markup only where there is some', () => {
    expect(validateQuestions(null)).toBeNull();
    const questions = validateQuestions([
      { type: 'open', question: 'a < b?', description: '' },
      { type: 'open', question: 'Hi <script>x</script>', description: '<u>d</u><img src=x onerror=y>', extra: 1 },
      { type: 'link', question: 'q', link: 'https://posthog.com/docs' },
      { type: 'link', question: 'q', link: 'mailto:hey@posthog.com' },
      { type: 'single_choice', question: 'q', choices: ['a', 'b'] },
      { type: 'multiple_choice', question: 'q', choices: [] },
    ]);
    expect(questions![0]).toEqual({ type: 'open', question: 'a < b?', description: '' });
    expect(questions![1]).toEqual({ type: 'open', question: 'Hi ', description: '<u>d</u><img src="x">', extra: 1 });
    expect(questions).toHaveLength(6);
  });

  it.each([
    [{ a: 1 }, 'Questions must be a list of objects'],
    ['q', 'Questions must be a list of objects'],
    [[null], 'Questions must be a list of objects'],
    [[[1]], 'Questions must be a list of objects'],
    [[{ type: 'open' }], 'Question text is required'],
    [[{ type: 'open', question: '' }], 'Question text is required'],
    [[{ type: 'open', question: 0 }], 'Question text is required'],
    [[{ question: 'q', descriptionContentType: 'md' }], "Question descriptionContentType must be one of ['text', 'html']"],
    [[{ question: 'q', choices: 'a' }], 'Question choices must be a list of strings'],
    [[{ question: 'q', choices: { a: 1 } }], 'Question choices must be a list of strings'],
    [[{ question: 'q', choices: [1] }], 'Question choices must be a list of strings'],
    [[{ question: 'q', choices: ['a', ''] }], 'Question choices cannot be empty'],
    [[{ question: 'q', choices: [' \t'] }], 'Question choices cannot be empty'],
    [[{ question: 'q', link: 'http://a.b' }], 'Link must be a URL with one of these schemes: [https, mailto]'],
    [[{ question: 'q', link: 'a.b/c' }], 'Link must be a URL with one of these schemes: [https, mailto]'],
    [[{ question: 'q', link: 'data:text/html,x' }], 'Link must be a URL with one of these schemes: [https, mailto]'],
    [[{ question: 'q', link: 7 }], 'Link must be a URL with one of these schemes: [https, mailto]'],
    [[{ question: 'q', link: 'mailto:x' }], 'Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).'],
    [[{ question: 'q', link: 'mailto:a@b.c' }], 'Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).'],
    [[{ question: 'q', link: 'https:relative' }], 'Invalid HTTPS URL. Please enter a valid HTTPS link.'],
  ])('%j → %s', (value, detail) => {
    expect(ruleError(() => validateQuestions(value))).toEqual({ detail, attr: 'questions' });
  });

  it('reads links as Python’s urlparse does', () => {
    expect(parseLink('HTTPS://Example.com/x?y')).toEqual({ scheme: 'https', netloc: 'Example.com' });
    expect(parseLink('mailto:a@b.co')).toEqual({ scheme: 'mailto', netloc: '' });
    expect(parseLink('//host/path')).toEqual({ scheme: '', netloc: 'host' });
  });

  it('gives each question without an id a new one, keeping the ids there are', () => {
    let n = 0;
    const ids = withQuestionIds([{ question: 'a' }, { question: 'b', id: 'kept' }, { question: 'c', id: '' }], () => `new-${++n}`);
    expect(ids!.map((q) => q.id)).toEqual(['new-1', 'kept', 'new-2']);
    expect(withQuestionIds(null, () => 'x')).toBeNull();
  });

  it('reads Python truthiness', () => {
    expect([null, undefined, false, 0, '', [], {}].map(truthy)).toEqual([false, false, false, false, false, false, false]);
    expect([true, 1, 'a', [0], { a: 0 }].map(truthy)).toEqual([true, true, true, true, true]);
  });
});

describe('appearance and schedule', () => {
  it('checks the appearance and cleans its thank-you texts', () => {
    expect(validateAppearance(null, true)).toBeNull();
    expect(validateAppearance({ thankYouMessageHeader: '<b>x</b><script>y</script>', surveyPopupDelaySeconds: 0 }, true)).toEqual({
      thankYouMessageHeader: '<b>x</b>',
      surveyPopupDelaySeconds: 0,
    });
    expect(ruleError(() => validateAppearance('x', true))).toEqual({ detail: 'Appearance must be an object', attr: 'appearance' });
    expect(ruleError(() => validateAppearance({ thankYouMessageDescriptionContentType: 'md' }, true)).detail).toBe(
      "thankYouMessageDescriptionContentType must be one of ['text', 'html']",
    );
    expect(ruleError(() => validateAppearance({ surveyPopupDelaySeconds: -2 }, true)).detail).toBe(
      'Survey popup delay seconds must be a positive integer',
    );
    expect(ruleError(() => validateAppearance({ whiteLabel: 1 }, true)).detail).toBe('whiteLabel must be a boolean');
    expect(ruleError(() => validateAppearance({ whiteLabel: true }, false)).detail).toBe(
      'You need to upgrade to PostHog Enterprise to use white labelling',
    );
    expect(validateAppearance({ whiteLabel: true }, true)).toEqual({ whiteLabel: true });
  });

  it('knows the schedules', () => {
    expect(['once', 'recurring', 'always', null].map((s) => validateSchedule(s))).toEqual(['once', 'recurring', 'always', null]);
    expect(ruleError(() => validateSchedule('daily'))).toEqual({
      detail: 'Schedule must be one of: once, recurring, always',
      attr: 'schedule',
    });
  });
});

describe('cross-field rules', () => {
  const variants = { multivariate: { variants: [{ key: 'a' }, { key: 'b' }] } };

  it('checks the linked flag variant', () => {
    expect(flagVariants(variants)).toEqual(['a', 'b']);
    expect(flagVariants({})).toEqual([]);
    checkLinkedFlagVariant({ linkedFlagVariant: 'a' }, 1, { filters: variants });
    checkLinkedFlagVariant({ linkedFlagVariant: 'any' }, 1, { filters: {} });
    checkLinkedFlagVariant(null, null, undefined);
    checkLinkedFlagVariant({ linkedFlagVariant: '' }, null, undefined);
    expect(ruleError(() => checkLinkedFlagVariant({ linkedFlagVariant: 'c' }, 1, { filters: variants })).detail).toBe(
      "Feature flag variant 'c' does not exist. Available variants: a, b",
    );
    expect(ruleError(() => checkLinkedFlagVariant({ linkedFlagVariant: 'c' }, 1, { filters: {} })).detail).toBe(
      "Feature flag variant 'c' specified but the linked feature flag has no variants",
    );
    expect(ruleError(() => checkLinkedFlagVariant({ linkedFlagVariant: 'c' }, null, undefined))).toEqual({
      detail: 'linkedFlagVariant can only be used when a linked_flag_id is specified',
      attr: null,
    });
  });

  it('refuses targeting that reaches everyone', () => {
    const everyone = 'Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting';
    for (const group of [{ properties: [], rollout_percentage: 100 }, { properties: [] }, { rollout_percentage: null }]) {
      expect(
        ruleError(() => checkTargetingFilters({ groups: [{ properties: [{ key: 'a' }], rollout_percentage: 100 }, group] })).detail,
      ).toBe(everyone);
    }
    checkTargetingFilters(null);
    checkTargetingFilters({});
    checkTargetingFilters({ groups: [{ properties: [], rollout_percentage: 50 }] });
    checkTargetingFilters({ groups: [{ properties: [{ key: 'a' }], rollout_percentage: 100 }] });
  });

  it('checks response sampling against today (UTC)', () => {
    const now = '2025-03-10T15:00:00.000Z';
    checkSampling({ responseSamplingStartDate: '2025-03-10T00:00:00.000Z', responseSamplingInterval: 1, responseSamplingLimit: 10 }, now);
    expect(ruleError(() => checkSampling({ responseSamplingStartDate: '2025-03-09T23:59:59.000Z' }, now))).toEqual({
      detail:
        'Response sampling start date must be today or a future date in UTC. Got 2025-03-09 23:59:59+00:00 when current time is 2025-03-10 00:00:00+00:00',
      attr: 'response_sampling_start_date',
    });
    expect(ruleError(() => checkSampling({ responseSamplingInterval: 0 }, now)).attr).toBe('response_sampling_interval');
    expect(ruleError(() => checkSampling({ responseSamplingInterval: 2, responseSamplingLimit: 5 }, now))).toEqual({
      detail: 'Response sampling start date should be set if response_sampling_start_date is not zero.',
      attr: 'response_sampling_start_date',
    });
    checkSampling({ responseSamplingLimit: 5 }, now);
    checkSampling({ responseSamplingInterval: 2, responseSamplingLimit: 0 }, now);
  });

  it('keeps external surveys free of display conditions', () => {
    checkExternalSurvey({ type: 'popover', linked_flag_id: 1, conditions: { url: 'x' } });
    checkExternalSurvey({
      type: 'external_survey',
      conditions: { url: null, events: { values: [] } },
      appearance: { surveyPopupDelaySeconds: null },
    });
    expect(ruleError(() => checkExternalSurvey({ type: 'external_survey', linked_flag_id: 3, targeting_flag_filters: {} }))).toEqual({
      detail: 'linked_flag_id is not allowed for external surveys',
      attr: 'linked_flag_id',
    });
    expect(
      ruleError(() =>
        checkExternalSurvey({ type: 'external_survey', conditions: { events: { values: [{ name: 'x' }] }, deviceTypes: ['Mobile'] } }),
      ),
    ).toEqual({
      detail: 'The following condition fields are not allowed for external surveys: deviceTypes, events',
      attr: 'conditions',
    });
    expect(ruleError(() => checkExternalSurvey({ type: 'external_survey', appearance: { surveyPopupDelaySeconds: 3 } }))).toEqual({
      detail: 'surveyPopupDelaySeconds is not allowed for external surveys',
      attr: 'appearance',
    });
  });

  it('keeps the recurrence at or above the current iteration', () => {
    checkIterationCount(null, 1);
    checkIterationCount(3, undefined);
    checkIterationCount(3, 0);
    checkIterationCount(3, 3);
    expect(ruleError(() => checkIterationCount(3, 2)).detail).toBe('Cannot change survey recurrence to 2, should be at least 3');
  });
});

describe('iterations and sampling schedules', () => {
  const base = { currentIteration: null, currentIterationStartDate: null, iterationStartDates: null };

  it('clears the iterations of a survey without recurrence', () => {
    expect(
      surveyIterations({
        ...base,
        iterationCount: null,
        iterationFrequencyDays: 7,
        startDate: '2025-01-01T00:00:00.000Z',
        currentIteration: 2,
      }),
    ).toMatchObject({
      iterationStartDates: [],
      currentIteration: null,
      currentIterationStartDate: null,
    });
    expect(surveyIterations({ ...base, iterationCount: 3, iterationFrequencyDays: 0, startDate: null }).iterationStartDates).toEqual([]);
  });

  it('has no start dates before launch, then one per period from the start', () => {
    expect(
      surveyIterations({ ...base, iterationCount: 3, iterationFrequencyDays: 7, startDate: null, iterationStartDates: ['x'] })
        .iterationStartDates,
    ).toBeNull();
    const launched = surveyIterations({ ...base, iterationCount: 3, iterationFrequencyDays: 10, startDate: '2025-01-30T08:00:00.000Z' });
    expect(launched).toMatchObject({
      iterationStartDates: ['2025-01-30T08:00:00.000Z', '2025-02-09T08:00:00.000Z', '2025-02-19T08:00:00.000Z'],
      currentIteration: 1,
      currentIterationStartDate: '2025-01-30T08:00:00.000Z',
    });
    const later = surveyIterations({ ...launched, currentIteration: 2, currentIterationStartDate: '2025-02-09T08:00:00.000Z' });
    expect(later.currentIteration).toBe(2);
    expect(
      surveyIterations({ ...base, iterationCount: 900, iterationFrequencyDays: 1, startDate: '2025-01-01T00:00:00.000Z' })
        .iterationStartDates,
    ).toHaveLength(500);
  });

  it('spreads the sampled responses over the interval, as PostHog’s JSON text', () => {
    expect(
      samplingDailyLimits({
        responseSamplingIntervalType: 'day',
        responseSamplingInterval: 3,
        responseSamplingLimit: 10,
        responseSamplingStartDate: '2025-05-01T00:00:00.000Z',
      }),
    ).toBe(
      '[{"date": "2025-05-01T00:00:00+00:00", "daily_response_limit": 4, "rollout_percentage": 33.33}, ' +
        '{"date": "2025-05-02T00:00:00+00:00", "daily_response_limit": 7, "rollout_percentage": 66.67}, ' +
        '{"date": "2025-05-03T00:00:00+00:00", "daily_response_limit": 10, "rollout_percentage": 100.0}]',
    );
    const week = JSON.parse(
      samplingDailyLimits({
        responseSamplingIntervalType: 'week',
        responseSamplingInterval: 1,
        responseSamplingLimit: 7,
        responseSamplingStartDate: '2025-05-01T00:00:00.000Z',
      })!,
    );
    expect(week.map((d: any) => d.daily_response_limit)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const base = {
      responseSamplingIntervalType: 'day',
      responseSamplingInterval: 2,
      responseSamplingLimit: 4,
      responseSamplingStartDate: '2025-05-01T00:00:00.000Z',
    };
    expect(samplingDailyLimits({ ...base, responseSamplingIntervalType: null })).toBeNull();
    expect(samplingDailyLimits({ ...base, responseSamplingLimit: 0 })).toBeNull();
    expect(samplingDailyLimits({ ...base, responseSamplingStartDate: null })).toBeNull();
    expect(samplingDailyLimits({ ...base, responseSamplingInterval: null })).toBeNull();
  });
});

describe('targeting flags', () => {
  it('names keys and filters as PostHog does', () => {
    expect(surveyFlagKey('0123456789')).toBe('survey-targeting-0123456789');
    expect(surveyFlagKey('abcdef0123', '-custom')).toBe('survey-targeting-abcdef0123-custom');
    expect(interactionKey({ id: 's1', iterationCount: null, currentIteration: null })).toBe('s1');
    expect(interactionKey({ id: 's1', iterationCount: 0, currentIteration: 2 })).toBe('s1');
    expect(interactionKey({ id: 's1', iterationCount: 3, currentIteration: null })).toBe('s1/1');
    expect(interactionKey({ id: 's1', iterationCount: 3, currentIteration: 2 })).toBe('s1/2');
    expect(interactedFilters('s1/2')).toEqual({
      groups: [
        {
          variant: '',
          rollout_percentage: 100,
          properties: [
            { key: '$survey_dismissed/s1/2', value: 'is_not_set', operator: 'is_not_set', type: 'person' },
            { key: '$survey_responded/s1/2', value: 'is_not_set', operator: 'is_not_set', type: 'person' },
          ],
        },
      ],
    });
  });

  it('adds a wait period as PostHog does: never seen, or last seen before it', () => {
    const [never, before] = (interactedFilters('s1', 14).groups as Array<{ properties: unknown[] }>).map((g) => g.properties.slice(2));
    expect(never).toEqual([{ key: '$survey_last_seen_date', value: 'is_not_set', operator: 'is_not_set', type: 'person' }]);
    expect(before).toEqual([{ key: '$survey_last_seen_date', value: '14d', operator: 'is_date_before', type: 'person' }]);
    expect(interactedFilters('s1', 0)).toEqual(interactedFilters('s1'));
    expect(waitPeriodDays({ seenSurveyWaitPeriodInDays: 7 })).toBe(7);
    expect(waitPeriodDays({ seenSurveyWaitPeriodInDays: '7' })).toBeNull();
    expect(waitPeriodDays(null)).toBeNull();
  });

  it('lays the interaction filters over an internal flag’s stored ones, and follows launch and end', () => {
    const stored = { groups: [{ properties: [], rollout_percentage: 10 }], payloads: { true: '1' } };
    // A new iteration's keys replace the stored ones; what else the flag holds stays.
    expect(internalFlagFilters('s/2', stored)).toEqual({ ...interactedFilters('s/2'), payloads: { true: '1' } });
    expect(internalFlagFilters('s', undefined)).toEqual(interactedFilters('s'));
    expect(internalFlagFilters('s', undefined, 3)).toEqual(interactedFilters('s', 3));
    expect(internalFlagActive(null, undefined)).toBe(false);
    expect(internalFlagActive('2025-01-01T00:00:00.000Z', undefined)).toBe(true);
    expect(internalFlagActive('2025-01-01T00:00:00.000Z', null)).toBe(true);
    expect(internalFlagActive('2025-01-01T00:00:00.000Z', '2025-02-01T00:00:00.000Z')).toBe(false);
  });
});
