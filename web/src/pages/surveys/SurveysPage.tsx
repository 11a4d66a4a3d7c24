import { Anchor, Badge, Button, Group, Loader, SegmentedControl, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { surveyStatus, useResponsesCount, useSurveys, type Survey } from '../../api/surveys';
import { TableHead } from '../../components/TableHead';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { StatusBadge, surveyTypeLabel } from './SurveyStatus';
import { DateTime } from '../../components/DateTime';

const matches = (survey: Survey, search: string) => {
  const needle = search.trim().toLowerCase();
  return needle === '' || survey.name.toLowerCase().includes(needle) || (survey.description ?? '').toLowerCase().includes(needle);
};

/** The project's surveys, as PostHog's list has them: active or archived, searched by name, newest first. */
export function Component() {
  const environment = useEnvironment();
  const base = `/project/${environment.id}/surveys`;
  const [params, setParams] = useSearchParams();
  const archived = params.get('tab') === 'archived';
  const search = params.get('search') ?? '';
  const surveys = useSurveys(environment.project_id);
  const counts = useResponsesCount(environment.project_id);

  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };

  const all = surveys.data?.results ?? [];
  const shown = all.filter((s) => s.archived === archived && matches(s, search)).sort((a, b) => b.created_at.localeCompare(a.created_at));
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Surveys</Title>
        <Button component={Link} to={`${base}/new`}>
          New survey
        </Button>
      </Group>
      <Group align="flex-end">
        <SegmentedControl
          aria-label="Surveys shown"
          value={archived ? 'archived' : 'active'}
          onChange={(value) => setParam('tab', value === 'archived' ? 'archived' : '')}
          data={[
            { value: 'active', label: 'Active' },
            { value: 'archived', label: 'Archived' },
          ]}
        />
        <TextInput
          aria-label="Search surveys"
          placeholder="Search surveys"
          w={260}
          value={search}
          onChange={(e) => setParam('search', e.currentTarget.value)}
        />
      </Group>
      {surveys.error ? (
        <ErrorNotice error={surveys.error} title="The surveys could not be loaded" />
      ) : surveys.isPending ? (
        <Loader aria-label="Loading" />
      ) : shown.length === 0 ? (
        <Text c="dimmed" data-testid="surveys-empty">
          {all.length === 0
            ? 'No surveys yet. Ask your users a question on your site, or through the API.'
            : archived
              ? 'No archived surveys.'
              : 'No surveys match.'}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover data-testid="surveys-table">
            <TableHead columns={['Name', 'Responses', 'Type', 'Created by', 'Created', 'Status']} />
            <Table.Tbody>
              {shown.map((survey) => (
                <Table.Tr key={survey.id} data-testid="survey-row">
                  <Table.Td>
                    <Anchor component={Link} to={`${base}/${survey.id}`}>
                      {survey.name}
                    </Anchor>
                    {survey.description && (
                      <Text size="xs" c="dimmed" lineClamp={1}>
                        {survey.description}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td data-testid="survey-responses">{counts.data ? (counts.data[survey.id] ?? 0) : '—'}</Table.Td>
                  <Table.Td>{surveyTypeLabel(survey.type)}</Table.Td>
                  <Table.Td>{survey.created_by?.email ?? ''}</Table.Td>
                  <Table.Td>
                    <DateTime value={survey.created_at} dateOnly />
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      <StatusBadge status={surveyStatus(survey)} />
                      {survey.archived && (
                        <Badge color="gray" variant="outline">
                          Archived
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
