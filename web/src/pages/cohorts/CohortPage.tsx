import { DeleteAndLeave } from '../../components/DeleteAndLeave';
import {
  ActionIcon,
  Anchor,
  Button,
  Group,
  Loader,
  Pagination,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { Controller, useFieldArray, useForm, type UseFormReturn } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { MEMBERS_PAGE, useCohort, useCohortMembers, useCohorts, useSaveCohort, type Cohort } from '../../api/cohorts';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { PropertyFilterList } from '../flags/PropertyFilterList';
import {
  checkCohortName,
  checkGroups,
  describeKept,
  emptyGroup,
  filtersFromForm,
  formFromCohort,
  holdsBehavioral,
  newCohortForm,
  type CohortForm,
  type CohortNames,
  type KeptFilter,
} from './cohort-form';
import { ErrorAlert, ErrorText } from '../../components/ErrorAlert';
import { PersonsTable } from '../../components/PersonsTable';

const MATCH = [
  { value: 'AND', label: 'all' },
  { value: 'OR', label: 'any' },
];

/**
 * The group's filters this editor cannot change, as text: saving keeps them as they are, so the user
 * should see them, and may drop one (a behavioral filter that matches no one, say).
 */
function KeptFilters({
  kept,
  inOr,
  nameOf,
  onRemove,
}: {
  kept: KeptFilter[];
  inOr: boolean;
  nameOf: CohortNames;
  onRemove: (at: number) => void;
}) {
  if (kept.length === 0) return null;
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed">
        Also in this group, kept as they are (not editable here):
      </Text>
      <Stack gap={2} aria-label="Filters kept as they are" data-testid="kept-filters">
        {kept.map((k, i) => (
          <Group key={i} gap="xs" wrap="nowrap">
            <Text size="sm" data-testid="kept-filter">
              {describeKept(k.filter, inOr, nameOf)}
            </Text>
            <ActionIcon variant="subtle" color="gray" size="sm" aria-label="Remove this kept filter" onClick={() => onRemove(i)}>
              ×
            </ActionIcon>
          </Group>
        ))}
      </Stack>
      {kept.some((k) => holdsBehavioral(k.filter)) && (
        <Text size="xs" c="orange.8" data-testid="behavioral-note">
          Filters on events match no one here: cohort membership is judged from person properties only.
        </Text>
      )}
    </Stack>
  );
}

function RuleGroup({
  form,
  index,
  nameOf,
  onRemove,
}: {
  form: UseFormReturn<CohortForm>;
  index: number;
  nameOf: CohortNames;
  onRemove?: () => void;
}) {
  const kept = form.watch(`groups.${index}.kept`) ?? [];
  const match = form.watch(`groups.${index}.match`);
  const removeKept = (at: number) =>
    form.setValue(
      `groups.${index}.kept`,
      kept.filter((_, i) => i !== at),
      { shouldDirty: true },
    );
  return (
    <Paper withBorder p="sm" data-testid="rule-group">
      <Stack gap="xs">
        <Group justify="space-between">
          <Group gap="xs">
            <Text size="sm">Persons matching</Text>
            <Controller
              control={form.control}
              name={`groups.${index}.match`}
              render={({ field }) => (
                <SegmentedControl
                  size="xs"
                  data={MATCH}
                  value={field.value}
                  onChange={field.onChange}
                  aria-label="Match within the group"
                />
              )}
            />
            <Text size="sm">of these</Text>
          </Group>
          {onRemove && (
            <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove}>
              Remove group
            </Button>
          )}
        </Group>
        <KeptFilters kept={kept} inOr={match === 'OR'} nameOf={nameOf} onRemove={removeKept} />
        <PropertyFilterList form={form} name={`groups.${index}.properties`} />
      </Stack>
    </Paper>
  );
}

function Rules({ form }: { form: UseFormReturn<CohortForm> }) {
  const groups = useFieldArray({ control: form.control, name: 'groups' });
  const environment = useEnvironment();
  // Names for the cohorts kept filters refer to (the first 500, as the flag editor offers).
  const cohorts = useCohorts(environment.project_id, 0, 500);
  const names = new Map((cohorts.data?.results ?? []).map((c) => [c.id, c.name || `Cohort ${c.id}`]));
  const nameOf: CohortNames = (id) => names.get(id);
  return (
    <Stack gap="sm">
      <Group gap="xs">
        <Title order={4}>Persons in</Title>
        <Controller
          control={form.control}
          name="match"
          render={({ field }) => (
            <SegmentedControl size="xs" data={MATCH} value={field.value} onChange={field.onChange} aria-label="Match groups" />
          )}
        />
        <Title order={4}>of these groups</Title>
      </Group>
      {groups.fields.map((field, index) => (
        <RuleGroup
          key={field.id}
          form={form}
          index={index}
          nameOf={nameOf}
          onRemove={groups.fields.length > 1 ? () => groups.remove(index) : undefined}
        />
      ))}
      <Group>
        <Button size="xs" variant="light" onClick={() => groups.append(emptyGroup())}>
          Add group
        </Button>
      </Group>
    </Stack>
  );
}

function Members({ cohort }: { cohort: Cohort }) {
  const environment = useEnvironment();
  const [page, setPage] = useState(1);
  const members = useCohortMembers(environment.project_id, cohort.id, (page - 1) * MEMBERS_PAGE);
  if (members.error) return <ErrorNotice error={members.error} title="The members could not be loaded" />;
  if (members.isPending) return <Loader aria-label="Loading" />;
  const count = members.data.count ?? members.data.results.length;
  return (
    <Stack gap="xs">
      <Title order={4} data-testid="member-count">
        {count} {count === 1 ? 'person' : 'persons'}
      </Title>
      {count === 0 ? (
        <Text c="dimmed">No one is in this cohort yet.</Text>
      ) : (
        <PersonsTable persons={members.data.results} testId="members-table" rowTestId="member-row" />
      )}
      {count > MEMBERS_PAGE && <Pagination total={Math.ceil(count / MEMBERS_PAGE)} value={page} onChange={setPage} />}
    </Stack>
  );
}

