/**
 * Differential test against python-dateutil (the library PostHog's Subscription.rrule uses):
 * fixtures/dateutil-fixture.json was produced by fixtures/gen-dateutil-fixture.py.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { nextDeliveryDate, occurrencesBetween } from '../../src/subscriptions/core/schedule.js';
import type { ScheduleFields } from '../../src/subscriptions/core/types.js';

interface FixtureCase {
  schedule: ScheduleFields;
  queries: { now: string; from: string | null; next: string | null }[];
  between: { after: string; before: string; dates: string[] };
}

const cases = JSON.parse(
  readFileSync(fileURLToPath(new URL('./fixtures/dateutil-fixture.json', import.meta.url)), 'utf8'),
) as FixtureCase[];

/** dateutil results carry microseconds only from `until`/`now` inputs, never from occurrences. */
const ms = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso.replace(/(\.\d{3})\d{3}Z$/, '$1Z')));

describe('schedule vs python-dateutil', () => {
  it('fixture is substantial and mixes found and exhausted schedules', () => {
    expect(cases.length).toBe(400);
    const all = cases.flatMap((c) => c.queries);
    expect(all.filter((q) => q.next === null).length).toBeGreaterThan(100);
    expect(all.filter((q) => q.next !== null).length).toBeGreaterThan(500);
  });

  it('nextDeliveryDate matches dateutil rule.after(max(from, now + 15 min)) for every case', () => {
    const mismatches: string[] = [];
    for (const [i, c] of cases.entries()) {
      for (const q of c.queries) {
        const got = nextDeliveryDate(c.schedule, new Date(q.now), q.from === null ? null : new Date(q.from));
        const want = ms(q.next);
        if ((got === null ? null : got.getTime()) !== want) {
          mismatches.push(`#${i} ${JSON.stringify(c.schedule)} now=${q.now} from=${q.from}: got ${got?.toISOString()} want ${q.next}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('occurrencesBetween matches dateutil rule.between(after, before) for every case', () => {
    const mismatches: string[] = [];
    for (const [i, c] of cases.entries()) {
      const got = occurrencesBetween(c.schedule, new Date(c.between.after), new Date(c.between.before), { limit: 50 }).map((d) =>
        d.getTime(),
      );
      const want = c.between.dates.map((d) => ms(d));
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        mismatches.push(`#${i} ${JSON.stringify(c.schedule)}: got ${got.length} want ${want.length}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
