import { useState } from 'react';
import type { LifecycleQuery, LifecycleResult } from '../../../api/insights';
import { useInsightQuery } from '../../../api/insights';
import { overTimeOptions } from './chart';
import { ChartLegend } from './ChartLegend';
import { ChartCanvas } from './ChartCanvas';
import { InsightAnswer } from './InsightAnswer';
import { PersonsModal, type PersonsOf } from './PersonsModal';

/** PostHog's lifecycle colours: new green, returning blue, resurrecting purple, dormant red. */
const STATUS_COLOURS: Record<LifecycleResult['status'], string> = {
  new: '#388600',
  returning: '#1d4aff',
  resurrecting: '#a56eff',
  dormant: '#db3707',
};

const STATUS_NAMES: Record<LifecycleResult['status'], string> = {
  new: 'New',
  returning: 'Returning',
  resurrecting: 'Resurrecting',
  dormant: 'Dormant',
};

/** The lifecycle as PostHog draws it: stacked bars per interval, dormant persons below zero; a bar lists its persons. */
export function LifecycleViz({ environmentId, source, height }: { environmentId: number; source: LifecycleQuery; height: number }) {
  const answer = useInsightQuery<LifecycleResult[]>(environmentId, source);
  const [persons, setPersons] = useState<PersonsOf | null>(null);
  const onBar = (results: LifecycleResult[]) => (dataset: number, index: number) => {
    const { status, days, labels } = results[dataset]!;
    setPersons({
      title: `${STATUS_NAMES[status]} on ${labels[index] ?? days[index]}`,
      source: { kind: 'InsightActorsQuery', source, day: days[index]!, status },
    });
  };
  return (
    <>
      <InsightAnswer answers={[answer]} kind="LifecycleQuery" height={height} isEmpty={([{ results }]) => results.length === 0}>
        {([{ results }]) => (
          <>
            <ChartCanvas
              testId="lifecycle-chart"
              height={height}
              onElement={onBar(results)}
              described={JSON.stringify(results.map((r) => ({ status: r.status, data: r.data, days: r.days })))}
              label={results.map((r) => `${STATUS_NAMES[r.status]}: ${r.data.join(', ')}`).join('; ')}
              config={() => ({
                type: 'bar',
                data: {
                  labels: results[0]?.labels ?? [],
                  datasets: results.map((r) => ({
                    label: STATUS_NAMES[r.status],
                    data: r.data,
                    backgroundColor: STATUS_COLOURS[r.status],
                  })),
                },
                options: {
                  ...overTimeOptions({ stacked: true, ticks: { precision: 0 } }),
                  scales: { x: { stacked: true }, y: { stacked: true, ticks: { precision: 0 } } },
                },
              })}
            />
            <ChartLegend
              entries={results.map((r) => ({
                key: r.status,
                colour: STATUS_COLOURS[r.status],
                label: STATUS_NAMES[r.status],
                total: r.count,
              }))}
            />
          </>
        )}
      </InsightAnswer>
      {persons && <PersonsModal environmentId={environmentId} of={persons} onClose={() => setPersons(null)} />}
    </>
  );
}
