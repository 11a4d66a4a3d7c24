import { Text } from '@mantine/core';
import type { TrendsQuery, TrendsResult } from '../../../api/insights';
import { tableDatesSource, useInsightQuery } from '../../../api/insights';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { Loading } from '../../../components/Loading';
import { TrendsTable } from './TrendsTable';

/**
 * The table display: series × dates with a total each. The server answers a table query with one
 * value over the range per series (PostHog's aggregated_value, the total column); the dates come
 * from the same query asked as a line.
 */
export function TrendsTableViz({ environmentId, source, height }: { environmentId: number; source: TrendsQuery; height: number }) {
  const totals = useInsightQuery<TrendsResult[]>(environmentId, source);
  const dated = useInsightQuery<TrendsResult[]>(environmentId, tableDatesSource(source));
  const error = totals.error ?? dated.error;
  if (error) return <ErrorAlert message={error.message} title="The query failed" />;
  if (!totals.data || !dated.data) return <Loading h={height} />;
  return (
    <div
      data-testid="insight-viz"
      data-kind="TrendsQuery"
      data-timezone={totals.data.timezone ?? ''}
      aria-busy={totals.isFetching || dated.isFetching}
    >
      {dated.data.results.length === 0 ? (
        <Text c="dimmed">No results for this query.</Text>
      ) : (
        <TrendsTable results={dated.data.results} totals={totals.data.results} />
      )}
    </div>
  );
}
