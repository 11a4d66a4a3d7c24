/**
 * Counting a trends query's events as they are read, page by page: per series (and breakdown
 * value) only the counts per bucket are kept, and for `dau` the persons seen per bucket, never
 * the events themselves. Reading a range's events whole, properties and all, held them all in
 * memory at once: a week of a busy project was more than the server process has.
 */
import { matchesProperties } from './properties.js';
import { bucketIndex, type TrendsWindow } from './trends-window.js';
import type { TrendsEvent, TrendsQuery, TrendsResult, TrendsSeries } from './trends.js';

export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
const BREAKDOWN_LIMIT = 25;

/** What one series keeps per breakdown value (or once, without a breakdown). */
class Tally {
  /** Matching events, in or out of a bucket: breakdown values are ranked by it. */
  events = 0;
  readonly totals: number[];
  /** `dau` only: the persons (or distinct ids of personless events) per bucket. */
  readonly persons: Array<Set<string>> | undefined;

  constructor(buckets: number, dau: boolean) {
    this.totals = new Array<number>(buckets).fill(0);
    this.persons = dau ? Array.from({ length: buckets }, () => new Set<string>()) : undefined;
  }

  add(bucket: number, event: TrendsEvent): void {
    this.events++;
    if (bucket < 0) return;
    if (this.persons) this.persons[bucket]!.add(event.personId ?? event.distinctId);
    else this.totals[bucket]! += 1;
  }

  data(): number[] {
    return this.persons ? this.persons.map((s) => s.size) : this.totals.slice();
  }

  /** The tallies merged (the "other" breakdown value): totals summed, persons united. */
  static merge(tallies: Tally[], buckets: number, dau: boolean): Tally {
    const merged = new Tally(buckets, dau);
    for (const tally of tallies) {
      merged.events += tally.events;
      for (let i = 0; i < buckets; i++) {
        if (merged.persons) for (const person of tally.persons![i]!) merged.persons[i]!.add(person);
        else merged.totals[i]! += tally.totals[i]!;
      }
    }
    return merged;
  }
}

function breakdownValue(event: TrendsEvent, key: string): string {
  const value = event.properties[key];
  if (value === undefined || value === null || value === '') return BREAKDOWN_NULL;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Counts a trends query's events, fed in any number of `add` calls, into PostHog's result series. */
export class TrendsCounter {
  /** Per series: breakdown value (`''` without a breakdown) → its tally. */
  private readonly tallies: Array<Map<string, Tally>>;
  private readonly from: number;
  private readonly to: number;

  constructor(
    private readonly query: TrendsQuery,
    private readonly window: TrendsWindow,
  ) {
    this.tallies = query.series.map(() => new Map());
    this.from = window.from.getTime();
    this.to = window.to.getTime();
  }

  add(event: TrendsEvent): void {
    const time = new Date(event.timestamp).getTime();
    if (!(time >= this.from && time < this.to) || !matchesProperties(event.properties, this.query.properties)) return;
    const bucket = bucketIndex(this.window, time);
    const breakdown = this.query.breakdown;
    this.query.series.forEach((series, order) => {
      if ((series.event !== null && event.event !== series.event) || !matchesProperties(event.properties, series.properties)) return;
      const value = breakdown === null ? '' : breakdownValue(event, breakdown);
      const tallies = this.tallies[order]!;
      let tally = tallies.get(value);
      if (!tally) tallies.set(value, (tally = new Tally(this.window.buckets.length, series.math === 'dau')));
      tally.add(bucket, event);
    });
  }

  /** One entry per series (per breakdown value when broken down: the 25 most frequent, then "other"). */
  results(): TrendsResult[] {
    const results: TrendsResult[] = [];
    this.query.series.forEach((series, order) => {
      const base = { action: actionOf(series, order), labels: this.window.labels, days: this.window.days };
      const label = series.customName ?? series.name;
      const buckets = this.window.buckets.length;
      const dau = series.math === 'dau';
      const tallies = this.tallies[order]!;
      if (this.query.breakdown === null) {
        const data = (tallies.get('') ?? new Tally(buckets, dau)).data();
        results.push({ ...base, label, count: sum(data), data });
        return;
      }
      const ranked = [...tallies.entries()].sort((a, b) => b[1].events - a[1].events || a[0].localeCompare(b[0]));
      const kept = ranked.slice(0, BREAKDOWN_LIMIT);
      const rest = ranked.slice(BREAKDOWN_LIMIT).map(([, tally]) => tally);
      if (rest.length > 0) kept.push([BREAKDOWN_OTHER, Tally.merge(rest, buckets, dau)]);
      for (const [value, tally] of kept) {
        const data = tally.data();
        results.push({ ...base, label: `${label} - ${value}`, count: sum(data), data, breakdown_value: value });
      }
    });
    return results;
  }
}

function actionOf(series: TrendsSeries, order: number): Record<string, unknown> {
  return {
    id: series.event,
    type: 'events',
    order,
    name: series.name,
    custom_name: series.customName,
    math: series.math,
    math_property: null,
    properties: series.properties,
  };
}

const sum = (data: number[]) => data.reduce((a, b) => a + b, 0);
