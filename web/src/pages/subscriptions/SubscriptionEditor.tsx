import { ActionIcon, Anchor, Button, Checkbox, Group, NativeSelect, NumberInput, Radio, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { Controller, useFieldArray, useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { WEEKDAYS, useSaveSubscription, type Subscription } from '../../api/subscriptions';
import { ErrorAlert, ErrorText } from '../../components/ErrorAlert';
import { SubmitRow } from '../../components/SubmitRow';
import { useEnvironment } from '../../shell/ProjectScope';
import type { ResourceInfo } from './resource';
import {
  POSITIONS,
  UNITS,
  bodyFromForm,
  fieldOfAttr,
  formFromSubscription,
  newSubscriptionForm,
  weekdayLabel,
  type SubscriptionForm,
} from './subscription-form';

const TARGETS = [
  { value: 'email', label: 'E-mail' },
  { value: 'slack', label: 'Slack' },
  { value: 'webhook', label: 'Webhook' },
];

const FREQUENCIES = [
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
  { value: 'monthly', label: 'Monthly' },
  { value: 'yearly', label: 'Yearly' },
];

function Recipients({ form }: { form: ReturnType<typeof useForm<SubscriptionForm>> }) {
  const emails = useFieldArray({ control: form.control, name: 'emails' });
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        Recipients
      </Text>
      {emails.fields.map((field, i) => (
        <Group key={field.id} gap="xs">
          <TextInput
            aria-label={`Recipient ${i + 1}`}
            placeholder="name@example.com"
            // Not type="email": the browser would refuse the form before the server could say which address is wrong.
            inputMode="email"
            error={form.formState.errors.emails ? true : undefined}
            w={360}
            {...form.register(`emails.${i}.address`)}
          />
          {emails.fields.length > 1 && (
            <ActionIcon variant="subtle" color="gray" aria-label={`Remove recipient ${i + 1}`} onClick={() => emails.remove(i)}>
              ×
            </ActionIcon>
          )}
        </Group>
      ))}
      <Group>
        <Button variant="subtle" size="xs" onClick={() => emails.append({ address: '' })}>
          Add recipient
        </Button>
      </Group>
      <ErrorText message={form.formState.errors.emails?.message} testId="recipients-error" />
    </Stack>
  );
}

/** The subscription form: new (`subscription` absent) or an edit of one. */
export function SubscriptionEditor({ resource, subscription }: { resource: ResourceInfo; subscription?: Subscription }) {
  const environment = useEnvironment();
  const timeZone = environment.timezone;
  const navigate = useNavigate();
  const save = useSaveSubscription(environment.id);
  const form = useForm<SubscriptionForm>({
    defaultValues: subscription ? formFromSubscription(subscription, timeZone) : newSubscriptionForm(timeZone),
  });
  const [saved, setSaved] = useState(false);
  const { errors } = form.formState;
  const [targetType, frequency, monthlyMode] = form.watch(['target_type', 'frequency', 'monthly_mode']);
  const interval = form.watch('interval');
  const units = UNITS[frequency];

  const submit = async (values: SubscriptionForm) => {
    setSaved(false);
    // Checked here, not by the server, because the API has no field for it: a week needs a day.
    if (values.frequency === 'weekly' && values.weekdays.length === 0) {
      form.setError('weekdays', { message: 'Choose at least one day.' });
      return;
    }
    try {
      const body = { ...bodyFromForm(values, timeZone), ...(subscription ? {} : resource.resource) };
      const result = await save.mutateAsync({ id: subscription?.id, body });
      if (subscription) {
        form.reset(formFromSubscription(result, timeZone));
        setSaved(true);
      } else {
        void navigate(`${resource.listPath}/${result.id}`, { replace: true });
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const attr = error instanceof ApiError ? error.body.attr : null;
      form.setError(fieldOfAttr(attr, values.target_type), { message });
    }
  };

  return (
    <form
      onSubmit={(e) => {
        // The server's errors (on the recipients list, above the form) are no field's rules: they stay until cleared.
        form.clearErrors();
        void form.handleSubmit(submit)(e);
      }}
      aria-label="Subscription"
    >
      <fieldset disabled={subscription?.deleted} style={{ border: 0, padding: 0, margin: 0 }}>
        <Stack gap="md" maw={720}>
          <TextInput
            label="Title"
            placeholder={`${resource.name} report`}
            w={480}
            error={errors.title?.message}
            {...form.register('title')}
          />
          <NativeSelect label="Send to" w={240} data={TARGETS} error={errors.target_type?.message} {...form.register('target_type')} />
          {targetType === 'email' && <Recipients form={form} />}
          {targetType === 'slack' && (
            <TextInput
              label="Slack channel"
              description={
                <>
                  The channel&apos;s ID, optionally with its name: C0123456789|#general. Slack deliveries go through this environment&apos;s{' '}
                  <Anchor component={Link} to={`/project/${environment.id}/settings/environment#slack`} inherit>
                    Slack incoming webhook
                  </Anchor>
                  .
                </>
              }
              w={480}
              error={errors.slack_channel?.message}
              {...form.register('slack_channel')}
            />
          )}
          {targetType === 'webhook' && (
            <TextInput
              label="Webhook URL"
              description="Each delivery is POSTed to it as JSON."
              placeholder="https://example.com/hooks/hoglet"
              w={480}
              error={errors.webhook_url?.message}
              {...form.register('webhook_url')}
            />
          )}
          <Group align="flex-start">
            <NativeSelect label="Frequency" w={160} data={FREQUENCIES} error={errors.frequency?.message} {...form.register('frequency')} />
            <Controller
              control={form.control}
              name="interval"
              render={({ field }) => (
                <NumberInput
                  label="Every"
                  w={120}
                  min={1}
                  allowDecimal={false}
                  rightSection={<Text size="xs">{interval === 1 ? units[0] : units[1]}</Text>}
                  rightSectionWidth={56}
                  value={field.value}
                  onChange={(value) => field.onChange(typeof value === 'number' ? value : Number.NaN)}
                  onBlur={field.onBlur}
                  error={errors.interval?.message}
                />
              )}
            />
          </Group>
          {frequency === 'weekly' && (
            <Controller
              control={form.control}
              name="weekdays"
              render={({ field }) => (
                <Checkbox.Group label="On" value={field.value} onChange={field.onChange} error={errors.weekdays?.message}>
                  <Group gap="md" mt={6}>
                    {WEEKDAYS.map((day) => (
                      <Checkbox key={day} value={day} label={weekdayLabel(day)} />
                    ))}
                  </Group>
                </Checkbox.Group>
              )}
            />
          )}
          {frequency === 'monthly' && (
            <Controller
              control={form.control}
              name="monthly_mode"
              render={({ field }) => (
                <Radio.Group label="On" value={field.value} onChange={field.onChange}>
                  <Stack gap="xs" mt={6}>
                    <Group gap="xs">
                      <Radio value="day_of_month" label="Day" />
                      <Controller
                        control={form.control}
                        name="day_of_month"
                        render={({ field: day }) => (
                          <NumberInput
                            aria-label="Day of the month"
                            w={80}
                            min={1}
                            max={31}
                            allowDecimal={false}
                            disabled={monthlyMode !== 'day_of_month'}
                            value={day.value}
                            onChange={(value) => day.onChange(typeof value === 'number' ? value : 1)}
                          />
                        )}
                      />
                      <Text size="sm">of the month</Text>
                    </Group>
                    <Group gap="xs">
                      <Radio value="position" label="The" />
                      <NativeSelect
                        aria-label="Which one"
                        w={120}
                        data={POSITIONS}
                        disabled={monthlyMode !== 'position'}
                        error={errors.setpos?.message}
                        {...form.register('setpos')}
                      />
                      <NativeSelect
                        aria-label="Day of the week"
                        w={160}
                        data={[...WEEKDAYS.map((d) => ({ value: d, label: weekdayLabel(d) })), { value: 'day', label: 'day' }]}
                        disabled={monthlyMode !== 'position'}
                        {...form.register('setpos_day')}
                      />
                    </Group>
                  </Stack>
                </Radio.Group>
              )}
            />
          )}
          <Group align="flex-start">
            <TextInput
              type="date"
              label={frequency === 'yearly' ? 'Every year on' : 'Starting'}
              w={180}
              error={errors.start_date?.message}
              {...form.register('start_date', { required: 'Choose a date.' })}
            />
            {/* The zone in the label, not a description under it: the inputs stay on one line. */}
            <TextInput
              type="time"
              label={`At (${timeZone})`}
              styles={{ input: { width: 140 } }}
              error={errors.time?.message}
              {...form.register('time', { required: 'Choose a time.' })}
            />
          </Group>
          <ErrorAlert message={errors.root?.message} />
          <SubmitRow
            label={subscription ? 'Save' : 'Create subscription'}
            busy={form.formState.isSubmitting}
            done={saved && !form.formState.isDirty ? 'Saved' : null}
          />
        </Stack>
      </fieldset>
    </form>
  );
}
