import { Select } from '@mantine/core';
import { useState } from 'react';
import { useEventDefinitions } from '../../../api/insights';

/** "All events" in the picker (PostHog's `event: null`). */
const ALL = '__all__';

/** An event, picked from the environment's event definitions (searched as the user types), or all events. */
export function EventPicker({
  environmentId,
  value,
  onChange,
  label,
  allowAll = true,
}: {
  environmentId: number;
  value: string | null;
  onChange: (event: string | null) => void;
  label: string;
  allowAll?: boolean;
}) {
  const [search, setSearch] = useState('');
  const definitions = useEventDefinitions(environmentId, search);
  const names = (definitions.data?.results ?? []).map((d) => d.name);
  if (value !== null && !names.includes(value)) names.unshift(value);
  const data = [...(allowAll ? [{ value: ALL, label: 'All events' }] : []), ...names.map((n) => ({ value: n, label: n }))];
  return (
    <Select
      aria-label={label}
      placeholder="Choose an event"
      searchable
      w={220}
      data={data}
      value={value === null ? (allowAll ? ALL : null) : value}
      onSearchChange={(text) => setSearch(text === (value ?? 'All events') ? '' : text)}
      onChange={(picked) => {
        if (picked !== null) onChange(picked === ALL ? null : picked);
      }}
      allowDeselect={false}
      nothingFoundMessage="No such event seen yet"
      comboboxProps={{ withinPortal: true }}
    />
  );
}
