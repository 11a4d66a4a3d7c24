/**
 * `sessions/values/` and `web_vitals/` answer from ClickHouse (the `sessions` table its view keeps,
 * and SQL percentiles over events): the same answers as the pure cores give over the same events.
 */
import { describe, expect, it } from 'vitest';
import {
  computeSessionProperties,
  computeWebVitals,
  SESSION_VALUE_KEYS,
  sessionPropertyValues,
  type SessionEventInput,
} from '../../src/recordings/core/index.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

/** A small generator with a fixed seed: the same events every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

async function environment(name: string): Promise<{ id: number; token: string }> {
  const created = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, { method: 'POST', body: { name } });
  expect(created.status).toBe(201);
  return { id: created.body.id, token: created.body.api_token };
}

async function capture(token: string, events: SessionEventInput[]): Promise<void> {
  const batch = events.map((e) => ({
    event: e.event,
    uuid: e.uuid,
    distinct_id: 'visitor',
    timestamp: new Date(e.timestamp).toISOString(),
    properties: { $process_person_profile: false, ...e.properties },
  }));
  const res = await server.request('/batch/', { method: 'POST', key: null, body: { api_key: token, batch } });
  expect(res.status).toBe(200);
  await server.settle();
}

describe('sessions/values from the sessions table', () => {
  it('gives what the core computes from the events, for every key, with and without a search', async () => {
    const env = await environment('Sessions parity');
    const next = random(28);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    const now = Date.now();
    const urls = [
      'https://shop.test/',
      'https://shop.test/a?x=1',
      'https://blog.test/post#top',
      'https://shop.test',
      'https://shop.test/cart',
    ];
    const events: SessionEventInput[] = Array.from({ length: 240 }, (_, n) => {
      const properties: Record<string, unknown> = { $session_id: `s-${Math.floor(next() * 40)}` };
      if (next() < 0.8) properties.$current_url = pick(urls);
      if (next() < 0.3) properties.$referring_domain = pick(['google.com', 'news.test', '']);
      if (next() < 0.3) properties.utm_source = pick(['News', 'newsletter', 'ads']);
      if (next() < 0.2) properties.utm_campaign = pick(['spring', '["a","b"]']);
      if (next() < 0.1) properties.gclid = pick(['g-1', 'g-2']);
      if (next() < 0.1) properties.$external_click_url = pick(['https://out.test/1', 'https://out.test/2']);
      return {
        event: pick(['$pageview', '$pageview', '$autocapture', 'clicked']),
        uuid: crypto.randomUUID(),
        // Whole seconds, one event per second at most: no two of a session share a time.
        timestamp: new Date(now - 3_600_000 + n * 1000).toISOString(),
        properties,
      };
    });
    await capture(env.token, events);
    const sessions = [...computeSessionProperties(events).values()].sort((a, b) => (a.$start_timestamp < b.$start_timestamp ? 1 : -1));
    for (const key of SESSION_VALUE_KEYS) {
      for (const value of ['', 'NEWS', 'shop', '/']) {
        const expected = sessionPropertyValues({ key, value, sessions });
        const res = await server.request(
          `/api/environments/${env.id}/sessions/values/?key=${encodeURIComponent(key)}&value=${encodeURIComponent(value)}`,
        );
        expect(res.status).toBe(200);
        expect([key, value, res.body]).toEqual([key, value, expected.ok && expected.body]);
      }
    }
    // Another environment's sessions are not counted.
    const other = await server.request(
      `/api/environments/${server.bootstrap.team.id}/sessions/values/?key=$entry_utm_source&value=newsletter`,
    );
    expect(other.body.results).toEqual([]);
  });
});

describe('web_vitals from ClickHouse', () => {
  it('gives what the core computes, with path cleaning and weeks from Monday', async () => {
    const env = await environment('Web vitals parity');
    const filters = [{ regex: '/products/\\d+', alias: '/products/<id>' }];
    const patched = await server.request(`/api/environments/${env.id}/`, {
      method: 'PATCH',
      body: { week_start_day: 1, path_cleaning_filters: filters },
    });
    expect(patched.status).toBe(200);
    const next = random(7);
    const now = Date.now();
    const events: SessionEventInput[] = Array.from({ length: 120 }, () => {
      const properties: Record<string, unknown> = {};
      const where = next();
      if (where < 0.5) properties.$pathname = `/products/${Math.floor(next() * 5)}`;
      else if (where < 0.7) properties.$current_url = `https://shop.test/products/${Math.floor(next() * 5)}?q=1`;
      else if (where < 0.8) properties.$pathname = '/products';
      else properties.$pathname = '/products/1/reviews';
      for (const metric of ['INP', 'LCP', 'CLS', 'FCP']) {
        const roll = next();
        if (roll < 0.6) properties[`$web_vitals_${metric}_value`] = Math.round(next() * 5000) / 10;
        else if (roll < 0.7) properties[`$web_vitals_${metric}_value`] = String(Math.round(next() * 500));
        else if (roll < 0.75) properties[`$web_vitals_${metric}_value`] = true;
      }
      // Across the last ten days: some before the window.
      return {
        event: '$web_vitals',
        uuid: crypto.randomUUID(),
        timestamp: new Date(now - Math.floor(next() * 10 * 86_400_000)).toISOString(),
        properties,
      };
    });
    await capture(env.token, [
      ...events,
      { event: 'other', timestamp: new Date(now).toISOString(), properties: { $pathname: '/products/1', $web_vitals_LCP_value: 1 } },
    ]);
    const res = await server.request(`/api/environments/${env.id}/web_vitals/?pathname=/products/9`);
    expect(res.status).toBe(200);
    const expected = computeWebVitals(events, {
      pathname: '/products/9',
      now: new Date(res.body.last_refresh),
      weekStartDay: 1,
      pathCleaningFilters: filters,
    });
    for (const [i, series] of expected.results.entries()) {
      const got = res.body.results[i];
      expect({ ...got, data: undefined, count: undefined }).toEqual({ ...series, data: undefined, count: undefined });
      expect(got.data).toHaveLength(series.data.length);
      for (const [w, value] of series.data.entries()) expect(got.data[w]).toBeCloseTo(value, 6);
    }
    expect(expected.results.some((s) => s.data.some((v) => v > 0))).toBe(true);
    expect(res.body.resolved_date_range).toEqual(expected.resolved_date_range);
  });
});
