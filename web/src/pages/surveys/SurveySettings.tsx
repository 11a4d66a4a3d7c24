/** The survey editor's sections after the questions: display conditions, appearance, targeting. */
import { ActionIcon, Button, Checkbox, ColorInput, Group, NativeSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { Controller, useFieldArray, type UseFormReturn } from 'react-hook-form';
import { ErrorText } from '../../components/ErrorAlert';
import { PropertyFilterList } from '../flags/PropertyFilterList';
import { isSurveyColour, POSITIONS, URL_MATCH_TYPES, type SurveyForm } from './survey-form';

type Form = UseFormReturn<SurveyForm>;

export function DisplayConditions({ form, error }: { form: Form; error?: string }) {
  const events = useFieldArray({ control: form.control, name: 'events' });
  return (
    <Stack gap="sm">
      <Title order={4}>Display conditions</Title>
      <Text size="sm" c="dimmed">
        Where and when posthog-js shows the survey (popover surveys).
      </Text>
      <Group align="flex-end" gap="sm">
        <NativeSelect label="URL match" w={200} data={URL_MATCH_TYPES} {...form.register('urlMatchType')} />
        <TextInput label="URL" placeholder="e.g. /pricing" w={360} {...form.register('url')} />
      </Group>
      <Group align="flex-end" gap="sm">
        <TextInput label="CSS selector" placeholder="e.g. .checkout-button" w={280} {...form.register('selector')} />
        <TextInput
          label="Wait period (days)"
          placeholder="not to anyone who saw a survey in these last days"
          type="number"
          min={0}
          w={380}
          {...form.register('waitPeriod')}
        />
      </Group>
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          Show after these events
        </Text>
        {events.fields.map((field, i) => (
          <Group key={field.id} gap="xs">
            <TextInput aria-label={`Event ${i + 1}`} placeholder="event name" w={280} {...form.register(`events.${i}.name`)} />
            <ActionIcon variant="subtle" color="gray" aria-label={`Remove event ${i + 1}`} onClick={() => events.remove(i)}>
              ×
            </ActionIcon>
          </Group>
        ))}
        <Group>
          <Button size="compact-xs" variant="default" onClick={() => events.append({ name: '' })}>
            Add event
          </Button>
        </Group>
        <Checkbox label="Show again every time the event happens" {...form.register('repeatedActivation')} />
      </Stack>
      <ErrorText message={error} testId="conditions-error" />
    </Stack>
  );
}

const COLOURS = [
  ['backgroundColor', 'Background colour'],
  ['submitButtonColor', 'Button colour'],
  ['textColor', 'Text colour'],
] as const;

export function Appearance({ form, error }: { form: Form; error?: string }) {
  const thankYou = form.watch('displayThankYouMessage');
  return (
    <Stack gap="sm">
      <Title order={4}>Appearance</Title>
      <Group align="flex-end" gap="sm">
        {COLOURS.map(([name, label]) => (
          <Controller
            key={name}
            control={form.control}
            name={name}
            rules={{
              validate: (value) =>
                isSurveyColour(String(value), (v) => CSS.supports('color', v)) || 'Not a CSS colour (such as #1d4aff or white)',
            }}
            render={({ field, fieldState }) => (
              <ColorInput
                label={label}
                w={180}
                value={field.value}
                onChange={field.onChange}
                // Any CSS colour posthog-js can paint is kept (a name too); one it cannot is refused above, not silently undone.
                fixOnBlur={false}
                error={fieldState.error?.message}
              />
            )}
          />
        ))}
        <NativeSelect label="Position" w={140} data={POSITIONS} {...form.register('position')} />
      </Group>
      <TextInput label="Placeholder" description="In open text answers" w={360} {...form.register('placeholder')} />
      <Checkbox label="Thank the respondent once they answered" {...form.register('displayThankYouMessage')} />
      {thankYou && (
        <Group align="flex-end" gap="sm">
          <TextInput label="Thank you header" w={320} {...form.register('thankYouMessageHeader')} />
          <TextInput label="Thank you description" w={380} {...form.register('thankYouMessageDescription')} />
        </Group>
      )}
      <ErrorText message={error} testId="appearance-error" />
    </Stack>
  );
}

export function Targeting({
  form,
  flags,
  errors,
}: {
  form: Form;
  flags: { id: number; key: string }[];
  errors: { linked?: string; targeting?: string };
}) {
  return (
    <Stack gap="sm">
      <Title order={4}>Targeting</Title>
      <NativeSelect
        label="Linked feature flag"
        description="Only people with this flag on see the survey"
        w={360}
        data={[{ value: '', label: 'None' }, ...flags.map((f) => ({ value: String(f.id), label: f.key }))]}
        error={errors.linked}
        {...form.register('linkedFlagId')}
      />
      <Text size="sm" fw={500}>
        Persons who match
      </Text>
      <PropertyFilterList
        form={form}
        name="targeting"
        empty={
          <Text size="sm" c="dimmed">
            Everyone (add a person property filter to narrow it down).
          </Text>
        }
      />
      <ErrorText message={errors.targeting} testId="targeting-error" />
      <TextInput
        label="Stop after this many responses"
        description="Empty: no limit"
        type="number"
        min={1}
        w={260}
        {...form.register('responsesLimit')}
      />
    </Stack>
  );
}
