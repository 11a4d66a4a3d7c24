/** How insights say their numbers: counts with separators, up to two decimals; durations; percentages. */

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const scientific = new Intl.NumberFormat('en-US', { notation: 'scientific', maximumFractionDigits: 2 });

/** From a quadrillion up, in exponent notation (`1.23e15`): written in full, 1e308 takes 411 characters. */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return Math.abs(value) >= 1e15 ? scientific.format(value).replace('E', 'e') : number.format(value);
}

/** A share as a percentage with one decimal (`66.7%`); `–` when there is nothing to divide by. */
export function formatPercent(part: number, whole: number): string {
  if (!whole) return '–';
  return `${((part / whole) * 100).toFixed(1)}%`;
}

/** Durations as PostHog writes them: one formatter for the whole app. */
export { formatDuration } from '../../../lib/format.js';

/** The breakdown value as shown: PostHog's null and "other" markers said in words. */
export function breakdownLabel(value: string | undefined): string {
  if (value === '$$_posthog_breakdown_null_$$' || value === '') return '(none)';
  if (value === '$$_posthog_breakdown_other_$$') return 'Other';
  return value ?? '';
}
