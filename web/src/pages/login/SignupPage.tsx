import { Alert, Anchor, Button, Center, Loader, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError } from '../../api/client';
import { useMe } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { NewPasswordInput, newPasswordRules } from '../../components/NewPasswordInput';

interface Invite {
  id: string;
  target_email: string;
  first_name: string;
  organization_name: string;
}

interface Fields {
  first_name: string;
  password: string;
}

/**
 * `/signup/<invite id>`: the link of an organization invite. Someone without an account makes one
 * (name and password, the invite's e-mail); a signed-in user joins with theirs. PostHog's
 * `GET/POST /api/signup/<id>/`; accepting signs the new user in.
 */
export function Component() {
  const { inviteId = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const me = useMe();
  const invite = useQuery<Invite, ApiError>({
    queryKey: ['signup', inviteId],
    queryFn: ({ signal }) => api<Invite>(`/api/signup/${encodeURIComponent(inviteId)}/`, { signal, allowUnauthenticated: true }),
    retry: false,
  });
  const form = useForm<Fields>({ values: { first_name: invite.data?.first_name ?? '', password: '' } });
  const { errors, isSubmitting } = form.formState;
  const signedIn = me.isSuccess;

  const submit = form.handleSubmit(async (fields) => {
    try {
      await api(`/api/signup/${encodeURIComponent(inviteId)}/`, {
        method: 'POST',
        body: signedIn ? {} : fields,
        allowUnauthenticated: true,
      });
    } catch (error) {
      const apiError = error instanceof ApiError ? error : undefined;
      const attr = apiError?.body.attr;
      if (attr === 'first_name' || attr === 'password') form.setError(attr, { message: apiError!.message });
      else form.setError('root', { message: apiError?.message ?? 'Hoglet could not be reached.' });
      return;
    }
    // Forget what belonged to no session (or another one), but not the invite: asked again while
    // this page is still up, it would answer 400 now that it is used.
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'signup' });
    await navigate('/', { replace: true });
  });

  let body;
  if (invite.isPending || me.isPending) body = <Loader aria-label="Loading" />;
  else if (invite.isError) {
    // An address with an account already: the answer's detail is where to sign in.
    const existing = invite.error.body.code === 'account_exists';
    body = (
      <Alert color="red" role="alert" title="This invite cannot be used">
        {existing ? (
          <>
            You already have an account.{' '}
            <Anchor component={Link} to={`/login?next=${encodeURIComponent(`/signup/${inviteId}`)}`}>
              Sign in
            </Anchor>{' '}
            and open this link again to join.
          </>
        ) : (
          invite.error.message
        )}
      </Alert>
    );
  } else {
    body = (
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack>
          <Text>
            Join <b>{invite.data.organization_name}</b> as <span className="mono">{invite.data.target_email}</span>.
          </Text>
          <ErrorAlert message={errors.root?.message} />
          {!signedIn && (
            <>
              <TextInput
                label="Your name"
                autoComplete="given-name"
                error={errors.first_name?.message}
                {...form.register('first_name', { required: 'Enter your name.' })}
              />
              <NewPasswordInput
                label="Choose a password"
                error={errors.password?.message}
                field={form.register('password', newPasswordRules('Enter a password.'))}
              />
            </>
          )}
          <Button type="submit" loading={isSubmitting}>
            Join
          </Button>
        </Stack>
      </form>
    );
  }

  return (
    <Center h="100%" bg="gray.0">
      <Paper withBorder p="xl" w={420} shadow="sm">
        <Stack>
          <Title order={2}>You are invited to Hoglet</Title>
          {body}
        </Stack>
      </Paper>
    </Center>
  );
}
