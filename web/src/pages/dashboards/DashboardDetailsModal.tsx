import { Button, Group, Modal, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { ApiError } from '../../api/client';

export interface DashboardDetails {
  name: string;
  description: string;
}

const NONE: DashboardDetails = { name: '', description: '' };

/**
 * A dashboard's name and description, for a new dashboard or to edit one: `onSave` gets them with
 * the name trimmed; a refusal naming a field is shown under it, any other above the buttons.
 */
export function DashboardDetailsModal({
  opened,
  onClose,
  title,
  submitLabel,
  initial = NONE,
  onSave,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  submitLabel: string;
  initial?: DashboardDetails;
  onSave: (details: DashboardDetails) => Promise<unknown>;
}) {
  const form = useForm<DashboardDetails>({ defaultValues: initial });
  // Each opening starts from the saved details, not from what a cancelled edit left.
  const { reset } = form;
  useEffect(() => {
    if (opened) reset(initial);
  }, [opened, initial, reset]);
  const save = async (values: DashboardDetails) => {
    try {
      await onSave({ name: values.name.trim(), description: values.description });
    } catch (error) {
      const attr = error instanceof ApiError ? error.body.attr : null;
      form.setError(attr === 'name' || attr === 'description' ? attr : 'root', { message: (error as Error).message });
    }
  };
  const { errors, isSubmitting } = form.formState;
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <form onSubmit={(e) => void form.handleSubmit(save)(e)} aria-label={title}>
        <Stack>
          <TextInput
            label="Name"
            data-autofocus
            {...form.register('name', { validate: (name) => name.trim() !== '' || 'A dashboard needs a name.' })}
            error={errors.name?.message}
          />
          <Textarea label="Description" autosize minRows={2} {...form.register('description')} error={errors.description?.message} />
          {errors.root && (
            <Text c="red" size="sm" role="alert">
              {errors.root.message}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={isSubmitting}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
