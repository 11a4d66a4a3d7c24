import { Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useMe } from '../../api/session';
import { useUpdateMe } from '../../api/settings';
import type { Me } from '../../api/types';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { applyApiError } from './api-error';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { SubmitRow } from '../../components/SubmitRow';
import { NewPasswordInput, newPasswordRules } from '../../components/NewPasswordInput';

interface ProfileFields {
  first_name: string;
  last_name: string;
  email: string;
}

function Profile({ me }: { me: Me }) {
  const update = useUpdateMe();
  const form = useForm<ProfileFields>({ values: { first_name: me.first_name, last_name: me.last_name, email: me.email } });
  const { errors, isSubmitting, isDirty } = form.formState;
  const save = async (values: ProfileFields) => {
    try {
      await update.mutateAsync({ ...values });
    } catch (error) {
      applyApiError(error, ['first_name', 'last_name', 'email'], form.setError);
    }
  };
  return (
    <Paper withBorder p="md">
      <form onSubmit={(e) => void form.handleSubmit(save)(e)} noValidate>
        <Stack>
          <Title order={4}>Profile</Title>
          <ErrorAlert message={errors.root?.message} />
          <Group grow>
            <TextInput label="First name" autoComplete="given-name" error={errors.first_name?.message} {...form.register('first_name')} />
            <TextInput label="Last name" autoComplete="family-name" error={errors.last_name?.message} {...form.register('last_name')} />
          </Group>
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            error={errors.email?.message}
            {...form.register('email', { required: 'Enter your email address.' })}
          />
          <SubmitRow label="Save profile" busy={isSubmitting} disabled={!isDirty} done={update.isSuccess && !isDirty && 'Saved'} />
        </Stack>
      </form>
    </Paper>
  );
}

interface PasswordFields {
  current_password: string;
  password: string;
}

function ChangePassword() {
  const update = useUpdateMe();
  const [changed, setChanged] = useState(false);
  const form = useForm<PasswordFields>({ defaultValues: { current_password: '', password: '' } });
  const { errors, isSubmitting } = form.formState;
  const save = async (values: PasswordFields) => {
    setChanged(false);
    try {
      await update.mutateAsync({ ...values });
    } catch (error) {
      applyApiError(error, ['current_password', 'password'], form.setError);
      return;
    }
    form.reset();
    setChanged(true);
  };
  return (
    <Paper withBorder p="md">
      <form onSubmit={(e) => void form.handleSubmit(save)(e)} noValidate>
        <Stack>
          <Title order={4}>Change password</Title>
          <Text size="sm" c="dimmed">
            Your other sessions are signed out; this one stays.
          </Text>
          <ErrorAlert message={errors.root?.message} />
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            error={errors.current_password?.message}
            {...form.register('current_password', { required: 'Enter your current password.' })}
          />
          <NewPasswordInput
            label="New password"
            error={errors.password?.message}
            field={form.register('password', newPasswordRules('Enter a new password.'))}
          />
          <SubmitRow label="Change password" busy={isSubmitting} done={changed && 'Password changed'} />
        </Stack>
      </form>
    </Paper>
  );
}

/** `/settings/user`: the signed-in user's name, e-mail and password. */
export function UserSection() {
  const me = useMe();
  if (me.isPending) return <Loading p="xl" />;
  if (me.isError) return <ErrorNotice error={me.error} />;
  return (
    <Stack>
      <Profile me={me.data} />
      <ChangePassword />
    </Stack>
  );
}
