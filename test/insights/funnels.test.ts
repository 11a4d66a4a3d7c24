import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const at = (iso: string) => ({ timestamp: iso });
const page = (distinctId: string, time: string, browser: string) => ({
  event: '$pageview',
  distinct_id: distinctId,
  ...at(time),
  properties: { $pathname: '/', $browser: browser },
});
const step = (event: string, distinctId: string, time: string, properties: Record<string, unknown> = {}) => ({
  event,
  distinct_id: distinctId,
  ...at(time),
  properties,
});

/**
 * Hand-computed: in New York (EDT on 2026-03-10, so the range starts 04:00Z), with a one-day
 * window. u1 converts fully (600 s, then 3600 s), u2 to sign-up (1200 s), u3 across a merge
 * (its anonymous page view, then an $identify that merges the anonymous person into u3's, then
 * u3's sign-up: 1800 s), u4's page view is before the range in New York (not in UTC), u5 signed
 * up before its page view, u6 signed up after the window.
 */
beforeAll(async () => {
  expect((await server.request(`${env()}/`, { method: 'PATCH', body: { timezone: 'America/New_York' } })).status).toBe(200);
  await server.ingest([
    page('u1', '2026-03-10T05:00:00Z', 'Chrome'),
    step('signed up', 'u1', '2026-03-10T05:10:00Z'),
    step('purchased', 'u1', '2026-03-10T06:10:00Z'),
    page('u2', '2026-03-10T05:00:00Z', 'Chrome'),
    step('signed up', 'u2', '2026-03-10T05:20:00Z'),
    step('other', 'u3', '2026-03-10T09:00:00Z'),
    page('a3', '2026-03-10T10:00:00Z', 'Firefox'),
    step('$identify', 'u3', '2026-03-10T10:20:00Z', { $anon_distinct_id: 'a3' }),
    step('signed up', 'u3', '2026-03-10T10:30:00Z'),
    page('u4', '2026-03-10T03:30:00Z', 'Chrome'),
    step('signed up', 'u4', '2026-03-10T05:00:00Z'),
    step('signed up', 'u5', '2026-03-10T05:00:00Z'),
    page('u5', '2026-03-10T06:00:00Z', 'Safari'),
    page('u6', '2026-03-10T05:00:00Z', 'Chrome'),
    step('signed up', 'u6', '2026-03-11T06:00:00Z'),
  ]);
});

const funnel = (extra: Record<string, unknown> = {}) => ({
  query: {
    kind: 'FunnelsQuery',
    series: [
      {
        kind: 'EventsNode',
        event: '$pageview',
        name: '$pageview',
        properties: [{ key: '$pathname', value: '/', operator: 'exact', type: 'event' }],
      },
      { kind: 'EventsNode', event: 'signed up', name: 'signed up', custom_name: 'Sign-up' },
      { kind: 'EventsNode', event: 'purchased', name: 'purchased' },
    ],
    dateRange: { date_from: '2026-03-10', date_to: '2026-03-12' },
    funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
    ...extra,
  },
});

