import { Radio, ScrollArea, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useSplitPerson, type Person } from '../../api/persons';
import { useEnvironment } from '../../shell/ProjectScope';
import { ConfirmModal } from '../../components/ConfirmModal';

/**
 * PostHog's split: one distinct id stays with this person (and its properties); every other one
 * becomes a person of its own, without properties.
 */
export function SplitPersonModal({
  person,
  opened,
  onClose,
  onSplit,
}: {
  person: Person;
  opened: boolean;
  onClose: () => void;
  onSplit: (kept: string, count: number) => void;
}) {
  const environment = useEnvironment();
  const split = useSplitPerson(environment.id);
  const [kept, setKept] = useState(person.distinct_ids[0] ?? '');
  const close = () => {
    split.reset();
    onClose();
  };
  const leaving = person.distinct_ids.length - 1;
  return (
    <ConfirmModal
      opened={opened}
      onClose={close}
      title="Split this person?"
      size="lg"
      error={split.error?.message}
      confirmLabel={`Split ${leaving} distinct id${leaving === 1 ? '' : 's'}`}
      busy={split.isPending}
      disabled={!kept}
      onConfirm={() => split.mutate({ person, mainDistinctId: kept }, { onSuccess: () => onSplit(kept, leaving) })}
    >
      <Text>
        The distinct id you keep stays with this person and its properties.{' '}
        {leaving === 1 ? 'The other one becomes a person' : `The other ${leaving} become persons`} of their own, with no properties. This
        cannot be undone.
      </Text>
      <Radio.Group label="Distinct id to keep" value={kept} onChange={setKept}>
        <ScrollArea.Autosize mah={260} mt="xs">
          <Stack gap={6}>
            {person.distinct_ids.map((id) => (
              <Radio key={id} value={id} label={id} classNames={{ label: 'mono' }} />
            ))}
          </Stack>
        </ScrollArea.Autosize>
      </Radio.Group>
    </ConfirmModal>
  );
}
