import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

/**
 * The dates `within` shows, each as shown and as the app's one style writes its instant ("Nov 30,
 * 2026, 11:55 AM" in the browser's locale; the day alone for a date), in the zone it names.
 */
export async function datesShown(within: Locator): Promise<{ shown: string; expected: string }[]> {
  return within.locator('time[datetime]').evaluateAll((elements) =>
    elements.map((element) => {
      const zone = element.getAttribute('data-time-zone') ?? undefined;
      const options: Intl.DateTimeFormatOptions = element.hasAttribute('data-date-only')
        ? { dateStyle: 'medium', timeZone: zone }
        : { dateStyle: 'medium', timeStyle: 'short', timeZone: zone };
      const expected = new Intl.DateTimeFormat(undefined, options).format(new Date(element.getAttribute('datetime')!));
      return { shown: element.textContent ?? '', expected };
    }),
  );
}

/** `within` shows at least one date, and every one in the app's style. */
export async function expectDatesInOneStyle(within: Locator): Promise<void> {
  await within.locator('time[datetime]').first().waitFor();
  const dates = await datesShown(within);
  expect(dates.length).toBeGreaterThan(0);
  for (const { shown, expected } of dates) expect(shown).toBe(expected);
}
