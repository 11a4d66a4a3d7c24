import { Tabs } from '@mantine/core';
import { useNavigate } from 'react-router';
import { groupTypeLabel, useGroupTypes } from '../../api/groups';
import { useEnvironment } from '../../shell/ProjectScope';

/**
 * Persons and each group type, as PostHog's People section tabs them: `persons`, `groups/<index>`.
 * Group types appear once events have used them.
 */
export function PeopleTabs({ active }: { active: string }) {
  const environment = useEnvironment();
  const types = useGroupTypes(environment.id);
  const navigate = useNavigate();
  return (
    <Tabs value={active} onChange={(value) => value && void navigate(`/project/${environment.id}/${value}`)}>
      <Tabs.List aria-label="People and groups">
        <Tabs.Tab value="persons">Persons</Tabs.Tab>
        {(types.data ?? []).map((type) => (
          <Tabs.Tab key={type.group_type_index} value={`groups/${type.group_type_index}`}>
            {groupTypeLabel(type)}
          </Tabs.Tab>
        ))}
      </Tabs.List>
    </Tabs>
  );
}
