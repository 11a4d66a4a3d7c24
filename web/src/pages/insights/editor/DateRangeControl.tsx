import { Group, NativeSelect, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { DateRange } from '../../../api/insights';

/** PostHog's date presets (relative dates the server reads in the environment's time zone). */
export const DATE_PRESETS = [
  { value: '-24h', label: 'Last 24 hours' },
  { value: '-7d', label: 'Last 7 days' },
  { value: '-14d', label: 'Last 14 days' },
  { value: '-30d', label: 'Last 30 days' },
  { value: '-90d', label: 'Last 90 days' },
  { value: '-180d', label: 'Last 180 days' },
  { value: 'mStart', label: 'This month' },
  { value: 'yStart', label: 'Year to date' },
  { value: 'all', label: 'All time' },
] as const;

const CUSTOM = 'custom';
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Which preset a range is, or custom (from … to dates, each a local day of the environment). */
function presetOf(range: DateRange | undefined): string {
  const from = range?.date_from ?? '-7d';
  return !range?.date_to && DATE_PRESETS.some((p) => p.value === from) ? from : CUSTOM;
}

export function DateRangeControl({ value, onChange }: { value: DateRange | undefined; onChange: (range: DateRange) => void }) {
  const [custom, setCustom] = useState(presetOf(value) === CUSTOM);
  const preset = custom ? CUSTOM : presetOf(value);
  const from = value?.date_from ?? '';
  const to = value?.date_to ?? '';
  return (
    <Group gap="xs" align="flex-end">
      <NativeSelect
        label="Date range"
        w={170}
        data={[...DATE_PRESETS, { value: CUSTOM, label: 'Custom dates' }]}
        value={preset}
        onChange={(e) => {
          const picked = e.currentTarget.value;
          setCustom(picked === CUSTOM);
          if (picked !== CUSTOM) onChange({ date_from: picked, date_to: null });
        }}
      />
      {preset === CUSTOM && (
        <>
          <TextInput
            type="date"
            label="From"
            w={150}
            value={DAY.test(from) ? from : ''}
            onChange={(e) =>
              DAY.test(e.currentTarget.value) && onChange({ date_from: e.currentTarget.value, date_to: value?.date_to ?? null })
            }
          />
          <TextInput
            type="date"
            label="To"
            w={150}
            value={DAY.test(to) ? to : ''}
            // A reversed range has no days: say so, rather than leave an empty chart unexplained.
            error={DAY.test(from) && DAY.test(to) && to < from ? 'Before the start date' : undefined}
            onChange={(e) =>
              onChange({ date_from: value?.date_from ?? '-7d', date_to: DAY.test(e.currentTarget.value) ? e.currentTarget.value : null })
            }
          />
        </>
      )}
    </Group>
  );
}
