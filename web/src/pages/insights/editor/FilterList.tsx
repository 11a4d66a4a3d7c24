import { ActionIcon, Button, Group, NativeSelect, Stack, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { isValueless, PROPERTY_OPERATORS } from '../../../api/operators';
import type { PropertyFilter } from '../../../api/types';
import { PropertyPicker } from './PropertyPicker';

/** The operators event property filters of insights take (PostHog's basic ones; no dates yet). */
const OPERATORS = PROPERTY_OPERATORS.filter((o) => !o.value.startsWith('is_date'));

/** The value, as typed: applied on Enter or when left, so the query does not run at every key. */
function ValueInput({ value, onCommit, label }: { value: string; onCommit: (value: string) => void; label: string }) {
  const [typed, setTyped] = useState(value);
  useEffect(() => setTyped(value), [value]);
  return (
    <TextInput
      aria-label={label}
      placeholder="value"
      w={180}
      value={typed}
      onChange={(e) => setTyped(e.currentTarget.value)}
      onBlur={() => typed !== value && onCommit(typed)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && typed !== value) onCommit(typed);
      }}
    />
  );
}

const valueText = (value: PropertyFilter['value']) =>
  Array.isArray(value) ? value.join(', ') : value === null || value === undefined ? '' : String(value);

/** Event property filters (all must match): property, operator, value; added and removed. */
export function FilterList({
  environmentId,
  filters,
  onChange,
  addLabel = 'Add filter',
  name,
}: {
  environmentId: number;
  filters: PropertyFilter[];
  onChange: (filters: PropertyFilter[]) => void;
  addLabel?: string;
  /** Names the controls: "Filter" → "Filter 1 property". */
  name: string;
}) {
  const set = (i: number, change: Partial<PropertyFilter>) => onChange(filters.map((f, j) => (j === i ? { ...f, ...change } : f)));
  return (
    <Stack gap={6}>
      {filters.map((filter, i) => (
        <Group key={i} gap="xs" wrap="nowrap" data-testid="property-filter">
          <PropertyPicker
            environmentId={environmentId}
            label={`${name} ${i + 1} property`}
            value={filter.key}
            onChange={(key) => set(i, { key })}
            w={180}
          />
          <NativeSelect
            aria-label={`${name} ${i + 1} operator`}
            w={190}
            data={[...OPERATORS]}
            value={filter.operator}
            onChange={(e) => {
              const operator = e.currentTarget.value;
              set(i, isValueless(operator) ? { operator, value: undefined } : { operator });
            }}
          />
          {!isValueless(filter.operator) && (
            <ValueInput label={`${name} ${i + 1} value`} value={valueText(filter.value)} onCommit={(value) => set(i, { value })} />
          )}
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={`Remove ${name.toLowerCase()} ${i + 1}`}
            onClick={() => onChange(filters.filter((_, j) => j !== i))}
          >
            ×
          </ActionIcon>
        </Group>
      ))}
      <Group>
        <Button
          variant="subtle"
          size="compact-sm"
          onClick={() => onChange([...filters, { key: '', operator: 'exact', value: '', type: 'event' }])}
        >
          {addLabel}
        </Button>
      </Group>
    </Stack>
  );
}
