import { Button, Group, NativeSelect, NumberInput, Paper, Stack, Text, Title } from '@mantine/core';
import { Controller, useFieldArray, type UseFormReturn } from 'react-hook-form';
import { emptyCondition, emptyProperty, type FlagForm } from './flag-form';
import { PropertyFilterRow } from './PropertyFilterRow';
import { ErrorText } from '../../components/ErrorAlert';

interface Props {
  form: UseFormReturn<FlagForm>;
  cohorts: { id: number; name: string }[];
  /** The group type's name when the flag aggregates by groups. */
  groupTypeName: string | null;
}

/** One condition set: its property filters (ANDed), rollout and, for multivariate flags, a forced variant. */
function Condition({ form, index, cohorts, groupTypeName, onRemove }: Props & { index: number; onRemove?: () => void }) {
  const properties = useFieldArray({ control: form.control, name: `conditions.${index}.properties` });
  const multivariate = form.watch('multivariate');
  const variants = form.watch('variants');
  const aggregation = form.watch('aggregation');
  const subject = groupTypeName ?? 'users';
  return (
    <Paper withBorder p="sm" data-testid="condition">
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={600}>Condition set {index + 1}</Text>
          {onRemove && (
            <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove}>
              Remove condition set
            </Button>
          )}
        </Group>
        {properties.fields.length === 0 && (
          <Text size="sm" c="dimmed">
            Matches all {subject}.
          </Text>
        )}
        {properties.fields.map((field, p) => (
          <PropertyFilterRow<FlagForm>
            key={field.id}
            name={`conditions.${index}.properties.${p}`}
            register={form.register}
            watch={form.watch}
            setValue={form.setValue}
            // Group flags filter on the group's properties only (PostHog refuses cohorts there).
            cohorts={groupTypeName ? undefined : cohorts}
            propertyLabel={groupTypeName ? `${groupTypeName} property` : 'Person property'}
            groupTypeIndex={groupTypeName ? Number(aggregation) : null}
            keyError={form.getFieldState(`conditions.${index}.properties.${p}.key`, form.formState).error?.message}
            onRemove={() => properties.remove(p)}
          />
        ))}
        <Group align="flex-end" gap="md">
          <Button size="xs" variant="default" onClick={() => properties.append(emptyProperty())}>
            Add property filter
          </Button>
          <Controller
            control={form.control}
            name={`conditions.${index}.rollout`}
            render={({ field }) => (
              <NumberInput
                label={`Roll out to (% of ${subject})`}
                min={0}
                max={100}
                clampBehavior="strict"
                allowDecimal
                w={200}
                value={field.value}
                onChange={(value) => field.onChange(typeof value === 'number' ? value : Number(value) || 0)}
              />
            )}
          />
          {multivariate && (
            <NativeSelect
              label="Variant override"
              w={200}
              data={[{ value: '', label: 'None (split as below)' }, ...variants.map((v) => ({ value: v.key, label: v.key }))]}
              {...form.register(`conditions.${index}.variant`)}
            />
          )}
        </Group>
      </Stack>
    </Paper>
  );
}

/** The flag's release conditions: any matching set releases the flag to its rollout share. */
export function ReleaseConditions(props: Props & { error?: string }) {
  const conditions = useFieldArray({ control: props.form.control, name: 'conditions' });
  return (
    <Stack gap="sm">
      <Title order={4}>Release conditions</Title>
      <Text size="sm" c="dimmed">
        Condition sets are OR-ed: anyone matching a set gets the flag at that set&apos;s rollout. Filters within a set are AND-ed.
      </Text>
      {conditions.fields.map((field, index) => (
        <Condition
          key={field.id}
          {...props}
          index={index}
          onRemove={conditions.fields.length > 1 ? () => conditions.remove(index) : undefined}
        />
      ))}
      <Group>
        <Button size="xs" variant="light" onClick={() => conditions.append(emptyCondition())}>
          Add condition set
        </Button>
      </Group>
      <ErrorText message={props.error} testId="conditions-error" />
    </Stack>
  );
}
