import { Anchor, Group, Loader, Pagination, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import {
  ENROLLMENT_PAGE,
  STAGES,
  useDeleteEarlyAccessFeature,
  useEarlyAccessFeature,
  useEnrollments,
  useSaveEarlyAccessFeature,
  type EarlyAccessFeature,
  type Stage,
} from '../../api/early-access';
import { DeleteAndLeave } from '../../components/DeleteAndLeave';
import { ErrorAlert } from '../../components/ErrorAlert';
import { SubmitRow } from '../../components/SubmitRow';
import { PersonsTable } from '../../components/PersonsTable';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { STAGE_LABELS, StageBadge } from './StageBadge';

interface FeatureForm {
  name: string;
  description: string;
  stage: Stage;
  documentation_url: string;
}

const FIELDS = ['name', 'description', 'stage', 'documentation_url'] as const;

const formOf = (feature?: EarlyAccessFeature): FeatureForm => ({
  name: feature?.name ?? '',
  description: feature?.description ?? '',
  stage: feature?.stage ?? 'draft',
  documentation_url: feature?.documentation_url ?? '',
});

function FeatureEditor({ feature }: { feature?: EarlyAccessFeature }) {
  const environment = useEnvironment();
  const navigate = useNavigate();
  const save = useSaveEarlyAccessFeature(environment.project_id);
  const form = useForm<FeatureForm>({ defaultValues: formOf(feature) });
  const [saved, setSaved] = useState(false);

  const submit = async (values: FeatureForm) => {
    setSaved(false);
    try {
      const result = await save.mutateAsync({ id: feature?.id, body: values });
      form.reset(formOf(result));
      setSaved(true);
      if (!feature) void navigate(`/project/${environment.id}/early_access_features/${result.id}`, { replace: true });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const attr = error instanceof ApiError ? error.body.attr : undefined;
      if (attr && (FIELDS as readonly string[]).includes(attr)) form.setError(attr as keyof FeatureForm, { message });
      else form.setError('root', { message });
    }
  };
  const errors = form.formState.errors;
  return (
    <form onSubmit={(e) => void form.handleSubmit(submit)(e)} aria-label="Early access feature">
      <Stack gap="md" maw={640}>
        <TextInput label="Name" error={errors.name?.message} {...form.register('name')} />
        <Textarea label="Description" autosize minRows={2} error={errors.description?.message} {...form.register('description')} />
        <Controller
          control={form.control}
          name="stage"
          render={({ field }) => (
            <Select
              label="Stage"
              allowDeselect={false}
              data={STAGES.map((stage) => ({ value: stage, label: STAGE_LABELS[stage] }))}
              value={field.value}
              onChange={(value) => field.onChange(value ?? 'draft')}
              error={errors.stage?.message}
            />
          )}
        />
        <Text size="xs" c="dimmed">
          In alpha, beta and general availability the feature&apos;s flag is on for everyone who opted in.
        </Text>
        <TextInput label="Documentation URL" error={errors.documentation_url?.message} {...form.register('documentation_url')} />
        <ErrorAlert message={errors.root?.message} />
        <SubmitRow
          label={feature ? 'Save' : 'Create feature'}
          busy={form.formState.isSubmitting}
          done={saved && !form.formState.isDirty ? 'Saved' : null}
        />
      </Stack>
    </form>
  );
}

/** The persons whose enrollment property is `opted`, a page at a time. */
function Enrollments({ flagKey, opted }: { flagKey: string; opted: boolean }) {
  const environment = useEnvironment();
  const [page, setPage] = useState(1);
  const persons = useEnrollments(environment.id, flagKey, opted, (page - 1) * ENROLLMENT_PAGE);
  const title = opted ? 'Opted in' : 'Opted out';
  const testId = opted ? 'opted-in' : 'opted-out';
  if (persons.error) return <ErrorNotice error={persons.error} title={`${title} could not be loaded`} />;
  if (persons.isPending) return <Loader aria-label="Loading" />;
  const count = persons.data.count ?? persons.data.results.length;
  return (
    <Stack gap="xs" data-testid={testId}>
      <Title order={4}>
        {title} ({count})
      </Title>
      {count === 0 ? (
        <Text c="dimmed" size="sm">
          {opted ? 'No one has opted in yet.' : 'No one has opted out.'}
        </Text>
      ) : (
        <PersonsTable persons={persons.data.results} rowTestId={`${testId}-row`} />
      )}
      {count > ENROLLMENT_PAGE && <Pagination total={Math.ceil(count / ENROLLMENT_PAGE)} value={page} onChange={setPage} />}
    </Stack>
  );
}

export function Component() {
  const { featureId } = useParams();
  const environment = useEnvironment();
  const isNew = featureId === 'new';
  const feature = useEarlyAccessFeature(environment.project_id, isNew ? undefined : featureId);
  const remove = useDeleteEarlyAccessFeature(environment.project_id);
  const list = `/project/${environment.id}/early_access_features`;
  const back = (
    <Anchor component={Link} to={list} size="sm">
      ← Early access features
    </Anchor>
  );
  if (isNew) {
    return (
      <Stack>
        {back}
        <Title order={2}>New early access feature</Title>
        <FeatureEditor />
      </Stack>
    );
  }
  if (feature.error) return <ErrorNotice error={feature.error} title="The early access feature could not be loaded" />;
  if (feature.isPending) return <Loader aria-label="Loading" />;
  const flag = feature.data.feature_flag;
  return (
    <Stack gap="lg">
      {back}
      <Group justify="space-between">
        <Group>
          <Title order={2}>{feature.data.name}</Title>
          <StageBadge stage={feature.data.stage} />
        </Group>
        <DeleteAndLeave noun="feature" remove={() => remove.mutateAsync(feature.data.id)} to={list}>
          Its flag stays, without the condition that turns it on for those who opted in.
        </DeleteAndLeave>
      </Group>
      {flag && (
        <Text size="sm">
          Feature flag:{' '}
          <Anchor component={Link} to={`/project/${environment.id}/feature_flags/${flag.id}`} className="mono">
            {flag.key}
          </Anchor>
        </Text>
      )}
      <FeatureEditor key={feature.data.id} feature={feature.data} />
      {flag && (
        <>
          <Enrollments flagKey={flag.key} opted />
          <Enrollments flagKey={flag.key} opted={false} />
        </>
      )}
    </Stack>
  );
}
