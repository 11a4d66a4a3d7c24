import { Button, Text, type ButtonProps } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { ConfirmModal } from './ConfirmModal';

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
      <Button size={size} variant={variant} color={color} aria-label={ariaLabel} onClick={() => setOpen(true)} style={{ flexShrink: 0 }}>
        {label}
      </Button>
      <ConfirmModal
        opened={open}
        onClose={close}
        title={title}
        centered
        error={error}
        confirmLabel={confirmLabel ?? label}
        confirmColor={color}
        busy={busy}
        onConfirm={() => {
          setBusy(true);
          setError(null);
          action()
            .then(close)
            .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
            .finally(() => setBusy(false));
        }}
      >
        <Text size="sm" component="div">
          {children}
        </Text>
      </ConfirmModal>
    </>
  );
}
