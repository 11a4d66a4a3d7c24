/** A survey's results, per question: bars for choices and ratings, the open answers as text. */
import { Anchor, Group, Loader, NativeSelect, Paper, Progress, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { useSurveyResults, useSurveyStats, type QuestionResult } from '../../api/surveys';
import { TableHead } from '../../components/TableHead';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { questionTypeLabel } from './survey-form';
import { DateTime } from '../../components/DateTime';

const EMOJI: Record<number, string[]> = { 3: ['😞', '😐', '😀'], 5: ['😡', '😞', '😐', '😀', '😍'] };

const percent = (count: number, total: number) => (total > 0 ? Math.round((count / total) * 1000) / 10 : 0);

/** One bar: a label, its share of `total` and the count. */
function Bar({ label, count, total, testId }: { label: string; count: number; total: number; testId: string }) {
  const share = percent(count, total);
  return (
    <div data-testid={testId}>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm" data-testid="bar-label">
          {label}
        </Text>
        <Text size="sm" c="dimmed" data-testid="bar-count">
          {count} ({share}%)
        </Text>
      </Group>
      <Progress value={share} size="lg" aria-label={`${label}: ${count}`} />
    </div>
  );
}

function Choices({ result }: { result: QuestionResult }) {
  return (
    <Stack gap={6}>
      {(result.choices ?? []).map((choice) => (
        <Bar
          key={`${choice.is_open_choice ? 'open:' : ''}${choice.label}`}
          label={choice.is_open_choice ? `${choice.label} (other)` : choice.label}
          count={choice.count}
          total={result.responses}
          testId="choice-result"
        />
      ))}
    </Stack>
  );
}

function Rating({ result }: { result: QuestionResult }) {
  const rating = result.rating;
  if (!rating) return null;
  const emoji = rating.display === 'emoji' ? EMOJI[rating.scale] : undefined;
  return (
    <Stack gap={6}>
      <Text size="sm" data-testid="rating-average">
        Average: {rating.average === null ? '—' : rating.average.toFixed(2)} / {rating.scale}
      </Text>
      {rating.counts.map(({ value, count }) => (
        <Bar
          key={value}
          label={emoji?.[value - 1] ? `${emoji[value - 1]} ${value}` : String(value)}
          count={count}
          total={result.responses}
          testId="rating-result"
        />
      ))}
    </Stack>
  );
}

function Answers({ result }: { result: QuestionResult }) {
  const environment = useEnvironment();
  const answers = result.answers ?? [];
  if (answers.length === 0) return null;
  return (
    <Table data-testid="open-answers">
      <TableHead columns={['Answer', 'Person', { label: 'When', w: 200 }]} />
      <Table.Tbody>
        {answers.map((answer, i) => (
          <Table.Tr key={i} data-testid="open-answer">
            <Table.Td data-testid="answer-value">{answer.value}</Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/project/${environment.id}/person/${encodeURIComponent(answer.distinct_id)}`} size="sm">
                {answer.distinct_id}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <DateTime value={answer.timestamp} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function QuestionCard({ result }: { result: QuestionResult }) {
  return (
    <Paper withBorder p="md" data-testid="question-result">
      <Stack gap="sm">
        <div>
          <Text size="xs" c="dimmed" tt="uppercase">
            Question {result.index + 1} · {questionTypeLabel(result.type)}
          </Text>
          <Title order={5} data-testid="question-title">
            {result.question}
          </Title>
          <Text size="sm" c="dimmed" data-testid="question-responses">
            {result.responses} {result.responses === 1 ? 'response' : 'responses'}
          </Text>
        </div>
        {result.responses === 0 ? (
          <Text size="sm" c="dimmed">
            No answers yet.
          </Text>
        ) : result.choices ? (
          <Choices result={result} />
        ) : result.rating ? (
          <Rating result={result} />
        ) : (
          <Answers result={result} />
        )}
      </Stack>
    </Paper>
  );
}

const STATS = [
  ['survey shown', 'Shown'],
  ['survey dismissed', 'Dismissed'],
  ['survey sent', 'Sent'],
] as const;

/** How often the survey was shown, dismissed and answered (nothing when the figures are not there). */
function Stats({ surveyId }: { surveyId: string }) {
  const environment = useEnvironment();
  const stats = useSurveyStats(environment.project_id, surveyId);
  if (!stats.data) return null;
  return (
    <SimpleGrid cols={3} maw={700} data-testid="survey-stats">
      {STATS.map(([event, label]) => {
        const figures = stats.data.stats[event];
        return (
          <Paper key={event} withBorder p="sm">
            <Text size="xs" c="dimmed" tt="uppercase">
              {label}
            </Text>
            <Text size="xl" fw={600} data-testid={`stat-${label.toLowerCase()}`}>
              {figures?.total_count ?? 0}
            </Text>
            <Text size="xs" c="dimmed">
              {figures?.unique_persons ?? 0} unique {figures?.unique_persons === 1 ? 'person' : 'persons'}
            </Text>
          </Paper>
        );
      })}
    </SimpleGrid>
  );
}

/** The periods the results can be read over: the survey's whole run (the API's default), or the last days. */
const PERIODS = [
  { value: '', label: 'Since the survey started' },
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
];

export function SurveyResults({ surveyId }: { surveyId: string }) {
  const environment = useEnvironment();
  const [days, setDays] = useState('');
  // Whole days, so that the query (and its cache key) stays the same while the page is open.
  const [today] = useState(() => new Date(new Date().setUTCHours(0, 0, 0, 0)));
  const from = days === '' ? undefined : new Date(today.getTime() - (Number(days) - 1) * 86_400_000).toISOString();
  const results = useSurveyResults(environment.project_id, surveyId, { date_from: from });
  return (
    <Stack>
      <Stats surveyId={surveyId} />
      <NativeSelect label="Period" w={240} data={PERIODS} value={days} onChange={(e) => setDays(e.currentTarget.value)} />
      {results.error ? (
        <ErrorNotice error={results.error} title="The results could not be loaded" />
      ) : results.isPending ? (
        <Loader aria-label="Loading" />
      ) : (
        <>
          <Text size="sm" c="dimmed" data-testid="results-total">
            {results.data.responses} {results.data.responses === 1 ? 'submission' : 'submissions'} from{' '}
            <DateTime value={results.data.date_range.date_from} dateOnly /> to <DateTime value={results.data.date_range.date_to} dateOnly />
          </Text>
          {results.data.questions.map((result) => (
            <QuestionCard key={`${result.index}:${result.id ?? ''}`} result={result} />
          ))}
        </>
      )}
    </Stack>
  );
}
