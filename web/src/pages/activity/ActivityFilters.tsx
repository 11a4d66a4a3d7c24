import { ActionIcon, Button, Group, NativeSelect, Stack, TextInput } from '@mantine/core';
import { useFieldArray, useForm } from 'react-hook-form';
import { isValueless } from '../../api/operators';
import { OPERATORS, RANGES, type ActivityFilters as Filters } from './filters';

/** The filter form: applied on submit, so typing does not query on every key. */
export function ActivityFilters({ value, onApply }: { value: Filters; onApply: (filters: Filters) => void }) {
  const form = useForm<Filters>({ values: value });
  const properties = useFieldArray({ control: form.control, name: 'properties' });
  const watched = form.watch('properties');
  const range = form.watch('range');
  return (
    <form onSubmit={(e) => void form.handleSubmit(onApply)(e)} aria-label="Filters">
      <Stack gap="xs">
        <Group align="flex-end" gap="xs">
          <TextInput label="Event" placeholder="any event" w={200} {...form.register('event')} />
          <TextInput label="Person (distinct id)" placeholder="anyone" w={220} {...form.register('distinctId')} />
          <NativeSelect label="Time" data={RANGES.map((r) => ({ value: r.value, label: r.label }))} w={160} {...form.register('range')} />
          {range === 'custom' && (
            <>
              <TextInput label="From (your time)" type="datetime-local" w={210} {...form.register('from')} />
              <TextInput label="To (your time)" type="datetime-local" w={210} {...form.register('to')} />
            </>
          )}
          <Button variant="default" onClick={() => properties.append({ key: '', operator: 'exact', value: '' })}>
            Add property filter
          </Button>
          <Button type="submit">Apply</Button>
        </Group>
        {properties.fields.map((field, index) => (
          <Group key={field.id} gap="xs" align="flex-end" data-testid="property-filter">
            <TextInput
              aria-label="Property"
              placeholder="property, e.g. $current_url"
              w={220}
              {...form.register(`properties.${index}.key`)}
            />
            <NativeSelect
              aria-label="Operator"
              data={OPERATORS.map((o) => ({ value: o.value, label: o.label }))}
              w={200}
              {...form.register(`properties.${index}.operator`)}
            />
            {!isValueless(watched[index]?.operator ?? 'exact') && (
              <TextInput aria-label="Value" placeholder="value" w={220} {...form.register(`properties.${index}.value`)} />
            )}
            <ActionIcon variant="subtle" color="gray" aria-label="Remove this filter" onClick={() => properties.remove(index)}>
              ×
            </ActionIcon>
          </Group>
        ))}
      </Stack>
    </form>
  );
}