function DeleteCohort({ cohort }: { cohort: Cohort }) {
  const environment = useEnvironment();
  const save = useSaveCohort(environment.project_id);
  return (
    <DeleteAndLeave
      noun="cohort"
      remove={() => save.mutateAsync({ id: cohort.id, body: { deleted: true } })}
      to={`/project/${environment.id}/cohorts`}
    >
      Flags that target it stop matching its persons.
    </DeleteAndLeave>
  );
}

function CohortEditor({ cohort }: { cohort?: Cohort }) {
  const environment = useEnvironment();
  const navigate = useNavigate();
  const save = useSaveCohort(environment.project_id);
  const form = useForm<CohortForm>({ defaultValues: cohort ? formFromCohort(cohort) : newCohortForm() });
  const [csv, setCsv] = useState<File | null>(null);
  const [csvError, setCsvError] = useState<string>();
  const [filtersError, setFiltersError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const isStatic = form.watch('isStatic');

  const submit = async (values: CohortForm) => {
    setCsvError(undefined);
    setFiltersError(undefined);
    setSaved(false);
    const groupsError = values.isStatic ? undefined : checkGroups(values);
    if (groupsError) {
      setFiltersError(groupsError);
      return;
    }
    try {
      const body = {
        name: values.name,
        description: values.description,
        ...(cohort ? {} : { is_static: values.isStatic }),
        ...(values.isStatic ? {} : { filters: filtersFromForm(values) }),
      };
      const result = await save.mutateAsync({ id: cohort?.id, body, csv: values.isStatic ? csv : null });
      form.reset(formFromCohort(result));
      setCsv(null);
      setSaved(true);
      if (!cohort) void navigate(`/project/${environment.id}/cohorts/${result.id}`, { replace: true });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const attr = error instanceof ApiError ? error.body.attr : undefined;
      if (attr === 'csv') setCsvError(message);
      else if (attr === 'filters') setFiltersError(message);
      else if (attr === 'name' || attr === 'description') form.setError(attr, { message });
      else form.setError('root', { message });
    }
  };

  return (
    <form onSubmit={(e) => void form.handleSubmit(submit)(e)} aria-label="Cohort">
      <Stack gap="lg" maw={1000}>
        <Group align="flex-start">
          <TextInput
            label="Name"
            w={320}
            error={form.formState.errors.name?.message}
            {...form.register('name', { validate: checkCohortName })}
          />
          <TextInput label="Description" w={420} error={form.formState.errors.description?.message} {...form.register('description')} />
        </Group>
        {!cohort && (
          <Controller
            control={form.control}
            name="isStatic"
            render={({ field }) => (
              <SegmentedControl
                aria-label="Cohort type"
                w={420}
                maw="100%"
                value={field.value ? 'static' : 'dynamic'}
                onChange={(value) => field.onChange(value === 'static')}
                data={[
                  { value: 'dynamic', label: 'Dynamic: by properties' },
                  { value: 'static', label: 'Static: a list (CSV)' },
                ]}
              />
            )}
          />
        )}
        {isStatic ? (
          <Stack gap={4}>
            <Text fw={600}>{cohort ? 'Add persons from a CSV file' : 'Persons from a CSV file'}</Text>
            <Text size="sm" c="dimmed">
              One distinct id per line, or a file with a distinct_id, person_id or email column.
            </Text>
            <input
              type="file"
              accept=".csv,text/csv"
              aria-label="CSV file"
              onChange={(e) => setCsv(e.currentTarget.files?.[0] ?? null)}
              data-testid="csv-input"
            />
            <ErrorText message={csvError} testId="csv-error" />
          </Stack>
        ) : (
          <>
            <Rules form={form} />
            <ErrorText message={filtersError} testId="filters-error" />
          </>
        )}
        <ErrorAlert message={form.formState.errors.root?.message} />
        <Group>
          <Button type="submit" loading={form.formState.isSubmitting}>
            {cohort ? 'Save' : 'Create cohort'}
          </Button>
          {saved && (
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
  const { cohortId } = useParams();
  const environment = useEnvironment();
  const isNew = cohortId === 'new';
  const id = isNew || !/^\d+$/.test(cohortId ?? '') ? undefined : Number(cohortId);
  const cohort = useCohort(environment.project_id, id);
  const back = (
    <Anchor component={Link} to={`/project/${environment.id}/cohorts`} size="sm">
      ← Cohorts
    </Anchor>
  );
  if (isNew) {
    return (
      <Stack>
        {back}
        <Title order={2}>New cohort</Title>
        <CohortEditor />
      </Stack>
    );
  }
  if (id === undefined) return <ErrorNotice error="There is no such cohort." title="Not found" />;
  if (cohort.error) return <ErrorNotice error={cohort.error} title="The cohort could not be loaded" />;
  if (cohort.isPending) return <Loader aria-label="Loading" />;
  return (
    <Stack>
      {back}
      <Group justify="space-between">
        <Title order={2}>{cohort.data.name || `Cohort ${cohort.data.id}`}</Title>
        {!cohort.data.deleted && <DeleteCohort cohort={cohort.data} />}
      </Group>
      <Text size="sm" c="dimmed">
        {cohort.data.is_static ? 'Static cohort' : 'Dynamic cohort: persons are judged by their properties when asked'}
      </Text>
      <CohortEditor key={cohort.data.id} cohort={cohort.data} />
      <Members cohort={cohort.data} />
    </Stack>
  );
}
