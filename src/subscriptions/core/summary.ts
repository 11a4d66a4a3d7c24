/**
 * PostHog's `Subscription.summary` (posthog/models/subscription.py, baseline), character-exact:
 *
 *   "sent every " + ("{interval} " if interval > 1) + unit (+ "s" if interval > 1)
 *   + (" on the {first|second|third|fourth|last} {Weekday|day}" if byweekday and bysetpos)
 *
 * The weekday name is used only when byweekday has exactly one entry, otherwise "day".
 * byweekday without bysetpos adds nothing; count and until_date never appear.
 * An unknown frequency or a bysetpos outside {1, 2, 3, 4, -1} gives "sent on a schedule".
 */

export interface SummaryFields {
  frequency: string;
  interval?: number | null;
  byweekday?: readonly string[] | null;
  bysetpos?: number | null;
}

export const FALLBACK_SUMMARY = 'sent on a schedule';

const UNITS: Record<string, string> = { daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year' };
const POSITIONS = new Map<number, string>([
  [1, 'first'],
  [2, 'second'],
  [3, 'third'],
  [4, 'fourth'],
  [-1, 'last'],
]);

/** Python's str.capitalize(): first character upper-cased, the rest lower-cased. */
function capitalize(s: string): string {
  const chars = [...s];
  if (chars.length === 0) return '';
  return (chars[0] ?? '').toUpperCase() + chars.slice(1).join('').toLowerCase();
}

export function subscriptionSummary(s: SummaryFields): string {
  if (!Object.hasOwn(UNITS, s.frequency)) return FALLBACK_SUMMARY;
  const interval = s.interval ?? 1;
  let unit = UNITS[s.frequency] as string;
  if (interval > 1) unit = `${unit}s`;
  let summary = `sent every ${interval > 1 ? `${interval} ` : ''}${unit}`;
  const byweekday = s.byweekday ?? [];
  if (byweekday.length > 0 && s.bysetpos) {
    const pos = POSITIONS.get(s.bysetpos);
    if (pos === undefined) return FALLBACK_SUMMARY;
    const day = byweekday.length === 1 ? capitalize(byweekday[0] ?? '') : 'day';
    summary += ` on the ${pos} ${day}`;
  }
  return summary;
}
