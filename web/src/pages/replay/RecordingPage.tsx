import { Alert, Anchor, Center, Grid, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { fetchSnapshotLines, markViewed, useRecording, useSessionEvents } from '../../api/recordings';
import { useEnvironment } from '../../shell/ProjectScope';
import { Player, type PlayerControls } from './Player';
import { SharingControl } from './SharingControl';
import { clickItems, consoleItems, toPlayerEvents, type TimelineItem } from './snapshots';
import { formatOffset, Timeline } from './Timeline';
import { formatDuration, personLabel } from './format';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { DateTime } from '../../components/DateTime';

/**
 * One recording (`/project/:id/replay/:sessionId`, also reached from posthog-js's
 * `/project/<token>/replay/<id>`): the player, with the recording's clicks, console lines and the
 * session's events beside it, and sharing.
 */
export function Component() {
  const environment = useEnvironment();
  const { sessionId = '' } = useParams();
  const recording = useRecording(environment.id, sessionId);
  const snapshots = useQuery({
    queryKey: ['recordings', environment.id, 'snapshots', sessionId],
    queryFn: async ({ signal }) => toPlayerEvents(await fetchSnapshotLines(environment.id, sessionId, signal)),
    enabled: recording.isSuccess,
    staleTime: Infinity,
    // The player is rebuilt when its events change: an ongoing recording is reloaded by hand.
    refetchOnWindowFocus: false,
  });
  const sessionEvents = useSessionEvents(environment.id, recording.data);
  const controls = useRef<PlayerControls | null>(null);
  const [offset, setOffset] = useState(0);

  const client = useQueryClient();
  useEffect(() => {
    if (!recording.data || recording.data.viewed) return;
    void markViewed(environment.id, sessionId)
      .then(() => client.invalidateQueries({ queryKey: ['recordings', environment.id, 'list'] }))
      .catch(() => undefined);
  }, [client, environment.id, sessionId, recording.data]);

  const events = snapshots.data;
  const start = events?.[0]?.timestamp ?? (Date.parse(recording.data?.start_time ?? '') || 0);
  const clicks = useMemo(() => (events ? clickItems(events) : []), [events]);
  const consoleLines = useMemo(() => (events ? consoleItems(events) : []), [events]);
  const eventItems = useMemo<TimelineItem[]>(
    () =>
      (sessionEvents.data ?? []).map((e) => {
        const url = e.properties.$current_url;
        return {
          key: e.uuid,
          timestamp: Date.parse(e.timestamp),
          label: e.event,
          ...(typeof url === 'string' ? { detail: url } : {}),
        };
      }),
    [sessionEvents.data],
  );

  if (recording.isPending) {
    return <Loading h={300} />;
  }
  if (recording.isError) {
    return (
      <Stack>
        <Title order={2}>Recording</Title>
        <Text className="mono">{sessionId}</Text>
        <ErrorAlert message={recording.error.message} />
        <Anchor component={Link} to={`/project/${environment.id}/replay`}>
          All recordings
        </Anchor>
      </Stack>
    );
  }
  const r = recording.data;
  const eventsNote = sessionEvents.isError ? sessionEvents.error.message : sessionEvents.isPending ? 'Loading…' : null;

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-start">
        <Stack gap={2}>
          <Anchor component={Link} to={`/project/${environment.id}/replay`} size="sm">
            ← Recordings
          </Anchor>
          <Title order={2}>{personLabel(r)}</Title>
          <Text size="sm" c="dimmed">
            <span className="mono">{r.id}</span>
            {r.start_time && (
              <>
                {' · '}
                <DateTime value={r.start_time} />
              </>
            )}{' '}
            · {formatDuration(r.recording_duration)}
            {r.start_url && ` · ${r.start_url}`}
          </Text>
        </Stack>
        <SharingControl environmentId={environment.id} recordingId={r.id} />
      </Group>
      <Grid gutter="md">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          {snapshots.isPending && (
            <Center h={300}>
              <Loader aria-label="Loading the recording" />
            </Center>
          )}
          {snapshots.isError && (
            <Alert color="red" role="alert" title="The recording could not be loaded">
              {snapshots.error.message}
            </Alert>
          )}
          {events && (
            <>
              <Player
                events={events}
                onReady={(c) => {
                  controls.current = c;
                }}
                onTime={setOffset}
              />
              <Text size="sm" c="dimmed" mt={4}>
                At <span data-testid="player-time">{formatOffset(offset)}</span>
              </Text>
            </>
          )}
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Timeline
            clicks={clicks}
            consoleLines={consoleLines}
            events={eventItems}
            eventsNote={eventsNote}
            start={start}
            now={start + offset}
            onSeek={(timestamp) => controls.current?.seek(timestamp)}
          />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
