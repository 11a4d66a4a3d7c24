import { Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';
import { useFieldArray, type FieldArray, type FieldArrayPath, type FieldValues, type Path, type UseFormReturn } from 'react-hook-form';
import { emptyProperty } from './flag-form';
import { PropertyFilterRow } from './PropertyFilterRow';

/**
 * A form's list of person property filters (the array at `name`): a row each, `empty` when there
 * is none, and a button that adds one.
 */
export function PropertyFilterList<F extends FieldValues>({
  form,
  name,
  empty,
}: {
  form: UseFormReturn<F>;
  name: FieldArrayPath<F>;
  empty?: ReactNode;
}) {
  const properties = useFieldArray({ control: form.control, name });
  return (
    <>
      {properties.fields.length === 0 && empty}
      {properties.fields.map((field, p) => (
        <PropertyFilterRow<F>
          key={field.id}
          name={`${name}.${p}`}
          register={form.register}
          watch={form.watch}
          setValue={form.setValue}
          keyError={form.getFieldState(`${name}.${p}.key` as Path<F>, form.formState).error?.message}
          onRemove={() => properties.remove(p)}
        />
      ))}
      <Group>
        <Button size="xs" variant="default" onClick={() => properties.append(emptyProperty() as FieldArray<F, FieldArrayPath<F>>)}>
          Add property filter
        </Button>
      </Group>
    </>
  );
}
