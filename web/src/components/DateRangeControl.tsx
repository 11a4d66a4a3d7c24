import { Group, NativeSelect, TextInput } from '@mantine/core';
import { useState } from 'react';
import { DATE_PRESETS, DEFAULT_DATE_FROM, isDay, presetKey, rangeKind } from '../lib/date-range';

export interface DateRangeValue {
  date_from: string | null;
  date_to: string | null;
}

const CUSTOM = 'custom';
const OTHER = 'other';

/**
 * PostHog's date presets, or "Custom dates" with a date input for each end (local days of the
 * environment). A range that is neither (an old link's `-3d`) is shown as itself, not replaced.
 * `marked` is the end the caller says is wrong, saying why itself; without it a reversed range is
 * said here, under its end.
 */
export function DateRangeControl({
  value,
  onChange,
  marked,
}: {
  value: DateRangeValue | undefined;
  onChange: (range: { date_from: string; date_to: string | null }) => void;
  marked?: 'from' | 'to' | null;
}) {
  const from = value?.date_from || DEFAULT_DATE_FROM;
  const to = value?.date_to || null;
  const kind = rangeKind(from, to);
  // "Custom dates" stays shown for the range it was picked on or made of: another range from the
  // address (a link, the sidebar) shows as what it is.
  const keyOf = (start: string, end: string | null) => `${start}|${end ?? ''}`;
  const [pickedOn, setPickedOn] = useState<string | null>(null);
  const custom = kind.kind === 'days' || pickedOn === keyOf(from, to);
  const changeEnd = (range: { date_from: string; date_to: string | null }) => {
    setPickedOn(keyOf(range.date_from, range.date_to));
    onChange(range);
  };
  const selected = custom ? CUSTOM : kind.kind === 'preset' ? kind.key : OTHER;
  const reversed = isDay(from) && isDay(to) && to < from;
  const options = [
    ...DATE_PRESETS.map((p) => ({ value: presetKey(p), label: p.label })),
    { value: CUSTOM, label: 'Custom dates' },
    ...(kind.kind === 'other' ? [{ value: OTHER, label: kind.label }] : []),
  ];
  const endError = (end: 'from' | 'to') => {
    if (marked !== undefined) return custom && marked === end;
    return end === 'to' && reversed ? 'Before the start date' : undefined;
  };
  return (
    <Group gap="xs" align="flex-end">
      <NativeSelect
        label="Date range"
        w={170}
        data={options}
        value={selected}
        error={!custom && Boolean(marked)}
        onChange={(e) => {
          const picked = e.currentTarget.value;
          setPickedOn(picked === CUSTOM ? keyOf(from, to) : null);
          const preset = DATE_PRESETS.find((p) => presetKey(p) === picked);
          if (preset) onChange({ date_from: preset.date_from, date_to: preset.date_to });
        }}
      />
      {custom && (
        <>
          <TextInput
            type="date"
            label="From"
            w={150}
            value={isDay(from) ? from : ''}
            error={endError('from')}
            onChange={(e) =>
              isDay(e.currentTarget.value) && changeEnd({ date_from: e.currentTarget.value, date_to: isDay(to) ? to : null })
            }
          />
          <TextInput
            type="date"
            label="To"
            w={150}
            value={isDay(to) ? to : ''}
            error={endError('to')}
            onChange={(e) => changeEnd({ date_from: from, date_to: isDay(e.currentTarget.value) ? e.currentTarget.value : null })}
          />
        </>
      )}
    </Group>
  );
}
