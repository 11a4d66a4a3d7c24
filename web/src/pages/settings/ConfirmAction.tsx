import { Button, Group, Modal, Stack, Text, type ButtonProps } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert';

interface Props extends Pick<ButtonProps, 'size' | 'variant' | 'color'> {
  /** The button's text (and the dialog's confirm button's, unless `confirmLabel`). */
  label: string;
  /** An accessible name for the button when `label` alone is ambiguous in a list. */
  ariaLabel?: string;
  title: string;
  children: ReactNode;
  confirmLabel?: string;
  /** Runs on confirm; a thrown error (the API's detail) is shown in the dialog, which stays open. */
  action: () => Promise<unknown>;
}

/** A destructive action behind a confirmation dialog. */
export function ConfirmAction({
  label,
  ariaLabel,
  title,
  children,
  confirmLabel,
  action,
  size = 'xs',
  variant = 'light',
  color = 'red',
}: Props) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setOpen(false);
    setError(null);
  };
  return (
    <>
      <Button size={size} variant={variant} color={color} aria-label={ariaLabel} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal opened={open} onClose={close} title={title} centered>
        <Stack>
          <Text size="sm" component="div">
            {children}
          </Text>
          <ErrorAlert message={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button
              color={color}
              loading={busy}
              onClick={() => {
                setBusy(true);
                setError(null);
                action()
                  .then(close)
                  .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
                  .finally(() => setBusy(false));
              }}
            >
              {confirmLabel ?? label}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
