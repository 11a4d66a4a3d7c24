import { Alert, Anchor, Button, CopyButton, Group, Loader, Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { queryEvents } from '../../api/events';
import { useEnvironment } from '../../shell/ProjectScope';
import { browserSnippet, curlSnippet, nodeSnippet, npmSnippet } from './snippets';

/** How often the page asks whether the first event has arrived. */
const POLL_MS = 2000;

function Snippet({ code, label }: { code: string; label: string }) {
  return (
    <Paper withBorder p="sm" bg="gray.0" pos="relative">
      <Group justify="flex-end" mb={4}>
        <CopyButton value={code}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="light" onClick={copy} aria-label={`Copy the ${label} snippet`}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      <pre className="snippet mono" data-testid={`snippet-${label}`}>
        {code}
      </pre>
    </Paper>
  );
}

/** Waits for the environment's first event: green once one is stored. */
function FirstEventCheck({ environmentId }: { environmentId: number }) {
  const latest = useQuery({
    queryKey: ['first-event', environmentId],
    queryFn: ({ signal }) => queryEvents(environmentId, { limit: 1 }, signal),
    refetchInterval: (query) => (query.state.data?.events.length ? false : POLL_MS),
  });
  const first = latest.data?.events[0];
  if (first) {
    return (
      <Alert color="green" title="Events are arriving" data-testid="first-event-check" data-state="received">
        Latest: <b>{first.event}</b> from <span className="mono">{first.distinct_id}</span>.{' '}
        <Anchor component={Link} to={`/project/${environmentId}/activity`}>
          See them in Activity
        </Anchor>
      </Alert>
    );
  }
  return (
    <Alert color="gray" title="Waiting for the first event" data-testid="first-event-check" data-state="waiting">
      <Group gap="xs">
        <Loader size="xs" />
        <Text size="sm">Send an event with one of the snippets below; this turns green when it is stored.</Text>
      </Group>
    </Alert>
  );
}

export function Component() {
  const environment = useEnvironment();
  const host = window.location.origin;
  const token = environment.api_token;
  return (
    <Stack maw={900}>
      <Title order={2}>Get started</Title>
      <Text>
        Point PostHog's SDKs at this server with the project API key of <b>{environment.name}</b>:{' '}
        <span className="mono" style={{ wordBreak: 'break-all' }} data-testid="project-api-key">
          {token}
        </span>
      </Text>
      <FirstEventCheck environmentId={environment.id} />
      <Tabs defaultValue="web">
        <Tabs.List>
          <Tabs.Tab value="web">Website (posthog-js)</Tabs.Tab>
          <Tabs.Tab value="npm">posthog-js from npm</Tabs.Tab>
          <Tabs.Tab value="node">Node.js (posthog-node)</Tabs.Tab>
          <Tabs.Tab value="curl">HTTP</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="web" pt="sm">
          <Text size="sm" mb="xs">
            Paste into the &lt;head&gt; of your pages. posthog-js itself is served by Hoglet.
          </Text>
          <Snippet label="web" code={browserSnippet(token, host)} />
        </Tabs.Panel>
        <Tabs.Panel value="npm" pt="sm">
          <Snippet label="npm" code={npmSnippet(token, host)} />
        </Tabs.Panel>
        <Tabs.Panel value="node" pt="sm">
          <Snippet label="node" code={nodeSnippet(token, host)} />
        </Tabs.Panel>
        <Tabs.Panel value="curl" pt="sm">
          <Snippet label="curl" code={curlSnippet(token, host)} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
