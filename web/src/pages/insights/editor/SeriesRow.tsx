import { ActionIcon, Badge, Button, Group, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { EventsNode, TrendsMath } from '../../../api/insights';
import { EventPicker } from './EventPicker';
import { FilterList } from './FilterList';
import { PropertyPicker } from './PropertyPicker';
import { MATH_OPTIONS, PROPERTY_MATHS } from './query-defaults';

/**
 * One series of a trends query (or one step of a funnel, without maths): its event, its math
 * (with the property a property math aggregates) and its own property filters.
 */
export function SeriesRow({
  environmentId,
  node,
  index,
  noun,
  withMath,
  onChange,
  onRemove,
}: {
  environmentId: number;
  node: EventsNode;
  index: number;
  /** "Series" or "Step". */
  noun: string;
  withMath: boolean;
  onChange: (node: EventsNode) => void;
  onRemove?: () => void;
}) {
  const [filtering, setFiltering] = useState((node.properties?.length ?? 0) > 0);
  const math = node.math ?? 'total';
  const label = `${noun} ${index + 1}`;
  return (
    <Paper withBorder p="xs" data-testid="series-editor">
      <Stack gap={6}>
        <Group gap="xs" wrap="wrap">
          <Badge variant="light" circle>
            {noun === 'Step' ? index + 1 : String.fromCharCode(65 + (index % 26))}
          </Badge>
          <EventPicker
            environmentId={environmentId}
            label={`${label} event`}
            value={node.event}
            onChange={(event) => onChange({ ...node, event, name: event ?? 'All events' })}
          />
          {withMath && (
            <NativeSelect
              aria-label={`${label} math`}
              w={200}
              data={MATH_OPTIONS}
              value={math}
              onChange={(e) => {
                const next = e.currentTarget.value as TrendsMath;
                onChange({ ...node, math: next, ...(PROPERTY_MATHS.has(next) ? {} : { math_property: undefined }) });
              }}
            />
          )}
          {withMath && PROPERTY_MATHS.has(math) && (
            <PropertyPicker
              environmentId={environmentId}
              numerical
              label={`${label} math property`}
              placeholder="numeric property"
              value={node.math_property ?? ''}
              onChange={(property) => onChange({ ...node, math_property: property || undefined })}
            />
          )}
          {!filtering && (
            <Button variant="subtle" size="compact-sm" onClick={() => setFiltering(true)}>
              Filter
            </Button>
          )}
          {onRemove && (
            <ActionIcon variant="subtle" color="gray" aria-label={`Remove ${label.toLowerCase()}`} onClick={onRemove}>
              ×
            </ActionIcon>
          )}
        </Group>
        {filtering && (
          <FilterList
            environmentId={environmentId}
            name={`${label} filter`}
            filters={node.properties ?? []}
            onChange={(properties) => onChange({ ...node, properties })}
          />
        )}
      </Stack>
    </Paper>
  );
}

/**
 * The builder's list of series (trends) or steps (funnels): a row each, removable down to `min`,
 * and a button that adds `added`.
 */
export function SeriesList({
  environmentId,
  series,
  onChange,
  noun,
  withMath,
  min,
  max = Infinity,
  added,
}: {
  environmentId: number;
  series: EventsNode[];
  onChange: (series: EventsNode[]) => void;
  noun: 'Series' | 'Step';
  withMath: boolean;
  min: number;
  /** The most series the query takes (a lifecycle: one). */
  max?: number;
  added: EventsNode;
}) {
  return (
    <Stack gap={6}>
      <Text fw={600}>{noun === 'Step' ? 'Steps' : 'Series'}</Text>
      {series.map((node, i) => (
        <SeriesRow
          key={i}
          environmentId={environmentId}
          node={node}
          index={i}
          noun={noun}
          withMath={withMath}
          onChange={(next) => onChange(series.map((s, j) => (j === i ? next : s)))}
          onRemove={series.length > min ? () => onChange(series.filter((_, j) => j !== i)) : undefined}
        />
      ))}
      {series.length < max && (
        <Group>
          <Button variant="light" size="compact-sm" onClick={() => onChange([...series, added])}>
            Add {noun.toLowerCase()}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
