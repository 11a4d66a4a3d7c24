import { Anchor, Badge, Button, Group, Loader, Pagination, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { Link } from 'react-router';
import { INSIGHTS_PAGE, sourceOf, useInsights, type Insight } from '../../api/insights';
import { TableHead } from '../../components/TableHead';
import { useListQuery } from '../../components/useListQuery';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { DateTime } from '../../components/DateTime';

const KINDS: Record<string, string> = {
  TrendsQuery: 'Trends',
  FunnelsQuery: 'Funnel',
  RetentionQuery: 'Retention',
  LifecycleQuery: 'Lifecycle',
  StickinessQuery: 'Stickiness',
};

function kindOf(insight: Insight): string {
  const kind = sourceOf(insight.query)?.kind;
  return (kind && KINDS[kind]) ?? 'Other';
}

/** `insights`: the environment's saved insights, searched by name, newest change first. */
export function Component() {
  const environment = useEnvironment();
  const base = `/project/${environment.id}`;
  const { search, offset, setOffset, searchInput } = useListQuery();
  const insights = useInsights(environment.id, search, offset);
  const count = insights.data?.count ?? 0;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Product analytics</Title>
        <Button component={Link} to={`${base}/insights/new`}>
          New insight
        </Button>
      </Group>
      <TextInput label="Search" placeholder="insight name" w={300} {...searchInput} />
      {insights.error ? (
        <ErrorNotice error={insights.error} title="The insights could not be loaded" />
      ) : insights.isPending ? (
        <Loader aria-label="Loading" />
      ) : count === 0 ? (
        <Text c="dimmed" data-testid="insights-empty">
          {search ? 'No insights match this search.' : 'No saved insights yet. Make one to chart your events.'}
        </Text>
      ) : (
        <>
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover data-testid="insights-table">
              <TableHead columns={['Name', 'Type', 'Last modified', 'By']} />
              <Table.Tbody>
                {insights.data.results.map((insight) => (
                  <Table.Tr key={insight.id} data-testid="insight-row">
                    <Table.Td>
                      {/* A name without spaces wraps anywhere rather than widening the table past the page. */}
                      <Anchor component={Link} to={`${base}/insights/${insight.short_id}`} style={{ overflowWrap: 'anywhere' }}>
                        {insight.name || 'Untitled insight'}
                      </Anchor>
                      {insight.description && (
                        <Text size="xs" c="dimmed" lineClamp={1}>
                          {insight.description}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light">{kindOf(insight)}</Badge>
                    </Table.Td>
                    <Table.Td>
                      <DateTime value={insight.last_modified_at} timeZone={environment.timezone} />
                    </Table.Td>
                    <Table.Td>{insight.last_modified_by?.email ?? ''}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {count > INSIGHTS_PAGE && (
            <Pagination
              total={Math.ceil(count / INSIGHTS_PAGE)}
              value={Math.floor(offset / INSIGHTS_PAGE) + 1}
              onChange={(n) => setOffset((n - 1) * INSIGHTS_PAGE)}
            />
          )}
        </>
      )}
    </Stack>
  );
}
