import { Alert, Anchor, Button, Center, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { NewPasswordInput, newPasswordRules } from '../../components/NewPasswordInput';

interface Fields {
  password: string;
  repeat: string;
}

/**
 * `/reset/<user uuid>/<token>`: the link the first start prints (and password resets): sets the
 * password with PostHog's `POST /api/reset/<uuid>/`, which also signs the user in. The link is
 * checked as the page opens (`GET`, as PostHog's page does), so a used or expired one says so
 * before anyone types a password.
 */
export function Component() {
  const { uuid = '', token = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const link = useQuery<null, ApiError>({
    queryKey: ['reset', uuid, token],
    // A valid link answers 204, no body; a query's data may not be undefined.
    queryFn: async ({ signal }) => {
      await api(`/api/reset/${encodeURIComponent(uuid)}/?token=${encodeURIComponent(token)}`, { signal, allowUnauthenticated: true });
      return null;
    },
    retry: false,
    // Once the password is set the token is used: asked again, it would answer 400 under this page.
    staleTime: Infinity,
  });
  const form = useForm<Fields>({ defaultValues: { password: '', repeat: '' } });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async ({ password }) => {
    try {
      await api(`/api/reset/${encodeURIComponent(uuid)}/`, { method: 'POST', body: { token, password }, allowUnauthenticated: true });
    } catch (error) {
      form.setError('root', { message: error instanceof ApiError ? error.message : 'Hoglet could not be reached.' });
      return;
    }
    // Forget what belonged to no session, but not this link: asked again while this page is still
    // up, it would answer 400 now that it is used (as SignupPage keeps its invite).
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'reset' });
    await navigate('/', { replace: true });
  });

  let body;
  if (link.isPending) body = <Loader aria-label="Loading" />;
  else if (link.isError) {
    body = (
      <Alert color="red" role="alert" title="This link cannot be used">
        {link.error.status === 400 ? 'It has been used already or has expired.' : link.error.message}{' '}
        <Anchor component={Link} to="/login">
          Sign in
        </Anchor>{' '}
        instead, or ask an administrator for a new link.
      </Alert>
    );
  } else {
    body = (
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack>
          <Text size="sm" c="dimmed">
            At least 8 characters; you are signed in once it is set.
          </Text>
          <ErrorAlert message={errors.root?.message} />
          <NewPasswordInput
            label="New password"
            error={errors.password?.message}
            field={form.register('password', newPasswordRules('Enter a password.'))}
          />
          <NewPasswordInput
            label="Repeat it"
            error={errors.repeat?.message}
            field={form.register('repeat', { validate: (value, all) => value === all.password || 'The two passwords differ.' })}
          />
          <Button type="submit" loading={isSubmitting}>
            Set password
          </Button>
        </Stack>
      </form>
    );
  }

  return (
    <Center h="100%" bg="gray.0">
      <Paper withBorder p="xl" w={380} shadow="sm">
        <Stack>
          <Title order={2}>Choose your password</Title>
          {body}
        </Stack>
      </Paper>
    </Center>
  );
}
