import { Button, Group, Modal, ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import type { ReactNode } from 'react';
import { ErrorNotice } from '../shell/ErrorNotice';
import { Loading } from './Loading';

export interface PickerOption {
  id: number;
  /** Said in the button's accessible name. */
  name: string;
  label: ReactNode;
  added: boolean;
}

/**
 * A searchable list in a modal, each row with a button that adds its item or takes it off:
 * PostHog's "Add to dashboard" on an insight and "Add insight" on a dashboard.
 */
export function PickerModal({
  title,
  opened,
  onClose,
  searchLabel,
  search,
  onSearch,
  list,
  options,
  emptyText,
  testId,
  saving,
  onToggle,
  buttonLabel,
}: {
  title: string;
  opened: boolean;
  onClose: () => void;
  searchLabel: string;
  search: string;
  onSearch: (text: string) => void;
  /** The list's query, and the title of its error. */
  list: { error: unknown; isPending: boolean; errorTitle: string };
  options: readonly PickerOption[];
  emptyText: string;
  /** `<testId>-picker` for the list, `<testId>-option` for each row. */
  testId: string;
  /** The change under way (its option's id), or its error. */
  saving: { id: number | null; error: unknown; errorTitle: string };
  onToggle: (option: PickerOption) => void;
  /** The button's accessible name: adding or removing this option. */
  buttonLabel: (option: PickerOption) => string;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} size="lg" centered>
      <Stack>
        <TextInput label={searchLabel} value={search} onChange={(e) => onSearch(e.currentTarget.value)} data-autofocus />
        {saving.error ? <ErrorNotice error={saving.error} title={saving.errorTitle} /> : null}
        {list.error ? (
          <ErrorNotice error={list.error} title={list.errorTitle} />
        ) : list.isPending ? (
          <Loading p="md" />
        ) : options.length === 0 ? (
          <Text c="dimmed">{emptyText}</Text>
        ) : (
          <ScrollArea.Autosize mah={400}>
            <Stack gap="xs" data-testid={`${testId}-picker`}>
              {options.map((option) => (
                <Group key={option.id} justify="space-between" wrap="nowrap" data-testid={`${testId}-option`}>
                  {option.label}
                  <Button
                    size="xs"
                    style={{ flexShrink: 0 }}
                    variant={option.added ? 'light' : 'filled'}
                    color={option.added ? 'red' : undefined}
                    loading={saving.id === option.id}
                    disabled={saving.id !== null && saving.id !== option.id}
                    aria-label={buttonLabel(option)}
                    onClick={() => onToggle(option)}
                  >
                    {option.added ? 'Remove' : 'Add'}
                  </Button>
                </Group>
              ))}
            </Stack>
          </ScrollArea.Autosize>
        )}
      </Stack>
    </Modal>
  );
}
