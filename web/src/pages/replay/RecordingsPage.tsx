import { Anchor, Badge, Button, Group, NumberInput, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMemo } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link, useSearchParams } from 'react-router';
import { useRecordings, type RecordingFilters } from '../../api/recordings';
import { useEnvironment } from '../../shell/ProjectScope';
import { formatDuration, personLabel } from './format';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';
import { DateTime } from '../../components/DateTime';

const PERIODS = [
  { value: '-24h', label: 'Last 24 hours' },
  { value: '-3d', label: 'Last 3 days' },
  { value: '-7d', label: 'Last 7 days' },
  { value: '-30d', label: 'Last 30 days' },
  { value: '-90d', label: 'Last 90 days' },
  { value: 'all', label: 'All time' },
  { value: 'custom', label: 'From a date…' },
];
const DEFAULT_PERIOD = '-3d';
const PAGE = 50;

interface FormValues {
  person: string;
  minDuration: number | string;
  period: string;
  from: string;
  until: string;
}

/** The address keeps the filters (`person`, `min_duration`, `date_from`, `date_to`), so a view can be shared. */
function readFilters(params: URLSearchParams): RecordingFilters {
  return {
    person: params.get('person') ?? '',
    minDuration: Math.max(0, Math.floor(Number(params.get('min_duration') ?? 0)) || 0),
    dateFrom: params.get('date_from') ?? DEFAULT_PERIOD,
    dateTo: params.get('date_to') ?? '',
  };
}

const isPreset = (value: string) => PERIODS.some((p) => p.value === value && p.value !== 'custom');
/** `YYYY-MM-DD` of a date input → the start (or the end) of that day, local time, as ISO. */
const dayStart = (day: string) => new Date(`${day}T00:00:00`).toISOString();
const dayEnd = (day: string) => new Date(`${day}T23:59:59.999`).toISOString();
const toDay = (iso: string) => {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
};

function Filters({ value, onApply }: { value: RecordingFilters; onApply: (next: URLSearchParams) => void }) {
  const form = useForm<FormValues>({
    values: {
      person: value.person,
      minDuration: value.minDuration || '',
      period: isPreset(value.dateFrom) ? value.dateFrom : 'custom',
      from: isPreset(value.dateFrom) ? '' : toDay(value.dateFrom),
      until: value.dateTo ? toDay(value.dateTo) : '',
    },
  });
  const period = form.watch('period');
  const apply = (v: FormValues) => {
    const next = new URLSearchParams();
    if (v.person.trim()) next.set('person', v.person.trim());
    const min = Number(v.minDuration);
    if (Number.isFinite(min) && min > 0) next.set('min_duration', String(Math.floor(min)));
    if (v.period === 'custom') {
      if (!v.from) {
        form.setError('from', { message: 'Pick the first day' });
        return;
      }
      next.set('date_from', dayStart(v.from));
    } else if (v.period !== DEFAULT_PERIOD) next.set('date_from', v.period);
    if (v.until) next.set('date_to', dayEnd(v.until));
    onApply(next);
  };
  return (
    <form onSubmit={(e) => void form.handleSubmit(apply)(e)}>
      <Group align="flex-end" gap="sm">
        <TextInput label="Person" placeholder="Distinct id or person UUID" w={260} {...form.register('person')} />
        <Controller
          control={form.control}
          name="minDuration"
          render={({ field }) => (
            <NumberInput label="Longer than (seconds)" min={0} allowDecimal={false} w={170} value={field.value} onChange={field.onChange} />
          )}
        />
        <Controller
          control={form.control}
          name="period"
          render={({ field }) => (
            <Select
              label="Period"
              data={PERIODS}
              allowDeselect={false}
              w={170}
              value={field.value}
              onChange={(v) => field.onChange(v ?? DEFAULT_PERIOD)}
            />
          )}
        />
        {period === 'custom' && (
          <TextInput label="From" type="date" error={form.formState.errors.from?.message} {...form.register('from')} />
        )}
        <TextInput label="Until" type="date" {...form.register('until')} />
        <Button type="submit">Apply</Button>
      </Group>
    </form>
  );
}

/** Session replay: the environment's recordings, newest first, filtered by person, duration and date. */
export function Component() {
  const environment = useEnvironment();
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => readFilters(params), [params]);
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const list = useRecordings(environment.id, filters, offset);
  const base = `/project/${environment.id}/replay`;
  const setOffset = (next: number) =>
    setParams((current) => {
      const copy = new URLSearchParams(current);
      if (next > 0) copy.set('offset', String(next));
      else copy.delete('offset');
      return copy;
    });

  const rows = list.data?.results ?? [];
  return (
    <Stack gap="sm">
      <Title order={2}>Session replay</Title>
      <Filters value={filters} onApply={setParams} />
      <ErrorAlert message={list.error?.message} />
      {list.isPending && <Text c="dimmed">Loading recordings…</Text>}
      {list.isSuccess && rows.length === 0 && (
        <Text c="dimmed" data-testid="recordings-empty">
          No recordings match. Recordings appear when posthog-js records sessions: turn on session replay in the environment's settings.
        </Text>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover data-testid="recordings-table">
            <TableHead columns={['Person', 'Started', 'Duration', 'Activity', 'Start URL']} />
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.id} data-testid="recording-row" data-session-id={r.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`${base}/${encodeURIComponent(r.id)}`} fw={r.viewed ? 400 : 600}>
                      {personLabel(r)}
                    </Anchor>
                    {r.ongoing && (
                      <Badge size="xs" ml="xs" color="green" variant="dot">
                        ongoing
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{r.start_time ? <DateTime value={r.start_time} /> : ''}</Table.Td>
                  <Table.Td data-testid="recording-duration">{formatDuration(r.recording_duration)}</Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      {r.click_count} clicks · {r.keypress_count} keys
                      {r.console_error_count > 0 && (
                        <Text span c="red">
                          {' '}
                          · {r.console_error_count} errors
                        </Text>
                      )}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ maxWidth: 320, overflowWrap: 'anywhere' }}>{r.start_url ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {(offset > 0 || list.data?.has_next) && (
        <Group>
          <Button variant="default" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Newer
          </Button>
          <Button variant="default" disabled={!list.data?.has_next} onClick={() => setOffset(offset + PAGE)}>
            Older
          </Button>
        </Group>
      )}
    </Stack>
  );
}
