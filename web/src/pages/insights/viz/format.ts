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

/** Seconds as PostHog writes durations: `45s`, `3m 5s`, `2h 10m`, `3d 4h`. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}

/** The breakdown value as shown: PostHog's null and "other" markers said in words. */
export function breakdownLabel(value: string | undefined): string {
  if (value === '$$_posthog_breakdown_null_$$' || value === '') return '(none)';
  if (value === '$$_posthog_breakdown_other_$$') return 'Other';
  return value ?? '';
}
