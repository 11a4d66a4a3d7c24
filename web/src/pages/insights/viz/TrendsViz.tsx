import { isTotalDisplay, type TrendsQuery, type TrendsResult } from '../../../api/insights';
import { useInsightQuery } from '../../../api/insights';
import { BoldNumber } from './BoldNumber';
import { InsightAnswer } from './InsightAnswer';
import { SeriesLegend } from './SeriesLegend';
import { TotalsChart } from './TotalsChart';
import { TrendsChart } from './TrendsChart';
import { TrendsTableViz } from './TrendsTableViz';

/** A trends query, run and shown as its `trendsFilter.display` asks: line, bars, pie, number or table. */
export function TrendsViz({ environmentId, source, height }: { environmentId: number; source: TrendsQuery; height: number }) {
  if (source.trendsFilter?.display === 'ActionsTable')
    return <TrendsTableViz environmentId={environmentId} source={source} height={height} />;
  return <TrendsChartViz environmentId={environmentId} source={source} height={height} />;
}

function TrendsChartViz({ environmentId, source, height }: { environmentId: number; source: TrendsQuery; height: number }) {
  const answer = useInsightQuery<TrendsResult[]>(environmentId, source);
  return (
    <InsightAnswer answers={[answer]} kind="TrendsQuery" height={height} isEmpty={([{ results }]) => results.length === 0}>
      {([{ results }]) => <Display source={source} results={results} height={height} />}
    </InsightAnswer>
  );
}

function Display({ source, results, height }: { source: TrendsQuery; results: TrendsResult[]; height: number }) {
  const display = source.trendsFilter?.display ?? 'ActionsLineGraph';
  if (display === 'BoldNumber') return <BoldNumber results={results} />;
  if (display === 'ActionsPie') {
    return (
      <>
        <TotalsChart results={results} height={height} as="pie" />
        <SeriesLegend results={results.filter((r) => r.compare_label !== 'previous')} />
      </>
    );
  }
  // Total value bars, and PostHog's other totals (its world map) as those bars: the answer has no points to draw a line through.
  if (isTotalDisplay(display)) {
    return (
      <>
        <TotalsChart results={results} height={height} as="bars" />
        <SeriesLegend results={results} />
      </>
    );
  }
  return (
    <>
      <TrendsChart results={results} type={display === 'ActionsBar' ? 'bar' : 'line'} height={height} />
      <SeriesLegend results={results} />
    </>
  );
}
