import { Paper, Select, Stack, Switch, Title } from '@mantine/core';
import { useUpdateEnvironment, type EnvironmentSettings } from '../../api/settings';

type BooleanField = {
  [K in keyof EnvironmentSettings]: EnvironmentSettings[K] extends boolean | null ? K : never;
}[keyof EnvironmentSettings];

/** One on/off setting, saved as soon as it is flipped; a refusal shows under it. */
function SettingSwitch({
  settings,
  field,
  label,
  description,
  inverted = false,
  disabled = false,
}: {
  settings: EnvironmentSettings;
  field: BooleanField;
  label: string;
  description: string;
  /** The stored field says "off" when true (`autocapture_opt_out`). */
  inverted?: boolean;
  disabled?: boolean;
}) {
  const update = useUpdateEnvironment(settings.id);
  const stored = settings[field] === true;
  const checked = inverted ? !stored : stored;
  return (
    <Switch
      label={label}
      description={description}
      checked={update.isPending ? !checked : checked}
      disabled={disabled || update.isPending}
      error={update.error?.message}
      onChange={(event) => {
        const on = event.currentTarget.checked;
        update.mutate({ [field]: inverted ? !on : on });
      }}
    />
  );
}

const SAMPLE_RATES = ['1.00', '0.95', '0.90', '0.80', '0.75', '0.50', '0.25', '0.10', '0.05', '0.01', '0.00'];
const MINIMUM_DURATIONS = [0, 1000, 2000, 5000, 10000, 15000, 30000];

/** A choice saved as soon as it is made. */
function SettingSelect({
  settings,
  label,
  description,
  data,
  value,
  toChange,
}: {
  settings: EnvironmentSettings;
  label: string;
  description: string;
  data: { value: string; label: string }[];
  value: string;
  toChange: (value: string) => Partial<EnvironmentSettings>;
}) {
  const update = useUpdateEnvironment(settings.id);
  return (
    <Select
      label={label}
      description={description}
      data={data}
      value={value}
      allowDeselect={false}
      disabled={!settings.session_recording_opt_in || update.isPending}
      error={update.error?.message}
      maw={360}
      onChange={(next) => {
        if (next !== null && next !== value) update.mutate(toChange(next));
      }}
    />
  );
}

/** What posthog-js captures for this environment (its remote config, read at /flags and /array/<token>/config). */
export function ProductSettings({ settings }: { settings: EnvironmentSettings }) {
  return (
    <>
      <Paper withBorder p="md">
        <Stack>
          <Title order={4}>Autocapture</Title>
          <SettingSwitch
            settings={settings}
            field="autocapture_opt_out"
            inverted
            label="Autocapture clicks, inputs and page views"
            description="posthog-js sends $autocapture events for clicks and form changes."
          />
          <SettingSwitch
            settings={settings}
            field="autocapture_exceptions_opt_in"
            label="Capture exceptions"
            description="Uncaught errors in the page become $exception events."
          />
          <SettingSwitch
            settings={settings}
            field="capture_dead_clicks"
            label="Capture dead clicks"
            description="Clicks that change nothing on the page become $dead_click events."
          />
          <SettingSwitch
            settings={settings}
            field="autocapture_web_vitals_opt_in"
            label="Web vitals"
            description="Largest contentful paint, cumulative layout shift, interaction to next paint and first contentful paint as $web_vitals events."
          />
          <SettingSwitch
            settings={settings}
            field="capture_performance_opt_in"
            label="Network timing"
            description="Timings of the page's requests, kept with its recordings."
          />
        </Stack>
      </Paper>
      <Paper withBorder p="md">
        <Stack>
          <Title order={4}>Session replay</Title>
          <SettingSwitch
            settings={settings}
            field="session_recording_opt_in"
            label="Record user sessions"
            description="posthog-js records what visitors see and do, for Replay."
          />
          <SettingSwitch
            settings={settings}
            field="capture_console_log_opt_in"
            label="Capture console logs"
            description="The page's console lines, shown alongside its recording."
            disabled={!settings.session_recording_opt_in}
          />
          <SettingSelect
            settings={settings}
            label="Sampling"
            description="The share of sessions recorded."
            data={SAMPLE_RATES.map((rate) => ({ value: rate, label: `${Math.round(Number(rate) * 100)}%` }))}
            value={settings.session_recording_sample_rate ?? '1.00'}
            toChange={(rate) => ({ session_recording_sample_rate: rate === '1.00' ? null : rate })}
          />
          <SettingSelect
            settings={settings}
            label="Minimum duration"
            description="Shorter sessions are not kept."
            data={MINIMUM_DURATIONS.map((ms) => ({ value: String(ms), label: ms === 0 ? 'None' : `${ms / 1000} s` }))}
            value={String(settings.session_recording_minimum_duration_milliseconds ?? 0)}
            toChange={(ms) => ({ session_recording_minimum_duration_milliseconds: ms === '0' ? null : Number(ms) })}
          />
        </Stack>
      </Paper>
      <Paper withBorder p="md">
        <Stack>
          <Title order={4}>Heatmaps and surveys</Title>
          <SettingSwitch
            settings={settings}
            field="heatmaps_opt_in"
            label="Heatmaps"
            description="posthog-js sends where visitors click and scroll."
          />
          <SettingSwitch
            settings={settings}
            field="surveys_opt_in"
            label="Surveys"
            description="posthog-js loads and shows this environment's surveys."
          />
        </Stack>
      </Paper>
    </>
  );
}
