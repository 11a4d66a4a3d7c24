/**
 * Date ranges as PostHog's date filter offers them (its frontend's `dateMapping`), limited to the
 * dates Hoglet's server reads (src/posthog/date-grammar.ts): PostHog's "Yesterday" is
 * `-1dStart`…`-1dEnd`, here `-1d`…`-1d`, the same day (a range runs through the end of its last
 * local day). Which preset a range is, or a custom range of days, or neither (an old link's `-3d`).
 */
import { readDateText } from '../../../src/posthog/date-grammar';

export interface DatePreset {
  label: string;
  date_from: string;
  date_to: string | null;
}

export const DATE_PRESETS: readonly DatePreset[] = [
  { label: 'Today', date_from: 'dStart', date_to: null },
  { label: 'Yesterday', date_from: '-1d', date_to: '-1d' },
  { label: 'Last 24 hours', date_from: '-24h', date_to: null },
  { label: 'Last 7 days', date_from: '-7d', date_to: null },
  { label: 'Last 14 days', date_from: '-14d', date_to: null },
  { label: 'Last 30 days', date_from: '-30d', date_to: null },
  { label: 'Last 90 days', date_from: '-90d', date_to: null },
  { label: 'Last 180 days', date_from: '-180d', date_to: null },
  { label: 'This month', date_from: 'mStart', date_to: null },
  { label: 'Year to date', date_from: 'yStart', date_to: null },
  { label: 'All time', date_from: 'all', date_to: null },
];

export const DEFAULT_DATE_FROM = '-7d';

/** Whether a range has a period before it to compare with: "All time" has none. */
export function hasPreviousPeriod(dateFrom: string): boolean {
  return dateFrom.trim() !== 'all';
}

/** A preset's key, unique among them (the select's value). */
export function presetKey(preset: { date_from: string; date_to: string | null }): string {
  return preset.date_to === null ? preset.date_from : `${preset.date_from}/${preset.date_to}`;
}

/** Whether a text is a calendar day (`2025-11-10`): what a date input holds. */
export function isDay(text: string | null): text is string {
  if (text === null) return false;
  const date = readDateText(text);
  return date?.kind === 'absolute' && !date.hasTime && date.offsetMinutes === null;
}

export type RangeKind = { kind: 'preset'; key: string } | { kind: 'days' } | { kind: 'other'; label: string };

const UNITS = { h: 'hour', d: 'day', w: 'week', m: 'month', y: 'year' } as const;

/** How a range reads to a person when it is no preset: `Last 3 days` for `-3d`, else its texts. */
function describe(from: string, to: string | null): string {
  const date = readDateText(from);
  if (to === null && date?.kind === 'relative') return `Last ${date.amount} ${UNITS[date.unit]}${date.amount === 1 ? '' : 's'}`;
  return to === null ? `From ${from}` : `${from} – ${to}`;
}

/** A preset, a range of days (the end may be open), or another range the address holds. */
export function rangeKind(from: string, to: string | null): RangeKind {
  const preset = DATE_PRESETS.find((p) => p.date_from === from && p.date_to === to);
  if (preset) return { kind: 'preset', key: presetKey(preset) };
  if (isDay(from) && (to === null || isDay(to))) return { kind: 'days' };
  return { kind: 'other', label: describe(from, to) };
}
