import { useState } from 'react';
import type { TrendsQuery, TrendsResult } from '../../../api/insights';
import { tableDatesSource, useInsightQuery } from '../../../api/insights';
import { InsightAnswer } from './InsightAnswer';
import { PersonsModal, type PersonsOf } from './PersonsModal';
import { personsOf } from './series';
import { TrendsTable } from './TrendsTable';

/**
 * The table display: series × dates with a total each. The server answers a table query with one
 * value over the range per series (PostHog's aggregated_value, the total column); the dates come
 * from the same query asked as a line. A value lists its persons: a date's as the line's point, the
 * total's as the table query's whole range.
 */
export function TrendsTableViz({ environmentId, source, height }: { environmentId: number; source: TrendsQuery; height: number }) {
  const totals = useInsightQuery<TrendsResult[]>(environmentId, source);
  const dated = useInsightQuery<TrendsResult[]>(environmentId, tableDatesSource(source));
  const [persons, setPersons] = useState<PersonsOf | null>(null);
  return (
    <>
      <InsightAnswer answers={[totals, dated]} kind="TrendsQuery" height={height} isEmpty={([, byDate]) => byDate.results.length === 0}>
        {([{ results: totalResults }, { results }]) => (
          <TrendsTable
            results={results}
            totals={totalResults}
            onValue={(series, index) =>
              setPersons(index === null ? personsOf(source, series, null) : personsOf(tableDatesSource(source), series, index))
            }
          />
        )}
      </InsightAnswer>
      {persons && <PersonsModal environmentId={environmentId} of={persons} onClose={() => setPersons(null)} />}
    </>
  );
}
