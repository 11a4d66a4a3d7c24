import { AppShell, Burger, Button, Group, NavLink, Select, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect } from 'react';
import { api } from '../api/client';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useEnvironments } from '../api/environments';
import { ME_KEY, signOut, useMe, useResetSession } from '../api/session';
import { useEnvironment } from './ProjectScope';

/** The sections in the navigation, each a path under `/project/<id>/` (`also`: another path of the section). */
const NAVIGATION = [
  { label: 'Get started', path: 'get-started' },
  { label: 'Activity', path: 'activity' },
  { label: 'Dashboards', path: 'dashboard' },
  { label: 'Product analytics', path: 'insights' },
  { label: 'Web analytics', path: 'web' },
  { label: 'People', path: 'persons', also: 'person' },
  { label: 'Groups', path: 'groups' },
  { label: 'Feature flags', path: 'feature_flags' },
  { label: 'Surveys', path: 'surveys' },
  { label: 'Cohorts', path: 'cohorts' },
  { label: 'Early access', path: 'early_access_features' },
  { label: 'Replay', path: 'replay' },
  { label: 'Settings', path: 'settings' },
];

function EnvironmentSwitcher() {
  const environment = useEnvironment();
  const environments = useEnvironments();
  const navigate = useNavigate();
  const location = useLocation();
  const client = useQueryClient();
  const byProject = new Map<string, { value: string; label: string }[]>();
  for (const env of environments.data ?? []) {
    const items = byProject.get(env.projectName) ?? [];
    items.push({ value: String(env.id), label: env.name });
    byProject.set(env.projectName, items);
  }
  const data = [...byProject].map(([group, items]) => ({ group, items }));
  return (
    <Select
      aria-label="Environment"
      data={data}
      value={String(environment.id)}
      allowDeselect={false}
      size="xs"
      w={{ base: 150, sm: 240 }}
      onChange={(value) => {
        if (!value || value === String(environment.id)) return;
        // The same section in the other environment (not the same object, which belongs to this one);
        // a settings page is a view of every environment's settings, so it is kept.
        const [, , , section = '', view] = location.pathname.split('/');
        void navigate(`/project/${value}/${section}${section === 'settings' && view ? `/${view}` : ''}`);
        // Remembered as the user's current environment (PostHog's set_current_team), where
        // addresses without a project go.
        void api('/api/users/@me/', { method: 'PATCH', body: { set_current_team: Number(value) } })
          .then(() => client.invalidateQueries({ queryKey: ME_KEY }))
          .catch(() => undefined);
      }}
    />
  );
}

function UserMenu() {
  const me = useMe();
  const reset = useResetSession();
  const navigate = useNavigate();
  return (
    <Group gap="xs">
      <Text size="sm" c="dimmed" data-testid="user-email" visibleFrom="sm">
        {me.data?.email}
      </Text>
      <Button
        variant="subtle"
        size="xs"
        onClick={() => {
          // Whatever the answer, this tab forgets the session and goes to the sign-in page.
          void signOut()
            .catch(() => undefined)
            .then(() => {
              reset();
              return navigate('/login', { replace: true });
            });
        }}
      >
        Sign out
      </Button>
    </Group>
  );
}

/** Header, navigation and the page of the environment. */
export function AppLayout() {
  const environment = useEnvironment();
  const location = useLocation();
  const base = `/project/${environment.id}`;
  // Below the breakpoint the navigation covers the page: it opens from the burger and closes once
  // a section is chosen.
  const [navigationOpen, navigation] = useDisclosure(false);
  const closeNavigation = navigation.close;
  useEffect(closeNavigation, [location.pathname, closeNavigation]);
  return (
    <AppShell header={{ height: 52 }} navbar={{ width: 200, breakpoint: 'sm', collapsed: { mobile: !navigationOpen } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={navigationOpen}
              onClick={navigation.toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={navigationOpen ? 'Close navigation' : 'Open navigation'}
            />
            <Text fw={700} component={Link} to={base}>
              Hoglet
            </Text>
            <EnvironmentSwitcher />
          </Group>
          <UserMenu />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Sections">
        {NAVIGATION.map((item) => {
          const to = `${base}/${item.path}`;
          return (
            <NavLink
              key={item.path}
              component={Link}
              to={to}
              label={item.label}
              active={[to, item.also && `${base}/${item.also}`].some(
                (p) => p && (location.pathname === p || location.pathname.startsWith(`${p}/`)),
              )}
            />
          );
        })}
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
