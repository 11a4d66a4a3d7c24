import { Anchor, Badge, Button, Group, Loader, NativeSelect, Pagination, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FLAGS_PAGE, useFlagCreators, useFlags, type FlagListParams } from '../../api/flags';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { describeRelease } from './flag-form';
import { TableHead } from '../../components/TableHead';

/** The project's feature flags: search and filters kept in the address, as PostHog's list has them. */
export function Component() {
  const environment = useEnvironment();
  const base = `/project/${environment.id}`;
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const filters: FlagListParams = {
    search: params.get('search') ?? '',
    active: (params.get('active') ?? '') as FlagListParams['active'],
    type: (params.get('type') ?? '') as FlagListParams['type'],
    created_by_id: params.get('created_by_id') ?? '',
    offset: (page - 1) * FLAGS_PAGE,
  };
  const [search, setSearch] = useState(filters.search ?? '');
  const flags = useFlags(environment.project_id, filters);
  const creators = useFlagCreators(environment.project_id);

  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    next.delete('page');
    setParams(next, { replace: true });
  };

  const filtered = Boolean(filters.search || filters.active || filters.type || filters.created_by_id);
  const count = flags.data?.count ?? 0;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Feature flags</Title>
        <Button component={Link} to={`${base}/feature_flags/new`}>
          New feature flag
        </Button>
      </Group>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setParam('search', search.trim());
        }}
        aria-label="Flag filters"
      >
        <Group align="flex-end" gap="xs">
          <TextInput label="Search" placeholder="key or name" value={search} onChange={(e) => setSearch(e.currentTarget.value)} w={260} />
          <NativeSelect
            label="Status"
            value={filters.active}
            onChange={(e) => setParam('active', e.currentTarget.value)}
            data={[
              { value: '', label: 'Any' },
              { value: 'true', label: 'Enabled' },
              { value: 'false', label: 'Disabled' },
            ]}
            w={140}
          />
          <NativeSelect
            label="Type"
            value={filters.type}
            onChange={(e) => setParam('type', e.currentTarget.value)}
            data={[
              { value: '', label: 'Any' },
              { value: 'boolean', label: 'Boolean' },
              { value: 'multivariant', label: 'Multivariate' },
            ]}
            w={150}
          />
          <NativeSelect
            label="Created by"
            value={filters.created_by_id}
            onChange={(e) => setParam('created_by_id', e.currentTarget.value)}
            data={[{ value: '', label: 'Anyone' }, ...(creators.data ?? []).map((u) => ({ value: String(u.id), label: u.email }))]}
            w={220}
          />
          <Button type="submit" variant="default">
            Search
          </Button>
        </Group>
      </form>
      {flags.error ? (
        <ErrorNotice error={flags.error} title="The flags could not be loaded" />
      ) : flags.isPending ? (
        <Loader aria-label="Loading" />
      ) : count === 0 ? (
        <Text c="dimmed" data-testid="flags-empty">
          {filtered ? 'No flags match these filters.' : 'No feature flags yet. Create one to roll a feature out.'}
        </Text>
      ) : (
        <>
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover data-testid="flags-table">
              <TableHead columns={['Key', 'Name', 'Release', 'Created by', 'Status']} />
              <Table.Tbody>
                {flags.data?.results.map((flag) => (
                  <Table.Tr key={flag.id} data-testid="flag-row">
                    <Table.Td>
                      <Anchor component={Link} to={`${base}/feature_flags/${flag.id}`} className="mono">
                        {flag.key}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>{flag.name}</Table.Td>
                    <Table.Td>{describeRelease(flag.filters)}</Table.Td>
                    <Table.Td>{flag.created_by?.email ?? ''}</Table.Td>
                    <Table.Td>
                      <Badge color={flag.active ? 'green' : 'gray'} variant="light">
                        {flag.active ? 'Enabled' : 'Disabled'}
                      </Badge>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {count > FLAGS_PAGE && (
            <Pagination
              total={Math.ceil(count / FLAGS_PAGE)}
              value={page}
              onChange={(n) => {
                const next = new URLSearchParams(params);
                next.set('page', String(n));
                setParams(next);
              }}
            />
          )}
        </>
      )}
    </Stack>
  );
}
