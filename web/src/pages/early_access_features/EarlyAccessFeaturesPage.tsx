import { Anchor, Badge, Button, Group, Loader, Pagination, Stack, Table, Text, Title } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useEarlyAccessFeatures, useEnrollments, type EarlyAccessFeature } from '../../api/early-access';
import { TableHead } from '../../components/TableHead';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { StageBadge } from './StageBadge';

const PAGE = 50;

/** How many persons opted in: the count of the persons list filtered on the enrollment property. */
function OptedIn({ flagKey }: { flagKey: string | undefined }) {
  const environment = useEnvironment();
  const persons = useEnrollments(environment.id, flagKey, true, 0, 1);
  if (!flagKey) return <>—</>;
  if (persons.isPending) return <Loader size="xs" aria-label="Loading" />;
  return <>{persons.data?.count ?? persons.data?.results.length ?? '—'}</>;
}

function Row({ feature, base }: { feature: EarlyAccessFeature; base: string }) {
  const environment = useEnvironment();
  const flag = feature.feature_flag;
  return (
    <Table.Tr data-testid="feature-row">
      <Table.Td>
        <Anchor component={Link} to={`${base}/${feature.id}`}>
          {feature.name}
        </Anchor>
      </Table.Td>
      <Table.Td>
        <StageBadge stage={feature.stage} />
      </Table.Td>
      <Table.Td>
        {flag ? (
          <Anchor component={Link} to={`/project/${environment.id}/feature_flags/${flag.id}`} className="mono">
            {flag.key}
          </Anchor>
        ) : (
          <Badge color="gray" variant="light">
            No flag
          </Badge>
        )}
      </Table.Td>
      <Table.Td data-testid="opted-in-count">
        <OptedIn flagKey={flag?.key} />
      </Table.Td>
    </Table.Tr>
  );
}

/** The project's early access features, in creation order, with who opted in. */
export function Component() {
  const environment = useEnvironment();
  const base = `/project/${environment.id}/early_access_features`;
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const features = useEarlyAccessFeatures(environment.project_id, (page - 1) * PAGE, PAGE);
  const count = features.data?.count ?? 0;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Early access features</Title>
        <Button component={Link} to={`${base}/new`}>
          New feature
        </Button>
      </Group>
      {features.error ? (
        <ErrorNotice error={features.error} title="The early access features could not be loaded" />
      ) : features.isPending ? (
        <Loader aria-label="Loading" />
      ) : count === 0 ? (
        <Text c="dimmed" data-testid="features-empty">
          No early access features yet. Users opt into one with posthog-js&apos;s updateEarlyAccessFeatureEnrollment, and its flag turns on
          for them.
        </Text>
      ) : (
        <>
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover data-testid="features-table">
              <TableHead columns={['Name', 'Stage', 'Feature flag', 'Opted in']} />
              <Table.Tbody>
                {features.data?.results.map((feature) => (
                  <Row key={feature.id} feature={feature} base={base} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {count > PAGE && <Pagination total={Math.ceil(count / PAGE)} value={page} onChange={(n) => setParams({ page: String(n) })} />}
        </>
      )}
    </Stack>
  );
}
