/**
 * `after` and `before` as PostHog's relative_date_parse reads them: ISO dates and times (naive ones
 * in the project's timezone), relative dates with every unit it knows (`M` minutes, `m` months,
 * `q` quarters, `y` years, `Start` / `End`), and text it cannot read as now. Without `before`,
 * nothing past now + 5 s.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const setTimezone = async (timezone: string) =>
  expect((await server.request(`${env()}/`, { method: 'PATCH', body: { timezone } })).status).toBe(200);

async function labels(event: string, query: string): Promise<string[]> {
  const res = await server.request(`${env()}/events/?event=${event}&${query}`);
  expect(res.status, query).toBe(200);
  return res.body.results.map((e: any) => e.properties.label).sort();
}

/** A fixed-offset zone whose clock is near noon now, so day and month boundaries are hours away. */
function zoneNearNoon(now: number): { timezone: string; offset: number } {
  const hours = ((12 - new Date(now).getUTCHours() + 36) % 24) - 12;
  return { timezone: hours === 0 ? 'UTC' : `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`, offset: hours * HOUR };
}

const now = Date.now();
const ago = (label: string, ms: number) => ({
  event: 'dated',
  distinct_id: 'dater',
  timestamp: new Date(now - ms).toISOString(),
  properties: { label },
});

beforeAll(async () => {
  await server.ingest([
    ago('10 min', 10 * MINUTE),
    ago('2 h', 2 * HOUR),
    ago('3 d', 3 * DAY),
    ago('100 d', 100 * DAY),
    ago('400 d', 400 * DAY),
    ago('in 2 h', -2 * HOUR),
  ]);
});

describe('after and before', () => {
  it('read every unit relative_date_parse knows: M minutes, m months, q quarters, y years', async () => {
    expect(await labels('dated', 'after=-30M')).toEqual(['10 min']);
    expect(await labels('dated', 'after=-3q')).toEqual(['10 min', '100 d', '2 h', '3 d']);
    expect(await labels('dated', 'after=-1y')).toEqual(['10 min', '100 d', '2 h', '3 d']);
    expect(await labels('dated', 'after=-2y&before=-1y')).toEqual(['400 d']);
    // The first unit letter anywhere in the text counts, with the digits before it: "about 5h
    // ago" is 5 hours ago, "last 5h" is now (the `s` of "last" is seconds, with no number).
    expect(await labels('dated', 'after=about%205h%20ago')).toEqual(['10 min', '2 h']);
    expect(await labels('dated', 'after=last%205h')).toEqual([]);
  });

  it('read text without a unit as now, and leave out future events unless `before` asks for them', async () => {
    expect(await labels('dated', 'after=garbage')).toEqual([]);
    expect(await labels('dated', 'before=garbage')).toEqual(['10 min', '100 d', '2 h', '3 d', '400 d']);
    expect(await labels('dated', 'after=-1d')).toEqual(['10 min', '2 h']);
    expect(await labels('dated', 'after=-1d&before=2100-01-01')).toEqual(['10 min', '2 h', 'in 2 h']);
  });

  it('answer dates Python cannot hold with 400, not a server error', async () => {
    for (const query of ['after=-99999y', 'before=-9999999999d']) {
      const res = await server.request(`${env()}/events/?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', attr: query.split('=')[0] });
      expect(res.body.detail).toMatch(/out of the supported date range/);
    }
  });

  it("read naive dates and times in the project's timezone", async () => {
    await server.ingest([
      { event: 'tokyo', distinct_id: 'tz', timestamp: '2025-06-10T14:30:00Z', properties: { label: '23:30 in Tokyo' } },
      { event: 'tokyo', distinct_id: 'tz', timestamp: '2025-06-10T15:30:00Z', properties: { label: '00:30 in Tokyo' } },
    ]);
    await setTimezone('Asia/Tokyo');
    try {
      expect(await labels('tokyo', 'after=2025-06-11')).toEqual(['00:30 in Tokyo']);
      expect(await labels('tokyo', 'after=2025-6-11')).toEqual(['00:30 in Tokyo']);
      expect(await labels('tokyo', 'before=2025-06-11T00:00')).toEqual(['23:30 in Tokyo']);
      // An explicit offset is kept as written.
      expect(await labels('tokyo', 'after=2025-06-10T15:00:00Z')).toEqual(['00:30 in Tokyo']);
      expect(await labels('tokyo', 'after=2025-06-10T14:00:00%2B00:00')).toEqual(['00:30 in Tokyo', '23:30 in Tokyo']);
    } finally {
      await setTimezone('UTC');
    }
  });

  it('read Start and End on the wall clock of the project: -1dStart, -1mEnd', async () => {
    const { timezone, offset } = zoneNearNoon(now);
    const wallNow = now + offset;
    const yesterdayStart = Math.floor(wallNow / DAY) * DAY - DAY - offset;
    const today = new Date(wallNow);
    const lastOfPreviousMonth = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 0);
    const previousMonthEnd = lastOfPreviousMonth + (wallNow % DAY) - offset;
    const at = (label: string, t: number) => ({
      event: 'bounded',
      distinct_id: 'bounds',
      timestamp: new Date(t).toISOString(),
      properties: { label },
    });
    await server.ingest([
      at('before yesterday', yesterdayStart - 30 * MINUTE),
      at('yesterday', yesterdayStart + 30 * MINUTE),
      at('before month end', previousMonthEnd - HOUR),
      at('after month end', previousMonthEnd + HOUR),
    ]);
    await setTimezone(timezone);
    try {
      const sinceYesterday = await labels('bounded', 'after=-1dStart');
      expect(sinceYesterday).toContain('yesterday');
      expect(sinceYesterday).not.toContain('before yesterday');
      const sinceMonthEnd = await labels('bounded', 'after=-1mEnd');
      expect(sinceMonthEnd).toContain('after month end');
      expect(sinceMonthEnd).not.toContain('before month end');
    } finally {
      await setTimezone('UTC');
    }
  });
});