describe('FunnelsQuery through query/', () => {
  it('counts persons per step and their conversion times, in the environment time zone, merged persons once', async () => {
    const res = await server.request(`${env()}/query/`, { method: 'POST', body: funnel() });
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe('America/New_York');
    expect(res.body.results).toEqual([
      expect.objectContaining({
        action_id: '$pageview',
        name: '$pageview',
        custom_name: null,
        order: 0,
        count: 5,
        type: 'events',
        average_conversion_time: null,
        median_conversion_time: null,
      }),
      expect.objectContaining({
        action_id: 'signed up',
        custom_name: 'Sign-up',
        order: 1,
        count: 3,
        average_conversion_time: 1200,
        median_conversion_time: 1200,
      }),
      expect.objectContaining({ action_id: 'purchased', order: 2, count: 1, average_conversion_time: 3600, median_conversion_time: 3600 }),
    ]);
  });

  it('is wider with a wider window', async () => {
    const res = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: funnel({ funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' } }),
    });
    expect(res.body.results.map((s: any) => s.count)).toEqual([5, 4, 1]);
    // u6 took 25 hours: (600 + 1200 + 1800 + 90000) / 4 on average, the median between 1200 and 1800.
    expect(res.body.results[1].average_conversion_time).toBe(23400);
    expect(res.body.results[1].median_conversion_time).toBe(1500);
  });

  it('breaks down by the property of the first step, the most entered first', async () => {
    const res = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: funnel({ breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }),
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((s) => s.count)])).toEqual([
      [['Chrome'], [3, 2, 1]],
      [['Firefox'], [1, 1, 0]],
      [['Safari'], [1, 0, 0]],
    ]);
  });

  it('shows breakdown_limit values, the most entered, the default for 0, and refuses a limit it cannot take', async () => {
    const limited = (breakdown_limit: unknown) =>
      server.request(`${env()}/query/`, {
        method: 'POST',
        body: funnel({ breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit } }),
      });
    const two = await limited(2);
    expect(two.status, two.text).toBe(200);
    expect(two.body.results.map((steps: any[]) => steps[0].breakdown_value)).toEqual([['Chrome'], ['Firefox']]);
    expect((await limited(0)).body.results).toHaveLength(3);
    for (const bad of ['2', 2.5, -1, 1001]) {
      const refused = await limited(bad);
      expect({ status: refused.status, attr: refused.body.attr }, String(bad)).toEqual({
        status: 400,
        attr: 'query__breakdownFilter__breakdown_limit',
      });
    }
  });

  it('answers what it cannot run with a 400 naming the field', async () => {
    const oneStep = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: { query: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'x' }] } },
    });
    expect(oneStep.status).toBe(400);
    expect(oneStep.body).toMatchObject({ type: 'validation_error', attr: 'query__series' });
    const unknown = await server.request(`${env()}/query/`, { method: 'POST', body: { query: { kind: 'HogQLQuery', query: 'select 1' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ type: 'validation_error', attr: 'query__kind' });
    expect((await server.request(`${env()}/query/`, { method: 'POST', body: {} })).status).toBe(400);
  });

  it('refuses, rather than drops, exclusions, other breakdown forms and fields of the wrong type', async () => {
    const refused = async (extra: Record<string, unknown>) => {
      const res = await server.request(`${env()}/query/`, { method: 'POST', body: funnel(extra) });
      return { status: res.status, attr: res.body.attr as unknown };
    };
    const exclusion = { kind: 'EventsNode', event: 'signed_up', funnelFromStep: 0, funnelToStep: 1 };
    expect(await refused({ funnelsFilter: { exclusions: [exclusion] } })).toEqual({
      status: 400,
      attr: 'query__funnelsFilter__exclusions',
    });
    expect(await refused({ funnelsFilter: { exclusions: 'garbage' } })).toEqual({ status: 400, attr: 'query__funnelsFilter__exclusions' });
    expect((await refused({ funnelsFilter: { exclusions: [] } })).status).toBe(200);
    const long = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: funnel({ funnelsFilter: { funnelWindowInterval: 100_001 } }),
    });
    expect(long.body).toMatchObject({
      attr: 'query__funnelsFilter__funnelWindowInterval',
      detail: 'funnelWindowInterval must be a whole number from 1 to 100000.',
    });
    expect(await refused({ breakdownFilter: { breakdowns: [{ property: '$browser', type: 'event' }] } })).toEqual({
      status: 400,
      attr: 'query__breakdownFilter__breakdowns',
    });
    expect(await refused({ breakdownFilter: { breakdown: 'amount', breakdown_histogram_bin_count: 5 } })).toEqual({
      status: 400,
      attr: 'query__breakdownFilter__breakdown_histogram_bin_count',
    });
    for (const [field, value] of [
      ['funnelsFilter', []],
      ['breakdownFilter', 1],
      ['dateRange', 'x'],
    ] as const) {
      expect(await refused({ [field]: value }), field).toEqual({ status: 400, attr: `query__${field}` });
    }
  });
});

