import { Paper, Select, Stack, TextInput, Title } from '@mantine/core';
import { useMemo } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useEnvironmentSettings, useUpdateEnvironment, type EnvironmentSettings } from '../../api/settings';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { applyApiError } from './api-error';
import { ProductSettings } from './ProductSettings';
import { ProjectKeys } from './ProjectKeys';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { SubmitRow } from '../../components/SubmitRow';

/**
 * IANA zones the browser knows, UTC first (the server accepts the same names), and the stored one
 * even when the browser spells it otherwise (Chromium lists `Asia/Calcutta`, not `Asia/Kolkata`).
 */
function timezoneChoices(stored: string): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const choices = ['UTC', ...zones.filter((zone) => zone !== 'UTC')];
  return choices.includes(stored) ? choices : [stored, ...choices];
}

interface DetailFields {
  name: string;
  timezone: string;
}

function Details({ settings }: { settings: EnvironmentSettings }) {
  const update = useUpdateEnvironment(settings.id);
  const zones = useMemo(() => timezoneChoices(settings.timezone), [settings.timezone]);
  const form = useForm<DetailFields>({ values: { name: settings.name, timezone: settings.timezone } });
  const { errors, isSubmitting, isDirty } = form.formState;
  const save = async (values: DetailFields) => {
    try {
      await update.mutateAsync(values);
    } catch (error) {
      applyApiError(error, ['name', 'timezone'], form.setError);
    }
  };
  return (
    <Paper withBorder p="md">
      <form onSubmit={(e) => void form.handleSubmit(save)(e)} noValidate>
        <Stack>
          <Title order={4}>Details</Title>
          <ErrorAlert message={errors.root?.message} />
          <TextInput label="Environment name" error={errors.name?.message} {...form.register('name', { required: 'Give it a name.' })} />
          <Controller
            control={form.control}
            name="timezone"
            render={({ field }) => (
              <Select
                label="Time zone"
                description="Days in insights and filters start at midnight in this zone."
                searchable
                limit={50}
                nothingFoundMessage="No such zone"
                data={zones}
                value={field.value}
                onChange={(value) => field.onChange(value ?? settings.timezone)}
                allowDeselect={false}
                error={errors.timezone?.message}
              />
            )}
          />
          <SubmitRow label="Save" busy={isSubmitting} disabled={!isDirty} done={update.isSuccess && !isDirty && 'Saved'} />
        </Stack>
      </form>
    </Paper>
  );
}

/** The Slack incoming webhook that Slack subscriptions post to; saved empty, it is removed. */
function SlackSettings({ settings }: { settings: EnvironmentSettings }) {
  const update = useUpdateEnvironment(settings.id);
  const form = useForm<{ slack_incoming_webhook: string }>({ values: { slack_incoming_webhook: settings.slack_incoming_webhook ?? '' } });
  const { errors, isSubmitting, isDirty } = form.formState;
  const save = async ({ slack_incoming_webhook }: { slack_incoming_webhook: string }) => {
    try {
      await update.mutateAsync({ slack_incoming_webhook: slack_incoming_webhook.trim() || null });
    } catch (error) {
      applyApiError(error, ['slack_incoming_webhook'], form.setError);
    }
  };
  return (
    <Paper withBorder p="md" id="slack">
      <form onSubmit={(e) => void form.handleSubmit(save)(e)} noValidate aria-label="Slack">
        <Stack>
          <Title order={4}>Slack</Title>
          <ErrorAlert message={errors.root?.message} />
          <TextInput
            label="Slack incoming webhook"
            description="Subscriptions sent to Slack post through it: the URL Slack gives an incoming webhook (https://hooks.slack.com/services/…)."
            placeholder="https://hooks.slack.com/services/…"
            error={errors.slack_incoming_webhook?.message}
            {...form.register('slack_incoming_webhook')}
          />
          <SubmitRow label="Save webhook" busy={isSubmitting} disabled={!isDirty} done={update.isSuccess && !isDirty && 'Saved'} />
        </Stack>
      </form>
    </Paper>
  );
}

/** `/settings/environment`: the environment's name, time zone, keys and what the SDKs capture. */
export function EnvironmentSection() {
  const environment = useEnvironment();
  const settings = useEnvironmentSettings(environment.id);
  if (settings.isPending) return <Loading p="xl" />;
  if (settings.isError) return <ErrorNotice error={settings.error} />;
  return (
    <Stack>
      <Details settings={settings.data} />
      <ProjectKeys settings={settings.data} />
      <ProductSettings settings={settings.data} />
      <SlackSettings settings={settings.data} />
    </Stack>
  );
}
