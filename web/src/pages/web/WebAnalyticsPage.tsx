import { Alert, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useMemo, type KeyboardEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useWebOverview, type WebOverviewItem, type WebRange } from '../../api/web-analytics';
import type { PropertyFilter } from '../../api/types';
import { DateRangeControl } from '../../components/DateRangeControl';
import { hasPreviousPeriod } from '../../lib/date-range';
import { useEnvironment } from '../../shell/ProjectScope';
import { FILTERS, formatTile, rangeProblem, readProperties, readRange, TILE_LABELS } from './format';
import { TABLES } from './tiles';
import { StatsTable, VitalsTable } from './WebTables';

/** A text filter written to the address when left or on Enter (not on every key). */
function FilterInput({ label, value, onCommit }: { label: string; value: string; onCommit: (value: string) => void }) {
  const commit = (text: string) => {
    if (text.trim() !== value) onCommit(text.trim());
  };
  return (
    <TextInput
      key={value}
      label={label}
      defaultValue={value}
      w={160}
      onBlur={(e) => commit(e.currentTarget.value)}
      onKeyDown={(e: KeyboardEvent<HTMLInputElement>) => {
        if (e.key === 'Enter') commit(e.currentTarget.value);
      }}
    />
  );
}

/** A filter of a fixed set of values; one from the address outside it (an old link) stays shown. */
function FilterSelect({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: readonly string[];
  value: string;
  onChange: (value: string) => void;
}) {
  const data = value && !options.includes(value) ? [...options, value] : [...options];
  return <Select label={label} placeholder="Any" w={160} clearable data={data} value={value || null} onChange={(v) => onChange(v ?? '')} />;
}

/**
 * The change from the previous period. The API gives no percentage when the previous value is
 * 0 (or missing): that is 'no previous data' only when there was none, not for a real 0.
 */
function changeText(item: WebOverviewItem): string {
  const change = item.changeFromPreviousPct;
  if (change !== null) return `${change > 0 ? '▲' : change < 0 ? '▼' : '='} ${Math.abs(change)}%`;
  if (item.previous === null) return 'no previous data';
  if (item.value === item.previous) return 'no change';
  if (item.value === null) return 'no data in this range';
  return `${item.value > item.previous ? '▲' : '▼'} from ${formatTile(item.kind, item.previous)}`;
}

function Tile({ item, compared }: { item: WebOverviewItem; compared: boolean }) {
  const change = item.changeFromPreviousPct;
  const good = change === null || change === 0 ? null : change > 0 !== Boolean(item.isIncreaseBad);
  return (
    <Paper withBorder p="sm" data-testid={`tile-${item.key.replace(' ', '-')}`}>
      <Text size="xs" c="dimmed" tt="uppercase">
        {TILE_LABELS[item.key] ?? item.key}
      </Text>
      <Text fz={28} fw={700} data-testid="tile-value">
        {formatTile(item.kind, item.value)}
      </Text>
      {compared && (
        <>
          <Text size="sm" c={good === null ? 'dimmed' : good ? 'green' : 'red'} data-testid="tile-change">
            {changeText(item)}
          </Text>
          <Text size="xs" c="dimmed">
            before: {formatTile(item.kind, item.previous)}
          </Text>
        </>
      )}
    </Paper>
  );
}

function Overview({ environmentId, range, properties }: { environmentId: number; range: WebRange; properties: PropertyFilter[] }) {
  const overview = useWebOverview(environmentId, range, properties);
  return (
    <>
      {overview.isError && (
        <Alert color="red" role="alert">
          {overview.error.message}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 2, md: 5 }} data-testid="web-overview" aria-busy={overview.isPending}>
        {overview.data?.results.map((item) => (
          <Tile key={item.key} item={item} compared={hasPreviousPeriod(range.date_from)} />
        ))}
      </SimpleGrid>
    </>
  );
}

/** `/project/:id/web`: PostHog's web analytics page, every tile under the same range and filters. */
export function Component() {
  const environment = useEnvironment();
  const [params, setParams] = useSearchParams();
  const range = useMemo(() => readRange(params), [params]);
  const properties = useMemo(() => readProperties(params), [params]);
  // Every tile would be refused alike: say it once, and ask nothing until the range is readable.
  const problem = rangeProblem(range);

  const setParam = useCallback(
    (values: Record<string, string | null>) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [name, value] of Object.entries(values)) {
            if (value) next.set(name, value);
            else next.delete(name);
          }
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );

  return (
    <Stack gap="md">
      <Title order={2}>Web analytics</Title>
      <Group align="flex-end" gap="sm" data-testid="web-filters">
        <DateRangeControl
          value={range}
          marked={problem?.field ?? null}
          onChange={(next) => setParam({ from: next.date_from, to: next.date_to, date_from: null, date_to: null })}
        />
        {FILTERS.map((f) =>
          f.options ? (
            <FilterSelect
              key={f.param}
              label={f.label}
              options={f.options}
              value={params.get(f.param) ?? ''}
              onChange={(v) => setParam({ [f.param]: v })}
            />
          ) : (
            <FilterInput key={f.param} label={f.label} value={params.get(f.param) ?? ''} onCommit={(v) => setParam({ [f.param]: v })} />
          ),
        )}
      </Group>
      {problem ? (
        <Alert color="red" role="alert" title="Check the date range" data-testid="web-range-problem">
          {problem.message}
        </Alert>
      ) : (
        <>
          <Overview environmentId={environment.id} range={range} properties={properties} />
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            {TABLES.map((t) => (
              <StatsTable
                key={t.breakdownBy}
                environmentId={environment.id}
                {...t}
                range={range}
                properties={properties}
                active={t.filter ? (params.get(t.filter)?.trim() ?? '') : ''}
                onFilter={setParam}
              />
            ))}
          </SimpleGrid>
          <VitalsTable environmentId={environment.id} range={range} properties={properties} />
        </>
      )}
    </Stack>
  );
}