describe('funnelVizType time_to_convert through query/', () => {
  const ttc = async (funnelsFilter: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const res = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: funnel({
        funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day', funnelVizType: 'time_to_convert', ...funnelsFilter },
        ...extra,
      }),
    });
    expect(res.status, res.text).toBe(200);
    return res.body.results;
  };

  it('bins the time from the first to the last step by default, 60 s wide for a single time', async () => {
    // Only u1 purchased: 600 + 3600 s. One bin (cube root of 1), (4200 - 4200) / 1 = 0 wide, so 60.
    expect(await ttc({})).toEqual({
      bins: [
        [4200, 1],
        [4260, 0],
      ],
      average_conversion_time: 4200,
      median_conversion_time: 4200,
    });
  });

  it('counts the bins from the cube root of the persons, from the shortest time', async () => {
    // To sign-up: u1 600, u2 1200, u3 1800 s. ceil(cbrt(3)) = 2 bins of ceil(1200 / 2) = 600 s, plus the last.
    expect(await ttc({ funnelToStep: 1 })).toEqual({
      bins: [
        [600, 1],
        [1200, 1],
        [1800, 1],
      ],
      average_conversion_time: 1200,
      median_conversion_time: 1200,
    });
    // A 14-day window adds u6's 90000 s: 2 bins of ceil(89400 / 2) = 44700 s; the average 23400 s, the median 1500 s.
    expect(await ttc({ funnelToStep: 1, funnelWindowInterval: 14 })).toEqual({
      bins: [
        [600, 3],
        [45300, 0],
        [90000, 1],
      ],
      average_conversion_time: 23400,
      median_conversion_time: 1500,
    });
  });

  it('takes binCount, clamped to 1..90, and funnelFromStep', async () => {
    // 4 bins of 300 s from 600.
    expect((await ttc({ funnelToStep: 1, binCount: 4 })).bins).toEqual([
      [600, 1],
      [900, 0],
      [1200, 1],
      [1500, 0],
      [1800, 1],
    ]);
    // 0 reads as 1 bin of 1200 s: 600 and 1200 in the first, 1800 in the last.
    expect((await ttc({ funnelToStep: 1, binCount: 0 })).bins).toEqual([
      [600, 2],
      [1800, 1],
    ]);
    expect((await ttc({ funnelToStep: 1, binCount: 500 })).bins).toHaveLength(91);
    // From sign-up to purchase: u1's 3600 s.
    expect(await ttc({ funnelFromStep: 1 })).toEqual({
      bins: [
        [3600, 1],
        [3660, 0],
      ],
      average_conversion_time: 3600,
      median_conversion_time: 3600,
    });
  });

  it('answers one empty bin, 60 s wide, and no average or median when nobody converted', async () => {
    // PostHog's UDF: no times, so the shortest and longest are 0 and the width falls back to 60.
    expect(await ttc({}, { dateRange: { date_from: '2025-01-01', date_to: '2025-01-02' } })).toEqual({
      bins: [
        [0, 0],
        [60, 0],
      ],
      average_conversion_time: null,
      median_conversion_time: null,
    });
  });

  it('refuses steps out of range and an unknown view with a 400 naming the field', async () => {
    const ask = (funnelsFilter: Record<string, unknown>) =>
      server.request(`${env()}/query/`, { method: 'POST', body: funnel({ funnelsFilter }) });
    const far = await ask({ funnelVizType: 'time_to_convert', funnelToStep: 3 });
    expect(far.status).toBe(400);
    expect(far.body).toMatchObject({
      type: 'validation_error',
      detail: 'Filter parameter funnel_to_step can only be one of 1, 2 for time to convert!',
      attr: 'query__funnelsFilter__funnelToStep',
    });
    const backwards = await ask({ funnelVizType: 'time_to_convert', funnelFromStep: 2, funnelToStep: 1 });
    expect(backwards.body).toMatchObject({ attr: 'query__funnelsFilter__funnelFromStep' });
    const bins = await ask({ funnelVizType: 'time_to_convert', binCount: 'many' });
    expect(bins.body).toMatchObject({ attr: 'query__funnelsFilter__binCount' });
    const unknown = await ask({ funnelVizType: 'lifecycle' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ type: 'validation_error', attr: 'query__funnelsFilter__funnelVizType' });
    expect(unknown.body.detail).toBe('"lifecycle" is not a valid choice.');
  });
});

