import { Stack } from '@mantine/core';
import { useState } from 'react';
import type { FunnelsQuery, FunnelStepResult, FunnelTrendsResult, TimeToConvertResult } from '../../../api/insights';
import { funnelStepsSource, useInsightQuery } from '../../../api/insights';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { Loading } from '../../../components/Loading';
import { funnelGroups, stepName, type FunnelGroup } from './funnel';
import { PersonsModal, type PersonsOf } from './PersonsModal';
import { FunnelSteps } from './FunnelSteps';
import { FunnelTable } from './FunnelTable';
import { FunnelTrendsChart } from './FunnelTrendsChart';
import { InsightAnswer } from './InsightAnswer';
import { TimeToConvert } from './TimeToConvert';

/** The steps view of a funnel (its steps, or with `table`, the conversion table under them). */
function StepsView({
  environmentId,
  source,
  height,
  table,
}: {
  environmentId: number;
  source: FunnelsQuery;
  height: number;
  table: boolean;
}) {
  const stepsSource = funnelStepsSource(source);
  const answer = useInsightQuery<FunnelStepResult[] | FunnelStepResult[][]>(environmentId, stepsSource);
  const [persons, setPersons] = useState<PersonsOf | null>(null);
  const onPersons = (group: FunnelGroup, step: number, reached: boolean) => {
    const name = `${step + 1}. ${group.steps[step] ? stepName(group.steps[step]) : ''}`;
    setPersons({
      title: `${reached ? 'Reached' : 'Dropped off before'} ${name}${group.label === null ? '' : ` (${group.label})`}`,
      source: {
        kind: 'FunnelsActorsQuery',
        source: stepsSource,
        funnelStep: reached ? step + 1 : -(step + 1),
        ...(group.breakdown ? { funnelStepBreakdown: group.breakdown } : {}),
      },
    });
  };
  return (
    <InsightAnswer answers={[answer]} kind="FunnelsQuery" height={height} isEmpty={([{ results }]) => funnelGroups(results).length === 0}>
      {([{ results }]) => {
        const groups = funnelGroups(results);
        return (
          <Stack>
            <FunnelSteps groups={groups} height={table ? undefined : height} onPersons={onPersons} />
            {table && <FunnelTable groups={groups} />}
            {persons && <PersonsModal environmentId={environmentId} of={persons} onClose={() => setPersons(null)} />}
          </Stack>
        );
      }}
    </InsightAnswer>
  );
}

function TimeToConvertView({ environmentId, source, height }: { environmentId: number; source: FunnelsQuery; height: number }) {
  const answer = useInsightQuery<TimeToConvertResult>(environmentId, source);
  return (
    <InsightAnswer answers={[answer]} kind="FunnelsQuery" height={height} errorTitle="Time to convert could not be computed">
      {([{ results }]) => <TimeToConvert result={results} height={height} />}
    </InsightAnswer>
  );
}

/** The historical trends view: the conversion rate per interval, a line per breakdown value. */
function TrendsView({ environmentId, source, height }: { environmentId: number; source: FunnelsQuery; height: number }) {
  const answer = useInsightQuery<FunnelTrendsResult[]>(environmentId, source);
  return (
    <InsightAnswer answers={[answer]} kind="FunnelsQuery" height={height} isEmpty={([{ results }]) => results.length === 0}>
      {([{ results }]) => <FunnelTrendsChart results={results} height={height} />}
    </InsightAnswer>
  );
}

/**
 * A funnel query, shown as its `funnelsFilter.funnelVizType` asks: the steps, the time to
 * convert, or the historical trends. `detailed` (the insight page) adds the conversion table, with
 * each step's average and median time, under the steps and the time to convert.
 */
export function FunnelViz({
  environmentId,
  source,
  height,
  detailed = false,
}: {
  environmentId: number;
  source: FunnelsQuery;
  height: number;
  detailed?: boolean;
}) {
  if (source.funnelsFilter?.funnelVizType === 'trends') return <TrendsView environmentId={environmentId} source={source} height={height} />;
  if (source.funnelsFilter?.funnelVizType === 'time_to_convert') {
    return (
      <Stack>
        <TimeToConvertView environmentId={environmentId} source={source} height={height} />
        {detailed && <StepsTable environmentId={environmentId} source={source} />}
      </Stack>
    );
  }
  return <StepsView environmentId={environmentId} source={source} height={height} table={detailed} />;
}

/** The conversion table alone (its per-step times), under the time to convert. */
function StepsTable({ environmentId, source }: { environmentId: number; source: FunnelsQuery }) {
  const answer = useInsightQuery<FunnelStepResult[] | FunnelStepResult[][]>(environmentId, funnelStepsSource(source));
  if (answer.isPending) return <Loading h={80} />;
  if (answer.error) return <ErrorAlert message={answer.error.message} />;
  return <FunnelTable groups={funnelGroups(answer.data.results)} />;
}
