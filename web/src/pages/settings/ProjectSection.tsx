import { Anchor, Badge, Button, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { useCreateEnvironment, useDeleteEnvironment, useProjectEnvironments, useRenameEnvironment } from '../../api/settings';
import type { TeamBasic } from '../../api/types';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { applyApiError } from './api-error';
import { ConfirmAction } from '../../components/ConfirmAction';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';
import { Loading } from '../../components/Loading';

interface NameFields {
  name: string;
}

function RenameForm({ environment, onDone }: { environment: TeamBasic; onDone: () => void }) {
  const rename = useRenameEnvironment();
  const form = useForm<NameFields>({ defaultValues: { name: environment.name } });
  const { errors, isSubmitting } = form.formState;
  const save = async ({ name }: NameFields) => {
    try {
      await rename.mutateAsync({ id: environment.id, name });
      onDone();
    } catch (error) {
      applyApiError(error, ['name'], (_, e) => form.setError('name', e));
    }
  };
  return (
    <form onSubmit={(e) => void form.handleSubmit(save)(e)} noValidate>
      <Group gap="xs" align="flex-start" wrap="nowrap">
        <TextInput
          size="xs"
          aria-label={`New name for ${environment.name}`}
          autoFocus
          error={errors.name?.message}
          {...form.register('name', { required: 'Give it a name.' })}
        />
        <Button size="xs" type="submit" loading={isSubmitting}>
          Save
        </Button>
        <Button size="xs" variant="default" onClick={onDone}>
          Cancel
        </Button>
      </Group>
    </form>
  );
}

function EnvironmentRow({ environment, current }: { environment: TeamBasic; current: boolean }) {
  const [editing, setEditing] = useState(false);
  const remove = useDeleteEnvironment();
  return (
    <Table.Tr data-testid="environment-row">
      <Table.Td>
        {editing ? (
          <RenameForm environment={environment} onDone={() => setEditing(false)} />
        ) : (
          <Group gap="xs">
            <Anchor component={Link} to={`/project/${environment.id}/settings/environment`}>
              {environment.name}
            </Anchor>
            {current && (
              <Badge size="sm" variant="light">
                this one
              </Badge>
            )}
          </Group>
        )}
      </Table.Td>
      <Table.Td>{environment.id}</Table.Td>
      <Table.Td className="mono" style={{ wordBreak: 'break-all' }}>
        {environment.api_token}
      </Table.Td>
      <Table.Td>{environment.timezone}</Table.Td>
      <Table.Td>
        {!editing && (
          <Group gap="xs" wrap="nowrap">
            <Button size="xs" variant="light" aria-label={`Rename ${environment.name}`} onClick={() => setEditing(true)}>
              Rename
            </Button>
            {/* The environment in view is deleted from another one, so the page never stands on nothing. */}
            {!current && (
              <ConfirmAction
                label="Delete"
                ariaLabel={`Delete ${environment.name}`}
                title={`Delete “${environment.name}”?`}
                confirmLabel="Delete environment"
                action={() => remove.mutateAsync(environment.id)}
              >
                Its events, people, feature flags, cohorts and recordings are deleted, and its project API key stops working. This cannot be
                undone.
              </ConfirmAction>
            )}
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

function CreateEnvironment({ projectId }: { projectId: number }) {
  const create = useCreateEnvironment(projectId);
  const [created, setCreated] = useState<TeamBasic | null>(null);
  const form = useForm<NameFields>({ defaultValues: { name: '' } });
  const { errors, isSubmitting } = form.formState;
  const save = async ({ name }: NameFields) => {
    try {
      setCreated(await create.mutateAsync(name));
      form.reset();
    } catch (error) {
      applyApiError(error, ['name'], form.setError);
    }
  };
  return (
    <form onSubmit={(e) => void form.handleSubmit(save)(e)} noValidate>
      <Stack gap="xs">
        <Title order={5}>New environment</Title>
        <Text size="sm" c="dimmed">
          An environment has its own events, people, flags and project API key (staging, development…).
        </Text>
        <ErrorAlert message={errors.root?.message} />
        <Group align="flex-start">
          <TextInput
            aria-label="Name of the new environment"
            placeholder="Staging"
            error={errors.name?.message}
            {...form.register('name', { required: 'Give it a name.' })}
          />
          <Button type="submit" loading={isSubmitting}>
            Create environment
          </Button>
        </Group>
        {created && (
          <Text size="sm" c="green" role="status">
            {created.name} created.{' '}
            <Anchor component={Link} to={`/project/${created.id}/get-started`}>
              Open it
            </Anchor>
          </Text>
        )}
      </Stack>
    </form>
  );
}

/** `/settings/project` (and `/settings/environments`): the project's environments. */
export function ProjectSection() {
  const environment = useEnvironment();
  const environments = useProjectEnvironments(environment.project_id);
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={4}>Project {environment.projectName}</Title>
        <Text size="sm" c="dimmed">
          Project id {environment.project_id}. Its environments:
        </Text>
        {environments.isPending ? (
          <Loading p="md" />
        ) : environments.isError ? (
          <ErrorNotice error={environments.error} />
        ) : (
          <Table.ScrollContainer minWidth={700}>
            <Table data-testid="environments-table">
              <TableHead columns={['Name', 'Id', 'Project API key', 'Time zone', '']} />
              <Table.Tbody>
                {environments.data.results.map((env) => (
                  <EnvironmentRow key={env.id} environment={env} current={env.id === environment.id} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        <CreateEnvironment projectId={environment.project_id} />
      </Stack>
    </Paper>
  );
}
