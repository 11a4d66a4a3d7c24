import { Alert, Anchor, Badge, Button, Group, List, Stack, Tabs, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { usePersonByDistinctId, type Person } from '../../api/persons';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { DeletePersonModal } from './DeletePersonModal';
import { personName, personPath } from './format';
import { PersonCohorts } from './PersonCohorts';
import { PersonEvents } from './PersonEvents';
import { PersonRecordings } from './PersonRecordings';
import { PropertiesTable } from './PropertiesTable';
import { SplitPersonModal } from './SplitPersonModal';
import { Loading } from '../../components/Loading';
import { DateTime } from '../../components/DateTime';

const TABS = ['properties', 'events', 'recordings', 'cohorts', 'distinct_ids'] as const;
type Tab = (typeof TABS)[number];

/** What the page says after a split sends it to the kept distinct id. */
interface PageNotice {
  notice?: string;
}

function PersonView({ person }: { person: Person }) {
  const environment = useEnvironment();
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const tab: Tab = (TABS as readonly string[]).includes(params.get('tab') ?? '') ? (params.get('tab') as Tab) : 'properties';
  const [dialog, setDialog] = useState<'delete' | 'split' | null>(null);
  const notice = (location.state as PageNotice | null)?.notice;

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Text size="sm">
            <Anchor component={Link} to={`/project/${environment.id}/persons`}>
              People
            </Anchor>
          </Text>
          <Title order={2} style={{ wordBreak: 'break-word' }} data-testid="person-name">
            {personName(person)}
          </Title>
          <Group gap="xs">
            {person.is_identified && (
              <Badge variant="light" color="green">
                identified
              </Badge>
            )}
            <Text size="sm" c="dimmed">
              first seen <DateTime value={person.created_at} />
            </Text>
            <Text size="sm" c="dimmed" className="mono" data-testid="person-uuid">
              {person.uuid}
            </Text>
          </Group>
        </Stack>
        <Group gap="xs" wrap="nowrap">
          <Button variant="default" disabled={person.distinct_ids.length < 2} onClick={() => setDialog('split')}>
            Split IDs
          </Button>
          <Button color="red" variant="light" onClick={() => setDialog('delete')}>
            Delete person
          </Button>
        </Group>
      </Group>
      {notice && (
        <Alert color="green" role="status" withCloseButton onClose={() => void navigate('.', { replace: true, state: null })}>
          {notice}
        </Alert>
      )}
      <Tabs
        value={tab}
        keepMounted={false}
        onChange={(value) =>
          setParams(
            (current) => {
              const next = new URLSearchParams(current);
              if (!value || value === 'properties') next.delete('tab');
              else next.set('tab', value);
              return next;
            },
            { replace: true },
          )
        }
      >
        <Tabs.List>
          <Tabs.Tab value="properties">Properties</Tabs.Tab>
          <Tabs.Tab value="events">Events</Tabs.Tab>
          <Tabs.Tab value="recordings">Recordings</Tabs.Tab>
          <Tabs.Tab value="cohorts">Cohorts</Tabs.Tab>
          <Tabs.Tab value="distinct_ids">Distinct IDs ({person.distinct_ids.length})</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="properties" pt="sm">
          <PropertiesTable properties={person.properties} label="Person properties" />
        </Tabs.Panel>
        <Tabs.Panel value="events" pt="sm">
          <PersonEvents person={person} />
        </Tabs.Panel>
        <Tabs.Panel value="recordings" pt="sm">
          <PersonRecordings person={person} />
        </Tabs.Panel>
        <Tabs.Panel value="cohorts" pt="sm">
          <PersonCohorts person={person} />
        </Tabs.Panel>
        <Tabs.Panel value="distinct_ids" pt="sm">
          <List spacing={4} data-testid="distinct-ids">
            {person.distinct_ids.map((id) => (
              <List.Item key={id} className="mono" style={{ wordBreak: 'break-all' }}>
                {id}
              </List.Item>
            ))}
          </List>
        </Tabs.Panel>
      </Tabs>
      <DeletePersonModal
        person={person}
        opened={dialog === 'delete'}
        onClose={() => setDialog(null)}
        onDeleted={() => void navigate(`/project/${environment.id}/persons`, { replace: true })}
      />
      <SplitPersonModal
        person={person}
        opened={dialog === 'split'}
        onClose={() => setDialog(null)}
        onSplit={(kept, count) => {
          setDialog(null);
          const notice = `${count} distinct id${count === 1 ? '' : 's'} became person${count === 1 ? '' : 's'} of their own.`;
          void navigate(personPath(environment.id, kept), { replace: true, state: { notice } satisfies PageNotice });
        }}
      />
    </Stack>
  );
}

/** A person (PostHog's `/project/:id/person/:distinctId`): properties, events, recordings, cohorts, distinct ids. */
export function Component() {
  const environment = useEnvironment();
  const { distinctId = '' } = useParams();
  const person = usePersonByDistinctId(environment.id, distinctId);
  if (person.isPending) {
    return <Loading p="xl" />;
  }
  if (person.isError) return <ErrorNotice error={person.error} title="The person could not be read" />;
  if (person.data === null) {
    return (
      <Stack gap="xs">
        <Title order={2}>Person not found</Title>
        <Text>
          No person has the distinct id <span className="mono">{distinctId}</span> in this environment.
        </Text>
        <Anchor component={Link} to={`/project/${environment.id}/persons`}>
          Back to People
        </Anchor>
      </Stack>
    );
  }
  // Keyed by the person: a split that sends the page to another person starts it afresh.
  return <PersonView key={person.data.uuid} person={person.data} />;
}
