import { Button, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A form's submit button, with a green status beside it once the form did its work. */
export function SubmitRow({ label, busy, disabled, done }: { label: string; busy: boolean; disabled?: boolean; done: ReactNode }) {
  return (
    <Group>
      <Button type="submit" loading={busy} disabled={disabled}>
        {label}
      </Button>
      {done && (
        <Text size="sm" c="green" role="status">
          {done}
        </Text>
      )}
    </Group>
  );
}
