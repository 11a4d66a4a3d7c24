import { Alert, Anchor, Button, Center, Loader, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError } from '../../api/client';
import type { InviteSummary } from '../../api/settings';

interface Fields {
  first_name: string;
  password: string;
}

/**
 * `/signup/<invite id>`: the link an invite hands out. PostHog's `GET /api/signup/<id>/` says who it
 * is for; `POST` makes the account (or, signed in, joins with it) and starts its session.
 */
export function Component() {
  const { inviteId = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const path = `/api/signup/${encodeURIComponent(inviteId)}/`;
  const invite = useQuery({
    queryKey: ['signup', inviteId],
    queryFn: ({ signal }) => api<InviteSummary>(path, { signal, allowUnauthenticated: true }),
    retry: false,
  });
  const form = useForm<Fields>({ values: { first_name: invite.data?.first_name ?? '', password: '' } });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async (values) => {
    try {
      await api(path, { method: 'POST', body: values, allowUnauthenticated: true });
    } catch (error) {
      const attr = error instanceof ApiError ? error.body.attr : null;
      const message = error instanceof ApiError ? error.message : 'Hoglet could not be reached.';
      form.setError(attr === 'first_name' || attr === 'password' ? attr : 'root', { message });
      return;
    }
    // Whatever was cached belongs to no session or another one; the invite's own answer stays
    // (asked again, it would now say the account exists).
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'signup' });
    await navigate('/', { replace: true });
  });

  return (
    <Center h="100%" bg="gray.0">
      <Paper withBorder p="xl" w={400} shadow="sm">
        {invite.isPending ? (
          <Center>
            <Loader aria-label="Loading" />
          </Center>
        ) : invite.isError ? (
          <Stack>
            <Title order={2}>This invite cannot be used</Title>
            <Alert color="red" role="alert">
              {invite.error.message}
            </Alert>
            <Anchor component={Link} to="/login">
              Sign in instead
            </Anchor>
          </Stack>
        ) : (
          <form onSubmit={(e) => void submit(e)} noValidate>
            <Stack>
              <Title order={2}>Join {invite.data.organization_name}</Title>
              <Text size="sm" c="dimmed">
                You were invited to Hoglet. Choose your password to create your account.
              </Text>
              {errors.root && (
                <Alert color="red" role="alert">
                  {errors.root.message}
                </Alert>
              )}
              <TextInput label="Email" value={invite.data.target_email} readOnly autoComplete="username" />
              <TextInput
                label="First name"
                autoComplete="given-name"
                error={errors.first_name?.message}
                {...form.register('first_name', { required: 'Enter your first name.' })}
              />
              <PasswordInput
                label="Password"
                autoComplete="new-password"
                error={errors.password?.message}
                {...form.register('password', {
                  required: 'Choose a password.',
                  minLength: { value: 8, message: 'At least 8 characters.' },
                })}
              />
              <Button type="submit" loading={isSubmitting}>
                Create account
              </Button>
            </Stack>
          </form>
        )}
      </Paper>
    </Center>
  );
}
