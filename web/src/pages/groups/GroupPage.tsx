import { Anchor, Group as Row, Stack, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { groupTypeLabel, useGroup, useGroupTypes } from '../../api/groups';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { PropertiesTable } from '../persons/PropertiesTable';
import { groupName } from './format';
import { Loading } from '../../components/Loading';
import { DateTime } from '../../components/DateTime';

/** One group (PostHog's `/project/:id/groups/:groupTypeIndex/:groupKey`): its properties. */
export function Component() {
  const environment = useEnvironment();
  const { groupTypeIndex = '', groupKey = '' } = useParams();
  const index = Number(groupTypeIndex);
  const types = useGroupTypes(environment.id);
  const group = useGroup(environment.id, index, groupKey);
  const type = types.data?.find((t) => t.group_type_index === index);
  const listPath = `/project/${environment.id}/groups/${groupTypeIndex}`;
  if (group.isPending) {
    return <Loading p="xl" />;
  }
  if (group.isError) {
    if (group.error instanceof ApiError && group.error.status === 404) {
      return (
        <Stack gap="xs">
          <Title order={2}>Group not found</Title>
          <Text>
            No group has the key <span className="mono">{groupKey}</span> here.
          </Text>
          <Anchor component={Link} to={listPath}>
            Back to the list
          </Anchor>
        </Stack>
      );
    }
    return <ErrorNotice error={group.error} title="The group could not be read" />;
  }
  return (
    <Stack gap="sm">
      <Text size="sm">
        <Anchor component={Link} to={listPath}>
          {type ? groupTypeLabel(type) : 'Groups'}
        </Anchor>
      </Text>
      <Title order={2} style={{ wordBreak: 'break-word' }} data-testid="group-name">
        {groupName(group.data)}
      </Title>
      <Row gap="xs">
        <Text size="sm" c="dimmed">
          {type ? groupTypeLabel(type, false) : `group type ${groupTypeIndex}`}
        </Text>
        <Text size="sm" c="dimmed" className="mono" data-testid="group-key">
          {group.data.group_key}
        </Text>
        <Text size="sm" c="dimmed">
          first seen <DateTime value={group.data.created_at} />
        </Text>
      </Row>
      <PropertiesTable properties={group.data.group_properties} label="Group properties" />
    </Stack>
  );
}
