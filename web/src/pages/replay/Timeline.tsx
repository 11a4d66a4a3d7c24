import { Badge, ScrollArea, Stack, Tabs, Text, UnstyledButton } from '@mantine/core';
import type { TimelineItem } from './snapshots';

/** `m:ss` from the start of the recording. */
export function formatOffset(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

const LEVEL_COLOR: Record<string, string> = { error: 'red', warn: 'yellow', info: 'blue' };

function ItemList({
  items,
  start,
  now,
  empty,
  testId,
  onSeek,
}: {
  items: TimelineItem[];
  start: number;
  now: number;
  empty: string;
  testId: string;
  onSeek: (timestamp: number) => void;
}) {
  if (items.length === 0) {
    return (
      <Text c="dimmed" size="sm" p="sm">
        {empty}
      </Text>
    );
  }
  // The item the player is at: the last one at or before its time.
  let current = -1;
  items.forEach((item, index) => {
    if (item.timestamp <= now) current = index;
  });
  return (
    <ScrollArea.Autosize mah={560}>
      <Stack gap={0}>
        {items.map((item, index) => (
          <UnstyledButton
            key={item.key}
            data-testid={testId}
            data-current={index === current || undefined}
            onClick={() => onSeek(item.timestamp)}
            px="sm"
            py={6}
            style={{
              borderBottom: '1px solid var(--mantine-color-gray-2)',
              background: index === current ? 'var(--mantine-color-orange-0)' : undefined,
            }}
            title="Play from here"
          >
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              <Text span c="dimmed" ff="monospace" mr="xs">
                {formatOffset(item.timestamp - start)}
              </Text>
              {item.level !== undefined && item.level !== 'log' && (
                <Badge size="xs" color={LEVEL_COLOR[item.level] ?? 'gray'} mr="xs" variant="light">
                  {item.level}
                </Badge>
              )}
              {item.label}
            </Text>
            {item.detail !== undefined && (
              <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {item.detail}
              </Text>
            )}
          </UnstyledButton>
        ))}
      </Stack>
    </ScrollArea.Autosize>
  );
}

/** Clicks, console lines and events beside the player; each seeks the player to its moment. */
export function Timeline({
  clicks,
  consoleLines,
  events,
  eventsNote,
  start,
  now,
  onSeek,
}: {
  clicks: TimelineItem[];
  consoleLines: TimelineItem[];
  events: TimelineItem[];
  eventsNote: string | null;
  start: number;
  /** Where the player is (a timestamp). */
  now: number;
  onSeek: (timestamp: number) => void;
}) {
  return (
    <Tabs defaultValue="events" keepMounted={false}>
      <Tabs.List>
        <Tabs.Tab value="events">Events ({events.length})</Tabs.Tab>
        <Tabs.Tab value="clicks">Clicks ({clicks.length})</Tabs.Tab>
        <Tabs.Tab value="console">Console ({consoleLines.length})</Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="events">
        <ItemList
          items={events}
          start={start}
          now={now}
          empty={eventsNote ?? 'No events in this session.'}
          testId="session-event"
          onSeek={onSeek}
        />
      </Tabs.Panel>
      <Tabs.Panel value="clicks">
        <ItemList items={clicks} start={start} now={now} empty="No clicks recorded." testId="session-click" onSeek={onSeek} />
      </Tabs.Panel>
      <Tabs.Panel value="console">
        <ItemList
          items={consoleLines}
          start={start}
          now={now}
          empty="No console lines recorded (turn on console log capture in the environment's settings)."
          testId="session-console"
          onSeek={onSeek}
        />
      </Tabs.Panel>
    </Tabs>
  );
}
