import { Autocomplete } from '@mantine/core';
import { useEffect, useState } from 'react';
import { usePropertyDefinitions } from '../../../api/insights';

/**
 * An event property name: suggested from the environment's property definitions (`numerical` for
 * the property maths), any name accepted. Applied when one is picked, on Enter, or when left.
 */
export function PropertyPicker({
  environmentId,
  value,
  onChange,
  label,
  placeholder = 'property, e.g. $browser',
  numerical = false,
  w = 200,
}: {
  environmentId: number;
  value: string;
  onChange: (property: string) => void;
  label: string;
  placeholder?: string;
  numerical?: boolean;
  w?: number;
}) {
  const [typed, setTyped] = useState(value);
  // Held here so Enter, which applies the typed name, closes the list too (typing reopens it).
  const [opened, setOpened] = useState(false);
  useEffect(() => setTyped(value), [value]);
  const definitions = usePropertyDefinitions(environmentId, typed === value ? '' : typed, numerical);
  const names = [...new Set((definitions.data?.results ?? []).map((d) => d.name))];
  const commit = (text: string) => {
    if (text.trim() !== value) onChange(text.trim());
  };
  return (
    <Autocomplete
      aria-label={label}
      placeholder={placeholder}
      w={w}
      data={names}
      value={typed}
      onChange={setTyped}
      dropdownOpened={opened}
      onDropdownOpen={() => setOpened(true)}
      onDropdownClose={() => setOpened(false)}
      onOptionSubmit={commit}
      onBlur={(e) => commit(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key !== 'Enter') return;
        commit(e.currentTarget.value);
        setOpened(false);
      }}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