describe("conversion times as PostHog's funnel UDF takes them", () => {
  /**
   * On 1 Apr 2026 (New York), a one-day window: w1 converts fully twice, first in 1800 s then
   * 3600 s, later in 60 s and 60 s; w2 signs up at the instant of its page view (0 s), then
   * purchases 1200 s later; w3 signs up 0.25 s after its page view.
   */
  beforeAll(async () => {
    await server.ingest([
      page('w1', '2026-04-01T14:00:00Z', 'Chrome'),
      step('signed up', 'w1', '2026-04-01T14:30:00Z'),
      step('purchased', 'w1', '2026-04-01T15:30:00Z'),
      page('w1', '2026-04-01T16:00:00Z', 'Chrome'),
      step('signed up', 'w1', '2026-04-01T16:01:00Z'),
      step('purchased', 'w1', '2026-04-01T16:02:00Z'),
      page('w2', '2026-04-01T14:00:00Z', 'Chrome'),
      step('signed up', 'w2', '2026-04-01T14:00:00Z'),
      step('purchased', 'w2', '2026-04-01T14:20:00Z'),
      page('w3', '2026-04-01T14:00:00.000Z', 'Chrome'),
      step('signed up', 'w3', '2026-04-01T14:00:00.250Z'),
    ]);
  });
  const april = (funnelsFilter: Record<string, unknown> = {}) =>
    funnel({
      dateRange: { date_from: '2026-04-01', date_to: '2026-04-01' },
      funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day', ...funnelsFilter },
    });

  it('takes the first full conversion, keeps milliseconds and leaves out conversions of no time', async () => {
    const res = await server.request(`${env()}/query/`, { method: 'POST', body: april() });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((s: any) => s.count)).toEqual([3, 3, 2]);
    // To sign-up: w1 1800 s (its first run, not its faster second), w3 0.25 s; w2's 0 s left out.
    expect(res.body.results[1]).toMatchObject({ average_conversion_time: 900.125, median_conversion_time: 900.125 });
    // To purchase: w1 3600 s, w2 1200 s.
    expect(res.body.results[2]).toMatchObject({ average_conversion_time: 2400, median_conversion_time: 2400 });
  });

  it('counts every converted person in the time to convert, 0 s too, unrounded', async () => {
    const ask = async (funnelsFilter: Record<string, unknown>) => {
      const res = await server.request(`${env()}/query/`, {
        method: 'POST',
        body: april({ funnelVizType: 'time_to_convert', ...funnelsFilter }),
      });
      expect(res.status, res.text).toBe(200);
      return res.body.results;
    };
    // Whole funnel: w1 1800 + 3600, w2 0 + 1200. ceil(cbrt(2)) = 2 bins of ceil(4200 / 2) = 2100 s.
    expect(await ask({})).toEqual({
      bins: [
        [1200, 1],
        [3300, 0],
        [5400, 1],
      ],
      average_conversion_time: 3300,
      median_conversion_time: 3300,
    });
    // To sign-up: 1800, 0 and 0.25 s: (1800 + 0 + 0.25) / 3 on average, 0.25 the median; 2 bins of 900 s.
    const toSignUp = await ask({ funnelToStep: 1 });
    expect(toSignUp.bins).toEqual([
      [0, 2],
      [900, 0],
      [1800, 1],
    ]);
    expect(toSignUp.average_conversion_time).toBeCloseTo(1800.25 / 3, 9);
    expect(toSignUp.median_conversion_time).toBe(0.25);
  });
});

describe('saved funnel insights', () => {
  it('saves a FunnelsQuery insight and answers its result as query/ does, steps or time to convert', async () => {
    for (const funnelsFilter of [
      { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
      { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day', funnelVizType: 'time_to_convert', funnelToStep: 1 },
    ]) {
      const { query } = funnel({ funnelsFilter });
      const created = await server.request(`${env()}/insights/`, {
        method: 'POST',
        body: { name: 'Sign-ups', query: { kind: 'InsightVizNode', source: query } },
      });
      expect(created.status, created.text).toBe(201);
      const asked = await server.request(`${env()}/query/`, { method: 'POST', body: { query } });
      expect(created.body.result).toEqual(asked.body.results);
      const fetched = await server.request(`${env()}/insights/${created.body.id}/`);
      expect(fetched.body.result).toEqual(asked.body.results);
    }
  });

  it('refuses a funnel it cannot run with a 400 naming the field', async () => {
    const { query } = funnel({ funnelsFilter: { funnelVizType: 'trends' }, interval: 'fortnight' });
    const res = await server.request(`${env()}/insights/`, { method: 'POST', body: { query: { kind: 'InsightVizNode', source: query } } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'query__source__interval' });
  });

  it('reads a regular expression RE2 does not take as matching nothing, as trends do, saved or asked', async () => {
    const lookbehind = [{ key: '$browser', value: '(?<=C)hrome', operator: 'regex', type: 'event' }];
    const { query } = funnel({ properties: lookbehind });
    const asked = await server.request(`${env()}/query/`, { method: 'POST', body: { query } });
    expect(asked.status, asked.text).toBe(200);
    expect(asked.body.results.map((s: any) => s.count)).toEqual([0, 0, 0]);
    const created = await server.request(`${env()}/insights/`, {
      method: 'POST',
      body: { query: { kind: 'InsightVizNode', source: query } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.result).toEqual(asked.body.results);
    const negated = funnel({ properties: [{ ...lookbehind[0], operator: 'not_regex' }] }).query;
    const all = await server.request(`${env()}/query/`, { method: 'POST', body: { query: negated } });
    const plain = await server.request(`${env()}/query/`, { method: 'POST', body: { query: funnel().query } });
    expect(all.body.results).toEqual(plain.body.results);
  });

  it('lists a saved funnel whose range grew past what an answer holds with no result, beside the others', async () => {
    const { query } = funnel({ funnelsFilter: { funnelVizType: 'trends' }, interval: 'hour', dateRange: { date_from: '-1y' } });
    const created = await server.request(`${env()}/insights/`, {
      method: 'POST',
      body: { name: 'Hourly for a year', query: { kind: 'InsightVizNode', source: query } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.result).toBeNull();
    const listed = await server.request(`${env()}/insights/?limit=100`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.results.find((i: any) => i.id === created.body.id).result).toBeNull();
    expect(listed.body.results.filter((i: any) => i.result !== null).length).toBeGreaterThan(0);
  });
});
