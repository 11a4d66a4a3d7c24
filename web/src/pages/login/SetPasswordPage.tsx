import { Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { useNavigate, useParams } from 'react-router';
import { api, ApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { NewPasswordInput, newPasswordRules } from '../../components/NewPasswordInput';

interface Fields {
  password: string;
  repeat: string;
}

/**
 * `/reset/<user uuid>/<token>`: the link the first start prints (and password resets): sets the
 * password with PostHog's `POST /api/reset/<uuid>/`, which also signs the user in.
 */
export function Component() {
  const { uuid = '', token = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const form = useForm<Fields>({ defaultValues: { password: '', repeat: '' } });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async ({ password }) => {
    try {
      await api(`/api/reset/${encodeURIComponent(uuid)}/`, { method: 'POST', body: { token, password }, allowUnauthenticated: true });
    } catch (error) {
      form.setError('root', { message: error instanceof ApiError ? error.message : 'Hoglet could not be reached.' });
      return;
    }
    client.clear();
    await navigate('/', { replace: true });
  });

  return (
    <Center h="100%" bg="gray.0">
      <Paper withBorder p="xl" w={380} shadow="sm">
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Stack>
            <Title order={2}>Choose your password</Title>
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
      </Paper>
    </Center>
  );
}
