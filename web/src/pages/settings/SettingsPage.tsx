import { Flex, NavLink, Stack, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { NotFound } from '../../shell/NotFound';
import { useEnvironment } from '../../shell/ProjectScope';
import { EnvironmentSection } from './EnvironmentSection';
import { MembersSection } from './MembersSection';
import { PersonalApiKeysSection } from './PersonalApiKeysSection';
import { ProjectSection } from './ProjectSection';
import { UserSection } from './UserSection';

/** PostHog's settings sections (`/project/<id>/settings/<section>`). */
const SECTIONS = [
  { id: 'environment', label: 'Environment', Section: EnvironmentSection },
  { id: 'project', label: 'Project and environments', Section: ProjectSection },
  { id: 'user', label: 'Your account', Section: UserSection },
  { id: 'user-api-keys', label: 'Personal API keys', Section: PersonalApiKeysSection },
  { id: 'organization-members', label: 'Members and invites', Section: MembersSection },
] as const;

/** Other names PostHog uses for the same sections. */
const ALIASES: Record<string, string> = {
  environments: 'project',
  'project-environments': 'project',
  organization: 'organization-members',
};

export function Component() {
  const environment = useEnvironment();
  const { section } = useParams();
  // `/settings` itself shows the first section, at its own address (the navigation links there).
  const id = section === undefined ? SECTIONS[0].id : (ALIASES[section] ?? section);
  const current = SECTIONS.find((s) => s.id === id);
  if (!current) return <NotFound />;
  const base = `/project/${environment.id}/settings`;
  return (
    <Stack maw={1100}>
      <Title order={2}>Settings</Title>
      {/* On a narrow screen the sections' links go above the section, not beside it. */}
      <Flex direction={{ base: 'column', sm: 'row' }} align={{ base: 'stretch', sm: 'flex-start' }} gap="xl">
        <Stack gap={2} w={{ base: '100%', sm: 210 }} style={{ flexShrink: 0 }} component="nav" aria-label="Settings sections">
          {SECTIONS.map((s) => (
            <NavLink key={s.id} component={Link} to={`${base}/${s.id}`} label={s.label} active={s.id === current.id} />
          ))}
        </Stack>
        <Stack style={{ flex: 1, minWidth: 0 }}>
          <current.Section />
        </Stack>
      </Flex>
    </Stack>
  );
}
