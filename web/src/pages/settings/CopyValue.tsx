import { Button, CopyButton, Group, Text } from '@mantine/core';

/** A secret or link shown in full, with a copy button. */
export function CopyValue({ value, label, testId }: { value: string; label: string; testId?: string }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Text className="mono" size="sm" data-testid={testId} style={{ wordBreak: 'break-all' }}>
        {value}
      </Text>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button size="compact-xs" variant="light" onClick={copy} aria-label={`Copy ${label}`}>
            {copied ? 'Copied' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
