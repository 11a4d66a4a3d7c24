import { ActionIcon, Button, Group, NumberInput, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { Controller, useFieldArray, type UseFormReturn } from 'react-hook-form';
import { splitTotal, type FlagForm } from './flag-form';
import { ErrorText } from '../../components/ErrorAlert';

/**
 * Boolean or multivariate: the variants with their split (PostHog requires 100 in total; the API's
 * refusal is shown under the split), and the payloads, JSON text per variant or for `true`.
 */
export function Variants({ form, error }: { form: UseFormReturn<FlagForm>; error?: string }) {
  const variants = useFieldArray({ control: form.control, name: 'variants' });
  const multivariate = form.watch('multivariate');
  const total = splitTotal(form.watch('variants'));
  return (
    <Stack gap="sm">
      <Title order={4}>Served value</Title>
      <Controller
        control={form.control}
        name="multivariate"
        render={({ field }) => (
          <Switch
            label="Multivariate (serves one of several variants instead of true)"
            checked={field.value}
            onChange={(e) => field.onChange(e.currentTarget.checked)}
          />
        )}
      />
      {multivariate ? (
        <Stack gap="xs" data-testid="variants">
          {variants.fields.map((field, index) => (
            <Group key={field.id} gap="xs" align="flex-end" wrap="nowrap" data-testid="variant">
              <TextInput
                label={index === 0 ? 'Variant key' : undefined}
                aria-label="Variant key"
                w={160}
                {...form.register(`variants.${index}.key`)}
              />
              <TextInput
                label={index === 0 ? 'Name' : undefined}
                aria-label="Variant name"
                w={200}
                {...form.register(`variants.${index}.name`)}
              />
              <Controller
                control={form.control}
                name={`variants.${index}.rollout`}
                render={({ field: f }) => (
                  <NumberInput
                    label={index === 0 ? 'Split (%)' : undefined}
                    aria-label="Variant split"
                    min={0}
                    max={100}
                    w={110}
                    value={f.value}
                    onChange={(value) => f.onChange(typeof value === 'number' ? value : Number(value) || 0)}
                  />
                )}
              />
              <Textarea
                label={index === 0 ? 'Payload (JSON)' : undefined}
                aria-label="Variant payload"
                placeholder='e.g. {"color": "blue"}'
                autosize
                minRows={1}
                w={260}
                {...form.register(`variants.${index}.payload`)}
              />
              <ActionIcon
                variant="subtle"
                color="gray"
                aria-label="Remove this variant"
                disabled={variants.fields.length <= 1}
                onClick={() => variants.remove(index)}
                mb={4}
              >
                ×
              </ActionIcon>
            </Group>
          ))}
          <Group>
            <Button
              size="xs"
              variant="default"
              onClick={() => variants.append({ key: `variant-${variants.fields.length + 1}`, name: '', rollout: 0, payload: '' })}
            >
              Add variant
            </Button>
            <Text size="sm" c={total === 100 ? 'dimmed' : 'orange'} data-testid="split-total">
              Split total: {total}%
            </Text>
          </Group>
        </Stack>
      ) : (
        <Textarea
          label="Payload when true (JSON)"
          placeholder='optional, e.g. {"limit": 10}'
          autosize
          minRows={1}
          w={420}
          {...form.register('payload')}
        />
      )}
      <ErrorText message={error} testId="variants-error" />
    </Stack>
  );
}
