import { Anchor, Badge, Button, Group, List, Loader, Paper, Stack, Table, Tabs, Text, Title, useMantineTheme } from '@mantine/core';
import { Link, useParams, useSearchParams } from 'react-router';
import { surveyStatus, useDeleteSurvey, useSaveSurvey, useSurvey, type Survey, type SurveyWrite } from '../../api/surveys';
import { ConfirmAction } from '../../components/ConfirmAction';
import { DeleteAndLeave } from '../../components/DeleteAndLeave';
import { ErrorText } from '../../components/ErrorAlert';
import { useEnvironmentSettings, useUpdateEnvironment } from '../../api/settings';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { questionTypeLabel, URL_MATCH_TYPES } from './survey-form';
import { SurveyResults } from './SurveyResults';
import { StatusBadge, surveyTypeLabel } from './SurveyStatus';
import { formatDateTime } from '../../lib/format';

/** Launch, stop, resume, archive, edit and delete, as the survey's status allows. */
function Actions({ survey }: { survey: Survey }) {
  const environment = useEnvironment();
  const { primaryColor } = useMantineTheme();
  const save = useSaveSurvey(environment.project_id);
  const remove = useDeleteSurvey(environment.project_id);
  const status = surveyStatus(survey);
  const settings = useEnvironmentSettings(environment.id);
  const optIn = useUpdateEnvironment(environment.id);
  const patch = (body: SurveyWrite) => save.mutateAsync({ id: survey.id, body });
  const now = () => new Date().toISOString();
  // As PostHog's app does: launching a survey turns surveys on for the environment, so posthog-js loads them.
  const launch = async () => {
    await patch({ start_date: now() });
    if (settings.data?.surveys_opt_in !== true) await optIn.mutateAsync({ surveys_opt_in: true });
  };
  return (
    <Stack gap={4} align="flex-end">
      <Group gap="xs">
        <Button variant="default" component={Link} to={`/project/${environment.id}/surveys/${survey.id}/edit`}>
          Edit
        </Button>
        {status === 'draft' && (
          // The page's primary action, as PostHog's: the app's primary button (filled, the theme's primary colour).
          <ConfirmAction label="Launch" size="sm" variant="filled" color={primaryColor} title="Launch this survey?" action={launch}>
            Once launched, posthog-js shows it to the people it targets, where its conditions match.
            {settings.data?.surveys_opt_in !== true && ' Surveys are turned on for this environment.'}
          </ConfirmAction>
        )}
        {status === 'running' && (
          <ConfirmAction
            label="Stop"
            size="sm"
            variant="light"
            color="red"
            title="Stop this survey?"
            action={() => patch({ end_date: now() })}
          >
            No one will see it any more. You can resume it later.
          </ConfirmAction>
        )}
        {status === 'completed' && !survey.archived && (
          <Button variant="light" loading={save.isPending} onClick={() => void patch({ end_date: null }).catch(() => undefined)}>
            Resume
          </Button>
        )}
        {status !== 'running' &&
          (survey.archived ? (
            <Button variant="subtle" loading={save.isPending} onClick={() => void patch({ archived: false }).catch(() => undefined)}>
              Unarchive
            </Button>
          ) : (
            <ConfirmAction
              label="Archive"
              size="sm"
              variant="subtle"
              color="gray"
              title="Archive this survey?"
              action={() => patch({ archived: true })}
            >
              It moves to the archived surveys, its results kept.
            </ConfirmAction>
          ))}
        <DeleteAndLeave noun="survey" remove={() => remove.mutateAsync(survey.id)} to={`/project/${environment.id}/surveys`}>
          <b>{survey.name}</b> and its settings are deleted; its responses stay in the events.
        </DeleteAndLeave>
      </Group>
      <ErrorText message={save.error?.message ?? optIn.error?.message} testId="action-error" />
    </Stack>
  );
}

const matchLabel = (type: string | undefined) => URL_MATCH_TYPES.find((t) => t.value === type)?.label ?? 'contains';

