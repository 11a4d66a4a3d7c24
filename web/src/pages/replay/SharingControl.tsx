import { Alert, Button, CopyButton, Group, Paper, Stack, Switch, TextInput } from '@mantine/core';
import { useSharing, useSetSharing } from '../../api/recordings';
import { ErrorText } from '../../components/ErrorAlert';

/**
 * Sharing on and off (PostHog's `…/sharing/`). On, anyone with the link plays the recording at
 * `/shared/<access_token>`, without signing in; off, the link answers 404 at once. The token stays
 * the same across turns, as PostHog keeps it.
 */
export function SharingControl({ environmentId, recordingId }: { environmentId: number; recordingId: string }) {
  const sharing = useSharing(environmentId, recordingId);
  const change = useSetSharing(environmentId, recordingId);
  const link = sharing.data ? `${window.location.origin}/shared/${encodeURIComponent(sharing.data.access_token)}` : '';
  const enabled = sharing.data?.enabled ?? false;
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Switch
          label="Share publicly: anyone with the link can watch this recording"
          checked={enabled}
          disabled={!sharing.data || change.isPending}
          onChange={(e) => change.mutate(e.currentTarget.checked)}
        />
        {enabled && (
          <Group gap="xs" wrap="nowrap">
            <TextInput aria-label="Shared link" value={link} readOnly style={{ flex: 1 }} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton value={link}>
              {({ copied, copy }) => (
                <Button variant="light" onClick={copy}>
                  {copied ? 'Copied' : 'Copy link'}
                </Button>
              )}
            </CopyButton>
          </Group>
        )}
        <ErrorText message={sharing.error?.message} />
        {change.isError && (
          <Alert color="red" role="alert" p="xs">
            {change.error.message}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
