import { Button, CopyButton, Group, Text } from '@mantine/core';

/** A secret or link shown in full (or, `hidden`, only its copy button), with a copy button. */
export function CopyValue({ value, label, testId, hidden = false }: { value: string; label: string; testId?: string; hidden?: boolean }) {
  return (
    <Group gap="xs" wrap="nowrap">
      {!hidden && (
        <Text className="mono" size="sm" data-testid={testId} style={{ wordBreak: 'break-all' }}>
          {value}
        </Text>
      )}
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button size="compact-xs" variant="light" onClick={copy} aria-label={`Copy ${label}`}>
            {copied ? 'Copied' : hidden ? 'Copy link' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
