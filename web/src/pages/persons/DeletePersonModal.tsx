import { Checkbox, Text } from '@mantine/core';
import { useState } from 'react';
import { useDeletePerson, type Person } from '../../api/persons';
import { useEnvironment } from '../../shell/ProjectScope';
import { personName } from './format';
import { ConfirmModal } from '../../components/ConfirmModal';

/**
 * PostHog's delete-person dialog: the person goes at once; its events and recordings stay unless
 * the user asks for them to go too (deleted in the background).
 */
export function DeletePersonModal({
  person,
  opened,
  onClose,
  onDeleted,
}: {
  person: Person;
  opened: boolean;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const environment = useEnvironment();
  const remove = useDeletePerson(environment.id);
  const [deleteEvents, setDeleteEvents] = useState(false);
  const [deleteRecordings, setDeleteRecordings] = useState(false);
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <ConfirmModal
      opened={opened}
      onClose={close}
      title="Delete this person?"
      error={remove.error?.message}
      confirmLabel="Delete person"
      busy={remove.isPending}
      onConfirm={() => remove.mutate({ person, deleteEvents, deleteRecordings }, { onSuccess: onDeleted })}
    >
      <Text style={{ wordBreak: 'break-word' }}>
        <b>{personName(person)}</b> and their properties will be deleted. This cannot be undone. Their distinct ids are freed: a new event
        from one of them starts a new person.
      </Text>
      <Checkbox
        label="Also delete their events (in the background)"
        checked={deleteEvents}
        onChange={(e) => setDeleteEvents(e.currentTarget.checked)}
      />
      <Checkbox
        label="Also delete their session recordings"
        checked={deleteRecordings}
        onChange={(e) => setDeleteRecordings(e.currentTarget.checked)}
      />
    </ConfirmModal>
  );
}
