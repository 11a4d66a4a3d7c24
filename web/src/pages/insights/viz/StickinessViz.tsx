import { useState } from 'react';
import type { StickinessQuery, StickinessResult } from '../../../api/insights';
import { useInsightQuery } from '../../../api/insights';
import { colourOf, overTimeOptions } from './chart';
import { ChartCanvas } from './ChartCanvas';
import { ChartLegend } from './ChartLegend';
import { InsightAnswer } from './InsightAnswer';
import { PersonsModal, type PersonsOf } from './PersonsModal';

/** Stickiness as PostHog draws it: a bar per number of intervals active, a colour per series; a bar lists its persons. */
export function StickinessViz({ environmentId, source, height }: { environmentId: number; source: StickinessQuery; height: number }) {
  const answer = useInsightQuery<StickinessResult[]>(environmentId, source);
  const [persons, setPersons] = useState<PersonsOf | null>(null);
  return (
    <>
      <InsightAnswer answers={[answer]} kind="StickinessQuery" height={height} isEmpty={([{ results }]) => results.length === 0}>
        {([{ results }]) => {
          const shown = results.map((r) => ({
            label: `${r.action.custom_name ?? r.label}${r.compare_label === 'previous' ? ' (previous)' : ''}`,
            data: r.data,
            previous: r.compare_label === 'previous',
            index: r.action.order,
          }));
          return (
            <>
              <ChartCanvas
                testId="stickiness-chart"
                height={height}
                onElement={(dataset, index) => {
                  const result = results[dataset]!;
                  setPersons({
                    title: `${shown[dataset]!.label}: active ${result.labels[index] ?? index + 1}`,
                    source: {
                      kind: 'StickinessActorsQuery',
                      source,
                      day: index + 1,
                      series: result.action.order,
                      ...(result.compare_label ? { compare: result.compare_label } : {}),
                    },
                  });
                }}
                described={JSON.stringify(shown.map((s) => ({ label: s.label, data: s.data })))}
                label={shown.map((s) => `${s.label}: ${s.data.join(', ')}`).join('; ')}
                config={() => ({
                  type: 'bar',
                  data: {
                    labels: results[0]?.labels ?? [],
                    datasets: shown.map((s) => ({
                      label: s.label,
                      data: s.data,
                      backgroundColor: s.previous ? `${colourOf(s.index)}55` : colourOf(s.index),
                    })),
                  },
                  options: overTimeOptions({ beginAtZero: true, ticks: { precision: 0 } }),
                })}
              />
              <ChartLegend
                entries={shown.map((s, i) => ({
                  key: String(i),
                  colour: colourOf(s.index),
                  label: s.label,
                  total: results[i]!.count,
                  faded: s.previous,
                }))}
              />
            </>
          );
        }}
      </InsightAnswer>
      {persons && <PersonsModal environmentId={environmentId} of={persons} onClose={() => setPersons(null)} />}
    </>
  );
}
