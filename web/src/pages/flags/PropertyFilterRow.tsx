import { ActionIcon, Group, NativeSelect, TextInput } from '@mantine/core';
import { useId, useState } from 'react';
import type { FieldValues, Path, PathValue, UseFormRegister, UseFormSetValue, UseFormWatch } from 'react-hook-form';
import { usePropertyDefinitions, type PropertyOwner } from '../../api/insights';
import { isValueless, PROPERTY_OPERATORS } from '../../api/operators';
import { useEnvironment } from '../../shell/ProjectScope';
import { COHORT_OPERATORS } from './flag-form';

/** The environment's property names (persons' or a group type's) matching what is typed, offered under the property field. */
function PropertyNames({ id, typed, owner }: { id: string; typed: string; owner: PropertyOwner }) {
  const environment = useEnvironment();
  const definitions = usePropertyDefinitions(environment.id, typed.trim(), false, owner);
  const names = [...new Set((definitions.data?.results ?? []).map((d) => d.name))];
  return (
    <datalist id={id} data-testid="property-names">
      {names.map((name) => (
        <option key={name} value={name} />
      ))}
    </datalist>
  );
}

/**
 * One property filter of a form (a release condition's, a cohort rule's): type (when cohorts may
 * be chosen), key, PostHog's operator, value. `name` is the row's path in the form.
 */
export function PropertyFilterRow<F extends FieldValues>({
  name,
  register,
  watch,
  setValue,
  cohorts,
  propertyLabel = 'Person property',
  groupTypeIndex = null,
  keyError,
  onRemove,
}: {
  name: string;
  register: UseFormRegister<F>;
  watch: UseFormWatch<F>;
  setValue: UseFormSetValue<F>;
  /** The cohorts a filter may name; without it, only properties. */
  cohorts?: { id: number; name: string }[];
  propertyLabel?: string;
  /** The group type whose properties the row names (a group flag's); else a person's. */
  groupTypeIndex?: number | null;
  /** The form's error for the property's name (it must be given: a blank one matches no one). */
  keyError?: string;
  onRemove: () => void;
}) {
  const field = (part: string) => `${name}.${part}` as Path<F>;
  const namesId = useId();
  // Names are asked for once the field is first entered, not for every row a form opens with.
  const [suggesting, setSuggesting] = useState(false);
  const type = (watch(field('type')) as string | undefined) ?? 'person';
  const operator = (watch(field('operator')) as string | undefined) ?? 'exact';
  return (
    <Group gap="xs" align="flex-start" data-testid="property-filter" wrap="nowrap">
      {cohorts && (
        <NativeSelect
          aria-label="Filter type"
          w={170}
          data={[
            { value: 'person', label: propertyLabel },
            { value: 'cohort', label: 'Cohort' },
          ]}
          {...register(field('type'), {
            // The operator lists differ: each type starts on its first operator, with no value.
            onChange: (e: { target: { value: string } }) => {
              setValue(field('operator'), (e.target.value === 'cohort' ? 'in' : 'exact') as PathValue<F, Path<F>>);
              setValue(field('value'), '' as PathValue<F, Path<F>>);
            },
          })}
        />
      )}
      {type === 'cohort' ? (
        <>
          <NativeSelect aria-label="Operator" w={150} data={[...COHORT_OPERATORS]} {...register(field('operator'))} />
          <NativeSelect
            aria-label="Cohort"
            w={240}
            data={[
              { value: '', label: 'Choose a cohort' },
              ...(cohorts ?? []).map((c) => ({ value: String(c.id), label: c.name || `Cohort ${c.id}` })),
            ]}
            {...register(field('value'))}
          />
        </>
      ) : (
        <>
          {suggesting && (
            <PropertyNames
              id={namesId}
              typed={(watch(field('key')) as string | undefined) ?? ''}
              owner={groupTypeIndex === null ? 'person' : { group: groupTypeIndex }}
            />
          )}
          <TextInput
            aria-label="Property"
            placeholder="property, e.g. email"
            w={200}
            list={namesId}
            autoComplete="off"
            onFocus={() => setSuggesting(true)}
            error={keyError}
            {...register(field('key'), {
              validate: (key: unknown) => String(key ?? '').trim() !== '' || 'Name a property, or remove this filter',
            })}
          />
          <NativeSelect aria-label="Operator" w={200} data={[...PROPERTY_OPERATORS]} {...register(field('operator'))} />
          {!isValueless(operator) && <TextInput aria-label="Value" placeholder="value" w={220} {...register(field('value'))} />}
        </>
      )}
      <ActionIcon variant="subtle" color="gray" aria-label="Remove this filter" onClick={onRemove} mt={4}>
        ×
      </ActionIcon>
    </Group>
  );
}
