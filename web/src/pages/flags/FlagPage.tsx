import { DeleteAndLeave } from '../../components/DeleteAndLeave';
import { Anchor, Badge, Button, Group, Loader, NativeSelect, Stack, Switch, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useCohorts } from '../../api/cohorts';
import { useFlag, useSaveFlag, type FeatureFlag } from '../../api/flags';
import { useGroupTypes } from '../../api/groups';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { filtersFromForm, formFromFlag, newFlagForm, type FlagForm } from './flag-form';
import { FlagHistory } from './FlagHistory';
import { ReleaseConditions } from './ReleaseConditions';
import { Variants } from './Variants';
import { WhatDoesUserGet } from './WhatDoesUserGet';
import { ErrorAlert, ErrorText } from '../../components/ErrorAlert';

/** Which part of the form an API error on `filters` belongs to. */
const isVariantError = (message: string) => /variant|payload/i.test(message);

/** Enable and disable at once (PATCH `active`), outside the form's other edits. */
function ActiveToggle({ flag }: { flag: FeatureFlag }) {
  const environment = useEnvironment();
  const save = useSaveFlag(environment.project_id);
  return (
    <Group gap="xs">
      <Switch
        label={flag.active ? 'Enabled' : 'Disabled'}
        checked={flag.active}
        disabled={save.isPending}
        onChange={(e) => save.mutate({ id: flag.id, body: { active: e.currentTarget.checked } })}
        data-testid="active-toggle"
      />
      <ErrorText message={save.error?.message} />
    </Group>
  );
}

function DeleteFlag({ flag }: { flag: FeatureFlag }) {
  const environment = useEnvironment();
  const save = useSaveFlag(environment.project_id);
  return (
    <DeleteAndLeave
      noun="flag"
      remove={() => save.mutateAsync({ id: flag.id, body: { deleted: true } })}
      to={`/project/${environment.id}/feature_flags`}
    >
      SDKs stop receiving <b>{flag.key}</b> at once.
    </DeleteAndLeave>
  );
}

