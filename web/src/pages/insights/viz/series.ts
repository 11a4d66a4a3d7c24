/** The trends series as the charts show them: a label each, current and previous periods apart. */
import type { TrendsQuery, TrendsResult } from '../../../api/insights';
import type { PersonsOf } from './PersonsModal';
import { breakdownLabel } from './format';

export interface ShownSeries {
  key: string;
  label: string;
  /** Colour index: the same for a series' current and previous period. */
  index: number;
  previous: boolean;
  result: TrendsResult;
}

export function seriesLabel(result: TrendsResult): string {
  if (result.breakdown_value === undefined) return result.label;
  const name = result.action.custom_name ?? result.action.name ?? result.label;
  return `${name} - ${breakdownLabel(result.breakdown_value)}`;
}

/**
 * The results in order, each previous-period entry (compareFilter) after its current one and
 * sharing its colour.
 */
export function shownSeries(results: TrendsResult[]): ShownSeries[] {
  const current = results.filter((r) => r.compare_label !== 'previous');
  const previous = results.filter((r) => r.compare_label === 'previous');
  const keyOf = (r: TrendsResult) => `${r.action.order}:${r.breakdown_value ?? ''}`;
  const shown: ShownSeries[] = [];
  current.forEach((result, index) => {
    shown.push({ key: `${keyOf(result)}:current`, label: seriesLabel(result), index, previous: false, result });
    const before = previous.find((p) => keyOf(p) === keyOf(result));
    if (before)
      shown.push({ key: `${keyOf(before)}:previous`, label: `${seriesLabel(before)} (previous)`, index, previous: true, result: before });
  });
  // A previous-period value with no current one still shows.
  previous
    .filter((p) => !current.some((c) => keyOf(c) === keyOf(p)))
    .forEach((result, i) =>
      shown.push({
        key: `${keyOf(result)}:previous`,
        label: `${seriesLabel(result)} (previous)`,
        index: current.length + i,
        previous: true,
        result,
      }),
    );
  return shown;
}

/** A series' value over the whole range: PostHog's aggregated value when answered, else the buckets' sum. */
export const totalOf = (result: TrendsResult): number => result.aggregated_value ?? result.count;

/** The persons modal of a series' value: at bucket `index`, or over the whole range (a total display) when null. */
export function personsOf(source: TrendsQuery, series: ShownSeries, index: number | null): PersonsOf {
  const { result } = series;
  const day = index === null ? undefined : result.days[index];
  return {
    title: index === null ? series.label : `${series.label} on ${result.labels[index] ?? day ?? ''}`,
    source: {
      kind: 'InsightActorsQuery',
      source,
      series: result.action.order,
      ...(day !== undefined ? { day } : {}),
      ...(result.breakdown_value !== undefined ? { breakdown: result.breakdown_value } : {}),
      ...(result.compare_label ? { compare: result.compare_label } : {}),
    },
  };
}
