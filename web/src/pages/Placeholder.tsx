import { Stack, Text, Title } from '@mantine/core';
import { useParams } from 'react-router';

/** A section whose page is not built yet: its address works, so links to it land somewhere. */
export function Placeholder({ title, note }: { title: string; note?: string | undefined }) {
  const params = useParams();
  const subject = params.sessionId ?? params.shortId ?? params.flagId ?? params.distinctId ?? params.personId ?? params.dashboardId;
  return (
    <Stack gap="xs">
      <Title order={2}>{title}</Title>
      {subject !== undefined && <Text className="mono">{subject}</Text>}
      <Text c="dimmed">{note ?? 'This page is coming soon; the API already serves it.'}</Text>
    </Stack>
  );
}
