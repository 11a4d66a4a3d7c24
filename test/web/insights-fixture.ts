/**
 * The insights browser test's events, in Asia/Tokyo (UTC+9, no daylight saving), over the local
 * days 6–12 Oct 2025 (5 Oct 15:00 UTC to 12 Oct 15:00 UTC).
 *
 * $pageview by local day: 6 Oct: alice (Chrome, 5 Oct 16:00 UTC: only the environment's zone puts
 * it in range), bob (Firefox) → 2; 7 Oct: alice → 1; 8 Oct: carol twice (Firefox) → 2; 10 Oct:
 * dave (Chrome) → 1; 12 Oct: dave at 23:59 local → 1; none on 9 and 11 Oct. Total 7; by browser:
 * Chrome 4, Firefox 3. Outside: eve at 5 Oct 23:00 local, dave at 13 Oct 00:00 local.
 *
 * Funnel $pageview → signed_up → purchased (14 days): alice all three, bob the first two, carol all
 * three, dave the first only → 4, 3, 2 persons: 75.0% then 50.0% of the first; 66.7% of bob and
 * alice's and carol's step 2.
 */
import { beforeAll, expect } from 'vitest';
import type { SharedTestServer } from '../helpers/server.js';
import { useSignedIn, type SharedSignedIn } from './signed-in.js';

export const ZONE = 'Asia/Tokyo';
export const OFFSET_HOURS = 9;
export const DATE_RANGE = { date_from: '2025-10-06', date_to: '2025-10-12' };
export const DAYS = ['2025-10-06', '2025-10-07', '2025-10-08', '2025-10-09', '2025-10-10', '2025-10-11', '2025-10-12'];

export interface FixtureEvent {
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

const pageview = (who: string, timestamp: string, browser: string): FixtureEvent => ({
  event: '$pageview',
  distinct_id: who,
  timestamp,
  properties: { $browser: browser, $pathname: '/' },
});
const act = (event: string, who: string, timestamp: string, properties: Record<string, unknown> = {}): FixtureEvent => ({
  event,
  distinct_id: who,
  timestamp,
  properties,
});

export function insightsFixture(): FixtureEvent[] {
  return [
    pageview('alice', '2025-10-05T16:00:00Z', 'Chrome'),
    pageview('bob', '2025-10-06T03:00:00Z', 'Firefox'),
    pageview('alice', '2025-10-07T01:00:00Z', 'Chrome'),
    act('signed_up', 'alice', '2025-10-07T01:10:00Z'),
    act('purchased', 'alice', '2025-10-07T02:00:00Z', { amount: 30 }),
    act('signed_up', 'bob', '2025-10-08T05:00:00Z'),
    pageview('carol', '2025-10-08T05:00:00Z', 'Firefox'),
    pageview('carol', '2025-10-08T06:00:00Z', 'Firefox'),
    act('signed_up', 'carol', '2025-10-10T00:00:00Z'),
    act('purchased', 'carol', '2025-10-10T01:00:00Z', { amount: 12 }),
    pageview('dave', '2025-10-10T14:30:00Z', 'Chrome'),
    pageview('dave', '2025-10-12T14:59:00Z', 'Chrome'),
    pageview('dave', '2025-10-12T15:00:00Z', 'Chrome'),
    pageview('eve', '2025-10-05T14:00:00Z', 'Chrome'),
  ];
}

/** The local day of an event (Tokyo has no daylight saving: a fixed offset). */
export const localDay = (timestamp: string): string =>
  new Date(Date.parse(timestamp) + OFFSET_HOURS * 3_600_000).toISOString().slice(0, 10);

/** Events of `event` per local day of the range, counted by hand from the fixture (`where` narrows them). */
export function countsByDay(event: string, where: (e: FixtureEvent) => boolean = () => true): number[] {
  const events = insightsFixture().filter((e) => e.event === event && where(e));
  return DAYS.map((day) => events.filter((e) => localDay(e.timestamp) === day).length);
}

/**
 * The file's signed-in browser (useSignedIn) on the bootstrap environment set to ZONE and holding
 * the fixture's events and `extra`, ingested once in `beforeAll`.
 */
export function useInsightsFixture(server: SharedTestServer, extra: FixtureEvent[] = []): SharedSignedIn {
  const ui = useSignedIn(server);
  beforeAll(async () => {
    const zone = await server.request(`/api/environments/${ui.env}/`, { method: 'PATCH', body: { timezone: ZONE } });
    expect(zone.status, zone.text).toBe(200);
    await server.ingest([...insightsFixture(), ...extra]);
  });
  return ui;
}