function FlagEditor({ flag }: { flag?: FeatureFlag }) {
  const environment = useEnvironment();
  const projectId = environment.project_id;
  const navigate = useNavigate();
  const form = useForm<FlagForm>({ defaultValues: flag ? formFromFlag(flag) : newFlagForm() });
  const save = useSaveFlag(projectId);
  const cohorts = useCohorts(projectId, 0, 500);
  // The group types of the environment in view: its SDKs' /flags requests are matched against them.
  const groupTypes = useGroupTypes(environment.id);
  const [filtersError, setFiltersError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const aggregation = form.watch('aggregation');
  const groupType = groupTypes.data?.find((t) => String(t.group_type_index) === aggregation);

  const submit = async (values: FlagForm) => {
    setFiltersError(undefined);
    setSaved(false);
    try {
      const body = {
        key: values.key.trim(),
        name: values.name,
        filters: filtersFromForm(values),
        ...(flag ? {} : { active: values.active }),
      };
      const result = await save.mutateAsync({ id: flag?.id, body });
      form.reset(formFromFlag(result));
      setSaved(true);
      if (!flag) void navigate(`/project/${environment.id}/feature_flags/${result.id}`, { replace: true });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const attr = error instanceof ApiError ? error.body.attr : undefined;
      if (attr === 'key' || attr === 'name') form.setError(attr, { message });
      else if (attr === 'filters') setFiltersError(message);
      else form.setError('root', { message });
    }
  };

  const cohortChoices = (cohorts.data?.results ?? []).map((c) => ({ id: c.id, name: c.name }));
  return (
    <form onSubmit={(e) => void form.handleSubmit(submit)(e)} aria-label="Feature flag">
      <Stack gap="lg" maw={1000}>
        <Group align="flex-start" gap="md">
          <TextInput
            label="Key"
            description="What the SDKs ask for: letters, numbers, - and _"
            w={320}
            error={form.formState.errors.key?.message}
            {...form.register('key')}
          />
          <TextInput label="Description" w={420} error={form.formState.errors.name?.message} {...form.register('name')} />
        </Group>
        {!flag && (
          <Controller
            control={form.control}
            name="active"
            render={({ field }) => (
              <Switch label="Enabled once created" checked={field.value} onChange={(e) => field.onChange(e.currentTarget.checked)} />
            )}
          />
        )}
        {(groupTypes.data?.length ?? 0) > 0 && (
          <NativeSelect
            label="Match by"
            description="Roll out to persons, or to groups of a type (its properties, one answer per group)"
            w={320}
            data={[
              { value: '', label: 'Users' },
              ...(groupTypes.data ?? []).map((t) => ({ value: String(t.group_type_index), label: t.name_plural || `${t.group_type}(s)` })),
            ]}
            {...form.register('aggregation')}
          />
        )}
        <ReleaseConditions
          form={form}
          cohorts={cohortChoices}
          groupTypeName={groupType ? groupType.name_singular || groupType.group_type : null}
          error={filtersError && !isVariantError(filtersError) ? filtersError : undefined}
        />
        <Variants form={form} error={filtersError && isVariantError(filtersError) ? filtersError : undefined} />
        <ErrorAlert message={form.formState.errors.root?.message} />
        <Group>
          <Button type="submit" loading={form.formState.isSubmitting}>
            {flag ? 'Save' : 'Create flag'}
          </Button>
          {saved && !form.formState.isDirty && (
            <Text c="green" size="sm" data-testid="saved">
              Saved
            </Text>
          )}
        </Group>
      </Stack>
    </form>
  );
}

export function Component() {
  const { flagId } = useParams();
  const environment = useEnvironment();
  const [params, setParams] = useSearchParams();
  const isNew = flagId === 'new';
  const id = isNew || !/^\d+$/.test(flagId ?? '') ? undefined : Number(flagId);
  const flag = useFlag(environment.project_id, id);
  const groupTypes = useGroupTypes(environment.id);
  const back = (
    <Anchor component={Link} to={`/project/${environment.id}/feature_flags`} size="sm">
      ← Feature flags
    </Anchor>
  );

  if (isNew) {
    return (
      <Stack>
        {back}
        <Title order={2}>New feature flag</Title>
        <FlagEditor />
      </Stack>
    );
  }
  if (id === undefined) return <ErrorNotice error="There is no such flag." title="Not found" />;
  if (flag.error) return <ErrorNotice error={flag.error} title="The flag could not be loaded" />;
  if (flag.isPending) return <Loader aria-label="Loading" />;
  const data = flag.data;
  const aggregation = data.filters.aggregation_group_type_index;
  const groupType = aggregation == null ? undefined : groupTypes.data?.find((t) => t.group_type_index === aggregation)?.group_type;
  const tab = params.get('tab') ?? 'overview';
  return (
    <Stack>
      {back}
      <Group justify="space-between">
        <Group gap="sm">
          <Title order={2} className="mono">
            {data.key}
          </Title>
          {data.deleted && <Badge color="red">Deleted</Badge>}
        </Group>
        <Group>
          <ActiveToggle flag={data} />
          {!data.deleted && <DeleteFlag flag={data} />}
        </Group>
      </Group>
      <Tabs
        value={tab}
        onChange={(value) => setParams(value === 'overview' ? {} : { tab: value ?? 'overview' }, { replace: true })}
        keepMounted={false}
      >
        <Tabs.List>
          <Tabs.Tab value="overview">Release</Tabs.Tab>
          <Tabs.Tab value="evaluate">What does this user get</Tabs.Tab>
          <Tabs.Tab value="history">History</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="overview" pt="md">
          <FlagEditor flag={data} />
        </Tabs.Panel>
        <Tabs.Panel value="evaluate" pt="md">
          <WhatDoesUserGet flagKey={data.key} groupType={groupType} />
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <FlagHistory projectId={environment.project_id} flagId={data.id} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
