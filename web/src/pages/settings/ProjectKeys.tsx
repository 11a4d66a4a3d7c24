import { Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useEnvironmentKeyAction, type EnvironmentSettings } from '../../api/settings';
import { ConfirmAction } from '../../components/ConfirmAction';
import { CopyValue } from './CopyValue';

/** The project API key (SDKs) with its reset, and the project secret key (local evaluation) with its rotation. */
export function ProjectKeys({ settings }: { settings: EnvironmentSettings }) {
  const reset = useEnvironmentKeyAction(settings.id, 'reset_token');
  const rotate = useEnvironmentKeyAction(settings.id, 'rotate_secret_token');
  const dropBackup = useEnvironmentKeyAction(settings.id, 'delete_secret_token_backup');
  const admin = settings.user_access_level === 'admin';
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={4}>Project API key</Title>
        <Text size="sm" c="dimmed">
          What posthog-js and the other SDKs send with events and flag requests. It is public: it goes in your pages.
        </Text>
        <CopyValue value={settings.api_token} label="the project API key" testId="settings-project-api-key" />
        {admin ? (
          <Group>
            <ConfirmAction
              label="Reset project API key"
              title="Reset the project API key?"
              confirmLabel="Reset key"
              action={() => reset.mutateAsync()}
            >
              The current key stops working at once: SDKs still sending it will have their events and flag requests refused until they use
              the new one.
            </ConfirmAction>
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            Only organization admins can reset it.
          </Text>
        )}

        <Title order={4} mt="md">
          Project secret API key
        </Title>
        <Text size="sm" c="dimmed">
          Server SDKs use it instead of a personal API key to fetch flag definitions for local evaluation. Keep it secret.
        </Text>
        {settings.secret_api_token ? (
          <CopyValue value={settings.secret_api_token} label="the project secret API key" testId="settings-secret-api-key" />
        ) : (
          <Text size="sm" data-testid="settings-secret-api-key">
            None yet.
          </Text>
        )}
        {settings.secret_api_token_backup && (
          <Text size="sm">
            The previous key <span className="mono">{settings.secret_api_token_backup.slice(0, 8)}…</span> still works until you delete it.
          </Text>
        )}
        {admin && (
          <Group>
            <ConfirmAction
              label={settings.secret_api_token ? 'Rotate secret key' : 'Create secret key'}
              title={settings.secret_api_token ? 'Rotate the project secret key?' : 'Create a project secret key?'}
              color="blue"
              action={() => rotate.mutateAsync()}
            >
              {settings.secret_api_token
                ? 'A new key replaces this one; the current key keeps working as the backup until you delete it, so your servers can move over.'
                : 'A new secret key is made for this environment.'}
            </ConfirmAction>
            {settings.secret_api_token_backup && (
              <ConfirmAction label="Delete previous key" title="Delete the previous secret key?" action={() => dropBackup.mutateAsync()}>
                Servers still using the previous key will be refused at once.
              </ConfirmAction>
            )}
          </Group>
        )}
      </Stack>
    </Paper>
  );
}
