import { Button, Group, Text } from '@mantine/core';

/** Previous / next through a limit-offset list, with where we are in it. */
export function Pager({
  offset,
  pageSize,
  shown,
  count,
  hasNext,
  onOffset,
}: {
  offset: number;
  pageSize: number;
  shown: number;
  count: number | undefined;
  hasNext: boolean;
  onOffset: (offset: number) => void;
}) {
  if (offset === 0 && !hasNext) return null;
  return (
    <Group justify="space-between" data-testid="pager">
      <Text size="sm" c="dimmed">
        {shown === 0 ? 'none' : `${offset + 1}–${offset + shown}`}
        {count !== undefined ? ` of ${count}` : ''}
      </Text>
      <Group gap="xs">
        <Button variant="default" size="xs" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
          Previous
        </Button>
        <Button variant="default" size="xs" disabled={!hasNext} onClick={() => onOffset(offset + pageSize)}>
          Next
        </Button>
      </Group>
    </Group>
  );
}
