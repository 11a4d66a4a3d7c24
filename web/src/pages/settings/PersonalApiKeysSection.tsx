import { Alert, Badge, Button, Group, Modal, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import {
  useCreatePersonalApiKey,
  usePersonalApiKeys,
  useRevokePersonalApiKey,
  useRollPersonalApiKey,
  type PersonalApiKey,
} from '../../api/settings';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { ConfirmAction } from '../../components/ConfirmAction';
import { CopyValue } from './CopyValue';
import { applyApiError } from './api-error';
import { NO_SCOPES, ScopePicker, scopesOf, type ScopeSelection } from './ScopePicker';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';
import { Loading } from '../../components/Loading';
import { DateTime } from '../../components/DateTime';

const when = (value: string | null) => (value ? <DateTime value={value} /> : 'Never');

function scopesSummary(scopes: string[]): string {
  if (scopes.includes('*')) return 'All access';
  return scopes.join(', ');
}

/** The raw value of a key just made or rolled: shown this once. */
function NewKeyDialog({ created, onClose }: { created: PersonalApiKey | null; onClose: () => void }) {
  return (
    <Modal opened={created !== null} onClose={onClose} title="Your new personal API key" centered size="lg">
      {created?.value && (
        <Stack>
          <Alert color="yellow">Copy it now: it is shown only this once. Hoglet keeps only a hash of it.</Alert>
          <CopyValue value={created.value} label="the new personal API key" testId="new-personal-api-key" />
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

interface CreateFields {
  label: string;
  scopes: ScopeSelection;
}

function CreateKeyForm({ onCreated, onCancel }: { onCreated: (key: PersonalApiKey) => void; onCancel: () => void }) {
  const create = useCreatePersonalApiKey();
  const form = useForm<CreateFields>({ defaultValues: { label: '', scopes: NO_SCOPES } });
  const { errors, isSubmitting } = form.formState;
  const save = async ({ label, scopes }: CreateFields) => {
    try {
      onCreated(await create.mutateAsync({ label, scopes: scopesOf(scopes) }));
    } catch (error) {
      applyApiError(error, ['label', 'scopes'], (name, e) => form.setError(name, e));
    }
  };
  return (
    <form onSubmit={(e) => void form.handleSubmit(save)(e)} noValidate>
      <Stack>
        <ErrorAlert message={errors.root?.message} />
        <TextInput
          label="Label"
          description="What the key is for, to tell it apart later."
          maxLength={40}
          error={errors.label?.message}
          {...form.register('label', { required: 'Give the key a label.' })}
        />
        <Controller
          control={form.control}
          name="scopes"
          rules={{ validate: (value) => scopesOf(value).length > 0 || 'Choose at least one scope.' }}
          render={({ field }) => <ScopePicker value={field.value} onChange={field.onChange} error={errors.scopes?.message} />}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={isSubmitting}>
            Create key
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function KeyRow({ apiKey, onRolled }: { apiKey: PersonalApiKey; onRolled: (key: PersonalApiKey) => void }) {
  const roll = useRollPersonalApiKey();
  const revoke = useRevokePersonalApiKey();
  return (
    <Table.Tr data-testid="personal-api-key-row">
      <Table.Td>{apiKey.label}</Table.Td>
      <Table.Td className="mono">{apiKey.mask_value}</Table.Td>
      <Table.Td>
        <Text size="sm" lineClamp={2}>
          {scopesSummary(apiKey.scopes)}
        </Text>
      </Table.Td>
      <Table.Td>{when(apiKey.created_at)}</Table.Td>
      <Table.Td data-testid="personal-api-key-last-used">{when(apiKey.last_used_at)}</Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <ConfirmAction
            label="Roll"
            ariaLabel={`Roll ${apiKey.label}`}
            title={`Roll “${apiKey.label}”?`}
            color="blue"
            action={async () => onRolled(await roll.mutateAsync(apiKey.id))}
          >
            The key gets a new value, shown once; the current value stops working at once.
          </ConfirmAction>
          <ConfirmAction
            label="Revoke"
            ariaLabel={`Revoke ${apiKey.label}`}
            title={`Revoke “${apiKey.label}”?`}
            action={() => revoke.mutateAsync(apiKey.id)}
          >
            Scripts and servers using this key are refused at once. This cannot be undone.
          </ConfirmAction>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** `/settings/user-api-keys`: the user's personal API keys. */
export function PersonalApiKeysSection() {
  const keys = usePersonalApiKeys();
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<PersonalApiKey | null>(null);
  return (
    <Paper withBorder p="md">
      <Stack>
        <Group justify="space-between">
          <Title order={4}>Personal API keys</Title>
          <Button onClick={() => setCreating(true)}>Create personal API key</Button>
        </Group>
        <Text size="sm" c="dimmed">
          For scripts and servers calling Hoglet's API as you: send it as <span className="mono">Authorization: Bearer …</span>.
        </Text>
        {keys.isPending ? (
          <Loading p="md" />
        ) : keys.isError ? (
          <ErrorNotice error={keys.error} />
        ) : keys.data.length === 0 ? (
          <Text c="dimmed" data-testid="personal-api-keys-empty">
            No personal API keys yet.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={700}>
            <Table>
              <TableHead columns={['Label', 'Key', 'Scopes', 'Created', 'Last used', '']} />
              <Table.Tbody>
                {keys.data.map((key) => (
                  <KeyRow key={key.id} apiKey={key} onRolled={setShown} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {keys.data && keys.data.length >= 10 && (
          <Badge color="gray" variant="light">
            10 keys at most: revoke one to make another.
          </Badge>
        )}
      </Stack>
      <Modal opened={creating} onClose={() => setCreating(false)} title="New personal API key" centered size="lg">
        <CreateKeyForm
          onCancel={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setShown(key);
          }}
        />
      </Modal>
      <NewKeyDialog created={shown} onClose={() => setShown(null)} />
    </Paper>
  );
}
