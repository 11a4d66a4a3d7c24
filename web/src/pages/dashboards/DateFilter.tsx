import { Button, Group, NativeSelect, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { DashboardFilters } from '../../api/dashboards';

/** PostHog's dashboard date presets; '' leaves every tile its own range. */
const PRESETS = [
  { value: '', label: "Each insight's own range" },
  { value: '-7d', label: 'Last 7 days' },
  { value: '-30d', label: 'Last 30 days' },
  { value: '-90d', label: 'Last 90 days' },
  { value: 'custom', label: 'Custom range' },
];

function presetOf(filters: DashboardFilters): string {
  if (!filters.date_from && !filters.date_to) return '';
  if (!filters.date_to && PRESETS.some((p) => p.value === filters.date_from)) return filters.date_from ?? '';
  return 'custom';
}

/** The dashboard's date range over every tile; each change is saved on the dashboard. */
export function DateFilter({
  filters,
  onChange,
  busy,
}: {
  filters: DashboardFilters;
  onChange: (next: DashboardFilters) => void;
  busy: boolean;
}) {
  const saved = presetOf(filters);
  const [custom, setCustom] = useState(saved === 'custom');
  const [from, setFrom] = useState(saved === 'custom' ? (filters.date_from ?? '') : '');
  const [to, setTo] = useState(saved === 'custom' ? (filters.date_to ?? '') : '');
  // A range that ends before it starts would show every tile empty: it is pointed out, not applied.
  const reversed = from !== '' && to !== '' && to < from;
  return (
    <Group align="flex-end" gap="xs">
      <NativeSelect
        label="Date range"
        data={PRESETS}
        value={custom ? 'custom' : saved}
        disabled={busy}
        w={240}
        onChange={(e) => {
          const value = e.currentTarget.value;
          setCustom(value === 'custom');
          if (value !== 'custom') onChange({ date_from: value || null, date_to: null });
        }}
      />
      {custom && (
        <form
          aria-label="Custom date range"
          onSubmit={(e) => {
            e.preventDefault();
            if (from && !reversed) onChange({ date_from: from, date_to: to || null });
          }}
        >
          <Group align="flex-end" gap="xs">
            <TextInput type="date" label="From" value={from} onChange={(e) => setFrom(e.currentTarget.value)} required />
            <TextInput
              type="date"
              label="To"
              value={to}
              onChange={(e) => setTo(e.currentTarget.value)}
              error={reversed ? 'Before the start date' : undefined}
            />
            <Button type="submit" variant="default" loading={busy} disabled={reversed}>
              Apply
            </Button>
          </Group>
        </form>
      )}
    </Group>
  );
}