/** What the survey asks, and to whom and where it is shown. */
function Overview({ survey }: { survey: Survey }) {
  const conditions = survey.conditions ?? {};
  const events = conditions.events?.values ?? [];
  const targeting = survey.targeting_flag?.filters?.groups?.[0]?.properties ?? [];
  const rows: [string, string][] = [
    ['Presentation', surveyTypeLabel(survey.type)],
    ['Start date', survey.start_date ? formatDateTime(survey.start_date) : 'Not launched'],
    ['End date', survey.end_date ? formatDateTime(survey.end_date) : '—'],
    ['URL', conditions.url ? `${matchLabel(conditions.urlMatchType)} ${conditions.url}` : 'Any'],
    ['CSS selector', conditions.selector || '—'],
    ['Wait period', conditions.seenSurveyWaitPeriodInDays == null ? '—' : `${conditions.seenSurveyWaitPeriodInDays} days`],
    [
      'After events',
      events.length ? events.map((e) => e.name).join(', ') + (conditions.events?.repeatedActivation ? ' (every time)' : '') : '—',
    ],
    ['Linked flag', survey.linked_flag?.key ?? '—'],
    [
      'Targeting',
      targeting.length ? targeting.map((p) => `${p.key} ${p.operator ?? 'exact'} ${JSON.stringify(p.value)}`).join('; ') : 'Everyone',
    ],
    ['Responses limit', survey.responses_limit == null ? '—' : String(survey.responses_limit)],
    ['Created by', `${survey.created_by?.email ?? ''} on ${formatDateTime(survey.created_at)}`],
  ];
  return (
    <Stack>
      {survey.description && <Text>{survey.description}</Text>}
      <Title order={4}>Questions</Title>
      <Stack gap="xs" data-testid="survey-questions">
        {survey.questions.map((question, i) => (
          <Paper key={question.id ?? i} withBorder p="sm" data-testid="survey-question">
            <Text size="xs" c="dimmed" tt="uppercase">
              {i + 1} · {questionTypeLabel(question.type)}
              {question.optional ? ' · optional' : ''}
            </Text>
            <Text fw={600}>{question.question}</Text>
            {question.description && <Text size="sm">{question.description}</Text>}
            {question.choices && (
              <List size="sm">
                {question.choices.map((choice, c) => (
                  <List.Item key={c}>
                    {choice}
                    {question.hasOpenChoice && c === (question.choices?.length ?? 0) - 1 ? ' (open)' : ''}
                  </List.Item>
                ))}
              </List>
            )}
            {question.type === 'rating' && (
              <Text size="sm" c="dimmed">
                {question.display === 'emoji' ? 'Emoji' : 'Number'} 1–{question.scale} · {question.lowerBoundLabel} …{' '}
                {question.upperBoundLabel}
              </Text>
            )}
            {question.type === 'link' && question.link && (
              <Text size="sm" c="dimmed">
                {question.link}
              </Text>
            )}
          </Paper>
        ))}
      </Stack>
      <Table maw={800} data-testid="survey-details">
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th w={180}>{label}</Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

/** One survey: its status and actions, what it asks, and its results. */
export function Component() {
  const { surveyId } = useParams();
  const environment = useEnvironment();
  const [params, setParams] = useSearchParams();
  const survey = useSurvey(environment.project_id, surveyId);
  const back = (
    <Anchor component={Link} to={`/project/${environment.id}/surveys`} size="sm">
      ← Surveys
    </Anchor>
  );
  if (survey.error) return <ErrorNotice error={survey.error} title="The survey could not be loaded" />;
  if (survey.isPending) return <Loader aria-label="Loading" />;
  const data = survey.data;
  const status = surveyStatus(data);
  const tab = params.get('tab') ?? (status === 'draft' ? 'overview' : 'results');
  return (
    <Stack>
      {back}
      <Group justify="space-between" align="flex-start">
        <Group gap="sm">
          <Title order={2}>{data.name}</Title>
          <StatusBadge status={status} />
          {data.archived && (
            <Badge color="gray" variant="outline">
              Archived
            </Badge>
          )}
        </Group>
        <Actions survey={data} />
      </Group>
      <Tabs value={tab} onChange={(value) => setParams(value ? { tab: value } : {}, { replace: true })} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="results">Results</Tabs.Tab>
          <Tabs.Tab value="overview">Overview</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="results" pt="md">
          <SurveyResults surveyId={data.id} />
        </Tabs.Panel>
        <Tabs.Panel value="overview" pt="md">
          <Overview survey={data} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
