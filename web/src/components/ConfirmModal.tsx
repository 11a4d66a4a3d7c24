import { Button, Group, Modal, Stack, type ModalProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { ErrorAlert } from './ErrorAlert';

interface Props extends Pick<ModalProps, 'opened' | 'onClose' | 'title' | 'size' | 'centered'> {
  /** What confirming does, and any choices that go with it. */
  children: ReactNode;
  /** The last attempt's error (the API's detail), shown above the buttons. */
  error?: ReactNode;
  confirmLabel: ReactNode;
  confirmColor?: string;
  busy: boolean;
  disabled?: boolean;
  onConfirm: () => void;
}

/** A dialog asking to confirm a destructive step: Cancel, or the red confirm button. */
export function ConfirmModal({ children, error, confirmLabel, confirmColor = 'red', busy, disabled, onConfirm, ...modal }: Props) {
  return (
    <Modal {...modal}>
      <Stack gap="sm">
        {children}
        <ErrorAlert message={error} />
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={modal.onClose}>
            Cancel
          </Button>
          <Button color={confirmColor} loading={busy} disabled={disabled} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
