import { Alert, Button, Code, Group, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { evaluateFlags, type EvaluatedFlag } from '../../api/flags';
import { useEnvironment } from '../../shell/ProjectScope';
import { ErrorAlert } from '../../components/ErrorAlert';

function describe(flag: EvaluatedFlag | undefined): string {
  if (!flag) return 'not served (the flag is disabled, deleted or unknown to the SDKs)';
  if (!flag.enabled) return 'false';
  return flag.variant ?? 'true';
}

/**
 * What a distinct id gets, asked as posthog-js asks: `POST /flags/?v=2` with the environment's
 * project API key. The answer is judged on the person's stored properties, as the SDK's would be.
 */
export function WhatDoesUserGet({ flagKey, groupType }: { flagKey: string; groupType?: string }) {
  const environment = useEnvironment();
  const [distinctId, setDistinctId] = useState('');
  const [groupKey, setGroupKey] = useState('');
  // Check with no distinct id: said, and the last answer (another id's) taken away.
  const [missing, setMissing] = useState(false);
  // A flag aggregated by groups is judged for the group the SDK names (posthog.group(type, key)).
  const evaluation = useMutation({
    mutationFn: (id: string) =>
      evaluateFlags(environment.api_token, id, groupType && groupKey.trim() ? { [groupType]: groupKey.trim() } : undefined),
  });
  const flag = evaluation.data?.flags[flagKey];
  return (
    <Stack maw={640}>
      <form
        aria-label="What does this user get"
        onSubmit={(e) => {
          e.preventDefault();
          const id = distinctId.trim();
          setMissing(id === '');
          if (id === '') evaluation.reset();
          else evaluation.mutate(id);
        }}
      >
        <Group align="flex-end" gap="xs">
          <TextInput
            label="Distinct id"
            placeholder="a user's distinct id"
            w={320}
            value={distinctId}
            onChange={(e) => setDistinctId(e.currentTarget.value)}
            error={missing ? 'Enter a distinct id to check' : undefined}
          />
          {groupType && (
            <TextInput label={`Group key (${groupType})`} w={220} value={groupKey} onChange={(e) => setGroupKey(e.currentTarget.value)} />
          )}
          <Button type="submit" loading={evaluation.isPending}>
            Check
          </Button>
        </Group>
      </form>
      <ErrorAlert message={evaluation.error?.message} />
      {evaluation.data && (
        <Alert color={flag?.enabled ? 'green' : 'gray'} title={`${evaluation.variables} gets`} data-testid="evaluation">
          <Text fw={700} data-testid="evaluation-value">
            {describe(flag)}
          </Text>
          {flag?.reason && (
            <Text size="sm" c="dimmed" data-testid="evaluation-reason">
              {flag.reason.description ?? flag.reason.code}
            </Text>
          )}
          {flag?.metadata?.payload != null && (
            <Text size="sm">
              Payload: <Code>{String(flag.metadata.payload)}</Code>
            </Text>
          )}
        </Alert>
      )}
    </Stack>
  );
}
