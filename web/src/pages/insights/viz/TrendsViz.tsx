import { useState } from 'react';
import { isTotalDisplay, type TrendsQuery, type TrendsResult } from '../../../api/insights';
import { useInsightQuery } from '../../../api/insights';
import { BoldNumber } from './BoldNumber';
import { InsightAnswer } from './InsightAnswer';
import { SeriesLegend } from './SeriesLegend';
import { TotalsChart } from './TotalsChart';
import { TrendsChart } from './TrendsChart';
import { TrendsTableViz } from './TrendsTableViz';
import { PersonsModal, type PersonsOf } from './PersonsModal';
import { personsOf, type ShownSeries } from './series';

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
      {([{ results }]) => <Display environmentId={environmentId} source={source} results={results} height={height} />}
    </InsightAnswer>
  );
}

/** The display asked for; a click on a value lists its persons (PostHog's persons modal). */
function Display({
  environmentId,
  source,
  results,
  height,
}: {
  environmentId: number;
  source: TrendsQuery;
  results: TrendsResult[];
  height: number;
}) {
  const [persons, setPersons] = useState<PersonsOf | null>(null);
  const onTotal = (series: ShownSeries) => setPersons(personsOf(source, series, null));
  const onValue = (series: ShownSeries, index: number) => setPersons(personsOf(source, series, index));
  return (
    <>
      <Chart source={source} results={results} height={height} onTotal={onTotal} onValue={onValue} />
      {persons && <PersonsModal environmentId={environmentId} of={persons} onClose={() => setPersons(null)} />}
    </>
  );
}

function Chart({
  source,
  results,
  height,
  onTotal,
  onValue,
}: {
  source: TrendsQuery;
  results: TrendsResult[];
  height: number;
  onTotal: (series: ShownSeries) => void;
  onValue: (series: ShownSeries, index: number) => void;
}) {
  const display = source.trendsFilter?.display ?? 'ActionsLineGraph';
  if (display === 'BoldNumber') return <BoldNumber results={results} onValue={onTotal} />;
  if (display === 'ActionsPie') {
    return (
      <>
        <TotalsChart results={results} height={height} as="pie" onValue={onTotal} />
        <SeriesLegend results={results.filter((r) => r.compare_label !== 'previous')} />
      </>
    );
  }
  // Total value bars, and PostHog's other totals (its world map) as those bars: the answer has no points to draw a line through.
  if (isTotalDisplay(display)) {
    return (
      <>
        <TotalsChart results={results} height={height} as="bars" onValue={onTotal} />
        <SeriesLegend results={results} />
      </>
    );
  }
  return (
    <>
      <TrendsChart results={results} type={display === 'ActionsBar' ? 'bar' : 'line'} height={height} onValue={onValue} />
      <SeriesLegend results={results} />
    </>
  );
}
