import { Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { ApiError, mayBeSignedIn } from '../../api/client';
import { meQuery, signIn } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';

interface Fields {
  email: string;
  password: string;
}

/** Only a path of this site: `next` must not send the user elsewhere after signing in. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

export function Component() {
  const form = useForm<Fields>({ defaultValues: { email: '', password: '' } });
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const client = useQueryClient();
  const { errors, isSubmitting } = form.formState;
  // Someone already signed in has nothing to do here: on to the page asked for, as PostHog does.
  const me = useQuery({ ...meQuery(), enabled: mayBeSignedIn() && !isSubmitting });

  const submit = form.handleSubmit(async ({ email, password }) => {
    try {
      await signIn(email, password);
    } catch (error) {
      const detail = error instanceof ApiError ? error.message : 'Hoglet could not be reached.';
      form.setError('root', { message: detail });
      return;
    }
    client.clear();
    await navigate(safeNext(params.get('next')), { replace: true });
  });

  if (me.data && !isSubmitting) return <Navigate to={safeNext(params.get('next'))} replace />;
  return (
    <Center h="100%" bg="gray.0">
      <Paper withBorder p="xl" w={380} shadow="sm">
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Stack>
            <Title order={2}>Sign in to Hoglet</Title>
            <ErrorAlert message={errors.root?.message} />
            <TextInput
              label="Email"
              type="email"
              autoComplete="username"
              autoFocus
              error={errors.email?.message}
              {...form.register('email', { required: 'Enter your email address.' })}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              error={errors.password?.message}
              {...form.register('password', { required: 'Enter your password.' })}
            />
            <Button type="submit" loading={isSubmitting}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
