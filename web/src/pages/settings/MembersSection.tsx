import { Alert, Badge, Button, Group, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Controller, useFieldArray, useForm } from 'react-hook-form';
import { ApiError } from '../../api/client';
import { useMe } from '../../api/session';
import {
  inviteLink,
  LEVEL_NAMES,
  LEVELS,
  useCancelInvite,
  useCreateInvites,
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
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';
import { Loading } from '../../components/Loading';
import { DateTime } from '../../components/DateTime';

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
      <Table.Td>
        <DateTime value={member.joined_at} dateOnly />
      </Table.Td>
      <Table.Td>{member.last_login ? <DateTime value={member.last_login} /> : 'Never'}</Table.Td>
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

interface InviteRow {
  target_email: string;
  first_name: string;
  level: string;
}

const ROW_FIELDS = ['target_email', 'first_name', 'level'] as const;
/** PostHog's bulk limit: 20 invites a request. */
const MAX_ROWS = 20;
const emptyRow = (): InviteRow => ({ target_email: '', first_name: '', level: String(LEVELS.member) });

/** PostHog's invite modal: one row an address, sent together (`invites/bulk/`). */
function InviteForm({ myLevel, onInvited }: { myLevel: number; onInvited: (invites: Invite[]) => void }) {
  const create = useCreateInvites();
  const form = useForm<{ rows: InviteRow[] }>({ defaultValues: { rows: [emptyRow()] } });
  const rows = useFieldArray({ control: form.control, name: 'rows' });
  const { errors, isSubmitting } = form.formState;
  const save = async (values: { rows: InviteRow[] }) => {
    try {
      onInvited(await create.mutateAsync(values.rows.map((row) => ({ ...row, level: Number(row.level) }))));
      form.reset({ rows: [emptyRow()] });
    } catch (error) {
      // An item's error names it: `attr` "1__target_email".
      const attr = error instanceof ApiError ? error.body.attr : null;
      const match = attr ? /^(\d+)__(\w+)$/.exec(attr) : null;
      const field = match && (ROW_FIELDS as readonly string[]).includes(match[2]!) ? (match[2] as (typeof ROW_FIELDS)[number]) : null;
      if (match && field) form.setError(`rows.${Number(match[1])}.${field}`, { message: (error as Error).message });
      else {
        const row = attr && /^\d+$/.test(attr) ? Number(attr) : null;
        const message = error instanceof Error ? error.message : String(error);
        form.setError('root', { message: row === null ? message : `${values.rows[row]?.target_email ?? ''}: ${message}` });
      }
    }
  };
  return (
    <form onSubmit={(e) => void form.handleSubmit(save)(e)} noValidate>
      <Stack gap="xs">
        <ErrorAlert message={errors.root?.message} />
        {rows.fields.map((row, i) => (
          <Group key={row.id} align="flex-start" grow data-testid="invite-form-row">
            <TextInput
              label="Email"
              type="email"
              error={errors.rows?.[i]?.target_email?.message}
              {...form.register(`rows.${i}.target_email`, { required: 'Enter the address to invite.' })}
            />
            <TextInput
              label="First name (optional)"
              error={errors.rows?.[i]?.first_name?.message}
              {...form.register(`rows.${i}.first_name`)}
            />
            <Controller
              control={form.control}
              name={`rows.${i}.level`}
              render={({ field }) => (
                <Select
                  label="Level"
                  data={levelChoices(Math.min(myLevel, LEVELS.admin))}
                  value={field.value}
                  onChange={(value) => field.onChange(value ?? String(LEVELS.member))}
                  allowDeselect={false}
                  error={errors.rows?.[i]?.level?.message}
                />
              )}
            />
            {rows.fields.length > 1 && (
              <Button variant="subtle" color="gray" mt={24} maw={90} aria-label={`Remove row ${i + 1}`} onClick={() => rows.remove(i)}>
                Remove
              </Button>
            )}
          </Group>
        ))}
        <Group>
          <Button type="submit" loading={isSubmitting}>
            {rows.fields.length > 1 ? `Invite ${rows.fields.length} people` : 'Invite'}
          </Button>
          <Button variant="default" disabled={rows.fields.length >= MAX_ROWS} onClick={() => rows.append(emptyRow())}>
            Add another address
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Invites({ myLevel }: { myLevel: number }) {
  const invites = useInvites();
  const cancel = useCancelInvite();
  const [latest, setLatest] = useState<Invite[]>([]);
  return (
    <Stack>
      <InviteForm myLevel={myLevel} onInvited={setLatest} />
      {latest.length > 0 && (
        <Alert
          color="green"
          title={latest.length === 1 ? `Invite for ${latest[0]!.target_email}` : `${latest.length} invites`}
          data-testid="invite-created"
        >
          <Stack gap={4}>
            <Text size="sm">
              {latest.every((i) => i.emailing_attempt_made)
                ? 'They were e-mailed; you can also'
                : 'Hoglet sends no e-mail (SMTP is not set up):'}{' '}
              send these links yourself. They work for three days.
            </Text>
            {latest.map((invite) => (
              <Group key={invite.id} gap="xs" wrap="nowrap">
                {latest.length > 1 && <Text size="sm">{invite.target_email}</Text>}
                <CopyValue value={inviteLink(invite.id)} label={`the invite link for ${invite.target_email}`} testId="invite-link" />
              </Group>
            ))}
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
                  <Table.Td>
                    <DateTime value={invite.created_at} />
                  </Table.Td>
                  <Table.Td>
                    <ConfirmAction
                      label="Cancel"
                      ariaLabel={`Cancel the invite for ${invite.target_email}`}
                      title="Cancel this invite?"
                      confirmLabel="Cancel invite"
                      action={async () => {
                        await cancel.mutateAsync(invite.id);
                        setLatest((shown) => shown.filter((i) => i.id !== invite.id));
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
