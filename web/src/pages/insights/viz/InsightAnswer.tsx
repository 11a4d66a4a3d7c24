import { Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { InsightSource, QueryResponse } from '../../../api/insights';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { Loading } from '../../../components/Loading';

type Answer = UseQueryResult<QueryResponse<unknown>>;
/** The answers' data, in their order. */
type DataOf<A extends readonly Answer[]> = { [K in keyof A]: NonNullable<A[K]['data']> };

export interface InsightAnswerProps<A extends readonly Answer[]> {
  /** The queries the view draws from (most views one; the trends table two); the first gives the time zone. */
  answers: A;
  kind: InsightSource['kind'];
  height: number;
  errorTitle?: string;
  /** True when the answers hold nothing to draw: the view then says so instead. */
  isEmpty?: (data: DataOf<A>) => boolean;
  children: (data: DataOf<A>) => ReactNode;
}

/**
 * What every insight view shows around its chart: a spinner until its queries have answered, the
 * first failure, "No results" for an empty answer, and otherwise the chart in the `insight-viz`
 * box that pages and tests read (its kind, its time zone, and whether a newer answer is on its way).
 */
export function InsightAnswer<const A extends readonly Answer[]>({
  answers,
  kind,
  height,
  errorTitle = 'The query failed',
  isEmpty,
  children,
}: InsightAnswerProps<A>) {
  const failed = answers.find((answer) => answer.error);
  if (failed?.error) return <ErrorAlert message={failed.error.message} title={errorTitle} />;
  if (answers.some((answer) => answer.data === undefined)) return <Loading h={height} />;
  const data = answers.map((answer) => answer.data) as unknown as DataOf<A>;
  return (
    <div
      data-testid="insight-viz"
      data-kind={kind}
      data-timezone={answers[0]?.data?.timezone ?? ''}
      aria-busy={answers.some((answer) => answer.isFetching)}
    >
      {isEmpty?.(data) ? <Text c="dimmed">No results for this query.</Text> : children(data)}
    </div>
  );
}
