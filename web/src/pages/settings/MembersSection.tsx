import { Alert, Badge, Button, Group, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useMe } from '../../api/session';
import {
  inviteLink,
  LEVEL_NAMES,
  LEVELS,
  useCancelInvite,
  useCreateInvite,
  useInvites,
  useMembers,
  useRemoveMember,
  useUpdateMember,
  type Invite,
  type Member,
} from '../../api/settings';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { ConfirmAction } from '../../components/ConfirmAction';
import { CopyValue } from './CopyValue';
import { applyApiError } from './api-error';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';
import { Loading } from '../../components/Loading';

const levelName = (level: number) => LEVEL_NAMES[level] ?? `Level ${level}`;
const fullName = (user: Member['user']) => [user.first_name, user.last_name].filter(Boolean).join(' ');

/** Level choices a requester of `ownLevel` may give: up to their own (owner only by an owner). */
function levelChoices(ownLevel: number) {
  return Object.values(LEVELS)
    .filter((level) => level <= ownLevel)
    .map((level) => ({ value: String(level), label: levelName(level) }));
}

function MemberRow({ member, myUuid, myLevel }: { member: Member; myUuid: string; myLevel: number }) {
  const update = useUpdateMember();
  const remove = useRemoveMember();
  const isMe = member.user.uuid === myUuid;
  const mayManage = !isMe && myLevel >= LEVELS.admin && member.level <= myLevel;
  const name = fullName(member.user);
  return (
    <Table.Tr data-testid="member-row">
      <Table.Td>
        <Text size="sm">{name || member.user.email}</Text>
        {name && (
          <Text size="xs" c="dimmed">
            {member.user.email}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {mayManage ? (
          <Select
            size="xs"
            w={130}
            aria-label={`Level of ${member.user.email}`}
            data={levelChoices(myLevel)}
            value={String(member.level)}
            allowDeselect={false}
            disabled={update.isPending}
            error={update.error?.message}
            onChange={(value) => {
              if (value && Number(value) !== member.level) update.mutate({ uuid: member.user.uuid, level: Number(value) });
            }}
          />
        ) : (
          <Group gap={6}>
            <Badge variant="light" color={member.level >= LEVELS.admin ? 'blue' : 'gray'}>
              {levelName(member.level)}
            </Badge>
            {isMe && (
              <Text size="xs" c="dimmed">
                you
              </Text>
            )}
          </Group>
        )}
      </Table.Td>
      <Table.Td>{new Date(member.joined_at).toLocaleDateString()}</Table.Td>
      <Table.Td>{member.last_login ? new Date(member.last_login).toLocaleString() : 'Never'}</Table.Td>
      <Table.Td>
        {mayManage && member.level < LEVELS.owner && (
          <ConfirmAction
            label="Remove"
            ariaLabel={`Remove ${member.user.email}`}
            title="Remove this member?"
            action={() => remove.mutateAsync(member.user.uuid)}
          >
            {member.user.email} loses access to every project of the organization at once.
          </ConfirmAction>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

function Members({ myUuid, myLevel }: { myUuid: string; myLevel: number }) {
  const members = useMembers();
  if (members.isPending) return <Loading p="md" />;
  if (members.isError) return <ErrorNotice error={members.error} />;
  return (
    <Table.ScrollContainer minWidth={600}>
      <Table>
        <TableHead columns={['Member', 'Level', 'Joined', 'Last signed in', '']} />
        <Table.Tbody>
          {members.data.results.map((member) => (
            <MemberRow key={member.id} member={member} myUuid={myUuid} myLevel={myLevel} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

interface InviteFields {
  target_email: string;
  first_name: string;
  level: string;
}

function InviteForm({ myLevel, onInvited }: { myLevel: number; onInvited: (invite: Invite) => void }) {
  const create = useCreateInvite();
  const form = useForm<InviteFields>({ defaultValues: { target_email: '', first_name: '', level: String(LEVELS.member) } });
  const { errors, isSubmitting } = form.formState;
  const save = async (values: InviteFields) => {
    try {
      onInvited(await create.mutateAsync({ ...values, level: Number(values.level) }));
      form.reset();
    } catch (error) {
      applyApiError(error, ['target_email', 'first_name', 'level'], form.setError);
    }
  };
  return (
    <form onSubmit={(e) => void form.handleSubmit(save)(e)} noValidate>
      <Stack gap="xs">
        <ErrorAlert message={errors.root?.message} />
        <Group align="flex-start" grow>
          <TextInput
            label="Email"
            type="email"
            error={errors.target_email?.message}
            {...form.register('target_email', { required: 'Enter the address to invite.' })}
          />
          <TextInput label="First name (optional)" error={errors.first_name?.message} {...form.register('first_name')} />
          <Controller
            control={form.control}
            name="level"
            render={({ field }) => (
              <Select
                label="Level"
                data={levelChoices(Math.min(myLevel, LEVELS.admin))}
                value={field.value}
                onChange={(value) => field.onChange(value ?? String(LEVELS.member))}
                allowDeselect={false}
                error={errors.level?.message}
              />
            )}
          />
        </Group>
        <Group>
          <Button type="submit" loading={isSubmitting}>
            Invite
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Invites({ myLevel }: { myLevel: number }) {
  const invites = useInvites();
  const cancel = useCancelInvite();
  const [latest, setLatest] = useState<Invite | null>(null);
  return (
    <Stack>
      <InviteForm myLevel={myLevel} onInvited={setLatest} />
      {latest && (
        <Alert color="green" title={`Invite for ${latest.target_email}`} data-testid="invite-created">
          <Stack gap={4}>
            <Text size="sm">
              {latest.emailing_attempt_made ? 'It was e-mailed; you can also' : 'Hoglet sends no e-mail (SMTP is not set up):'} send this
              link yourself. It works for three days.
            </Text>
            <CopyValue value={inviteLink(latest.id)} label="the invite link" testId="invite-link" />
          </Stack>
        </Alert>
      )}
      {invites.isPending ? (
        <Loading p="md" />
      ) : invites.isError ? (
        <ErrorNotice error={invites.error} />
      ) : invites.data.results.length === 0 ? (
        <Text c="dimmed" size="sm" data-testid="invites-empty">
          No open invites.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table>
            <TableHead columns={['Email', 'Level', 'Link', 'Sent', '']} />
            <Table.Tbody>
              {invites.data.results.map((invite) => (
                <Table.Tr key={invite.id} data-testid="invite-row">
                  <Table.Td>{invite.target_email}</Table.Td>
                  <Table.Td>{levelName(invite.level)}</Table.Td>
                  <Table.Td>
                    {invite.is_expired ? (
                      <Badge color="red" variant="light">
                        Expired
                      </Badge>
                    ) : (
                      <CopyValue value={inviteLink(invite.id)} label={`the invite link for ${invite.target_email}`} hidden />
                    )}
                  </Table.Td>
                  <Table.Td>{new Date(invite.created_at).toLocaleString()}</Table.Td>
                  <Table.Td>
                    <ConfirmAction
                      label="Cancel"
                      ariaLabel={`Cancel the invite for ${invite.target_email}`}
                      title="Cancel this invite?"
                      confirmLabel="Cancel invite"
                      action={async () => {
                        await cancel.mutateAsync(invite.id);
                        if (latest?.id === invite.id) setLatest(null);
                      }}
                    >
                      The link for {invite.target_email} stops working.
                    </ConfirmAction>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

/** `/settings/organization-members`: the organization's members and its invites. */
export function MembersSection() {
  const me = useMe();
  if (me.isPending) return <Loading p="md" />;
  if (me.isError) return <ErrorNotice error={me.error} />;
  const myLevel = me.data.organization?.membership_level ?? LEVELS.member;
  return (
    <Stack>
      <Paper withBorder p="md">
        <Stack>
          <Title order={4}>Members of {me.data.organization?.name ?? 'the organization'}</Title>
          <Members myUuid={me.data.uuid} myLevel={myLevel} />
        </Stack>
      </Paper>
      <Paper withBorder p="md">
        <Stack>
          <Title order={4}>Invites</Title>
          <Invites myLevel={myLevel} />
        </Stack>
      </Paper>
    </Stack>
  );
}
