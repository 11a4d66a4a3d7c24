/**
 * The web analytics page's tiles and the queries they ask, and those queries started as the
 * navigation to the page begins (routes.tsx), before the page's code has even loaded.
 */
import { webOverviewQuery, webStatsTableQuery, webVitalsQuery } from '../../api/web-analytics';
import { prefetch } from '../../query-client';
import { rangeProblem, readProperties, readRange } from './format';

/**
 * The tables. A row without a value is "(not set)" as PostHog labels it; a session without a
 * referrer is "(direct)" (posthog-js's own `$direct` is shown as sent, as PostHog does). A row
 * of a table with a `filter` sets that filter of the page (its address parameter) when clicked.
 */
export const TABLES: readonly { breakdownBy: string; title: string; column: string; noValue?: string; filter?: string }[] = [
  { breakdownBy: 'Page', title: 'Top pages', column: 'Path', filter: 'path' },
  { breakdownBy: 'InitialPage', title: 'Entry pages', column: 'Entry path', filter: 'path' },
  { breakdownBy: 'InitialReferringDomain', title: 'Referrers', column: 'Referring domain', noValue: '(direct)' },
  { breakdownBy: 'InitialChannelType', title: 'Channels', column: 'Channel' },
  { breakdownBy: 'Country', title: 'Countries', column: 'Country', filter: 'country' },
  { breakdownBy: 'Browser', title: 'Browsers', column: 'Browser' },
  { breakdownBy: 'DeviceType', title: 'Devices', column: 'Device type', filter: 'device' },
  { breakdownBy: 'OS', title: 'Operating systems', column: 'OS' },
];

export const METRICS = ['LCP', 'INP', 'CLS', 'FCP'] as const;
export const PERCENTILES = ['p75', 'p90'] as const;
/** Every metric at p75 and p90: one query each, as PostHog asks. */
export const VITALS_QUERIES = METRICS.flatMap((metric) => PERCENTILES.map((percentile) => ({ metric, percentile })));

/**
 * Asks every tile's query for the page at `params` (its address's filters), in the order the
 * page's own hooks ask them: the tables, the vitals, then the overview. (The server works out all
 * eight tables on the first table's request; the overview sent first, beside them, showed no gain
 * on two cores: docs/benchmarks.md.)
 */
export function prefetchWebAnalytics(environmentId: number, params: URLSearchParams): void {
  const range = readRange(params);
  // The page asks nothing for a range the server would refuse: it says what is wrong instead.
  if (rangeProblem(range)) return;
  const properties = readProperties(params);
  for (const { breakdownBy } of TABLES) prefetch(webStatsTableQuery(environmentId, breakdownBy, range, properties));
  for (const { metric, percentile } of VITALS_QUERIES) prefetch(webVitalsQuery(environmentId, metric, percentile, range, properties));
  prefetch(webOverviewQuery(environmentId, range, properties));
}
