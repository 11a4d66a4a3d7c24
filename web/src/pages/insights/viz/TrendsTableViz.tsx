import type { TrendsQuery, TrendsResult } from '../../../api/insights';
import { tableDatesSource, useInsightQuery } from '../../../api/insights';
import { InsightAnswer } from './InsightAnswer';
import { TrendsTable } from './TrendsTable';

/**
 * The table display: series × dates with a total each. The server answers a table query with one
 * value over the range per series (PostHog's aggregated_value, the total column); the dates come
 * from the same query asked as a line.
 */
export function TrendsTableViz({ environmentId, source, height }: { environmentId: number; source: TrendsQuery; height: number }) {
  const totals = useInsightQuery<TrendsResult[]>(environmentId, source);
  const dated = useInsightQuery<TrendsResult[]>(environmentId, tableDatesSource(source));
  return (
    <InsightAnswer answers={[totals, dated]} kind="TrendsQuery" height={height} isEmpty={([, byDate]) => byDate.results.length === 0}>
      {([{ results: totalResults }, { results }]) => <TrendsTable results={results} totals={totalResults} />}
    </InsightAnswer>
  );
}
