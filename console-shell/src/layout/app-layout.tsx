import { useQuery } from '@tanstack/react-query';
import {
  ActionIcon,
  Anchor,
  AppShell,
  Avatar,
  Burger,
  consoleApi,
  Divider,
  Group,
  Link,
  Loader,
  Menu,
  NavLink,
  Outlet,
  queryKeys,
  ScrollArea,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
  useComputedColorScheme,
  useLocation,
  useMatch,
  useDisclosure,
  useSession,
} from '@engram/console-kit';
import {
  IconApps,
  IconBuilding,
  IconDatabaseImport,
  IconChartDots,
  IconCreditCard,
  IconFolders,
  IconKey,
  IconLogout,
  IconMoon,
  IconRobot,
  IconSettings,
  IconShieldLock,
  IconSun,
  IconUser,
  IconUsers,
  IconVariable,
  type Icon,
} from '@tabler/icons-react';
import { Suspense, useEffect, useState } from 'react';
import { useRemotes } from '../remotes/remote-manifest.js';
import { Logo } from './logo.js';
import { OrganizationSwitcher } from './organization-switcher.js';
import { ProjectSwitcher } from './project-switcher.js';

/** Icons a remote may name in its descriptor. */
const REMOTE_ICONS: Record<string, Icon> = {
  robot: IconRobot,
  'credit-card': IconCreditCard,
  'chart-dots': IconChartDots,
  'shield-lock': IconShieldLock,
};

function NavItem({ to, label, icon: ItemIcon, onNavigate, exact = false }: { to: string; label: string; icon: Icon; onNavigate: () => void; exact?: boolean }) {
  const location = useLocation();
  const active = location.pathname === to || (!exact && location.pathname.startsWith(`${to}/`));
  return (
    <NavLink
      component={Link}
      to={to}
      label={label}
      active={active}
      leftSection={<ItemIcon size={18} stroke={1.6} />}
      onClick={onNavigate}
      variant="light"
      style={{ borderRadius: 'var(--mantine-radius-md)' }}
    />
  );
}

function UserMenu() {
  const session = useSession();
  const { user } = session;
  const initials = user.name
    .split(/\s+/)
    .map((part) => part[0])
    .join('')
    .slice(0, 2)
    .toUpperCase();
  return (
    <Menu position="bottom-end" width={220} withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label="Account menu">
          <Avatar radius="xl" size={32} color="engram" variant="filled">
            {initials || <IconUser size={16} />}
          </Avatar>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          <Text size="sm" fw={600} c="var(--mantine-color-text)" truncate>
            {user.name}
          </Text>
          <Text size="xs" c="dimmed" truncate>
            {user.email}
          </Text>
        </Menu.Label>
        <Menu.Divider />
        <Menu.Item component={Link} to="/account" leftSection={<IconSettings size={16} />}>
          Account settings
        </Menu.Item>
        <Menu.Item color="red" leftSection={<IconLogout size={16} />} onClick={() => void session.logout()}>
          Log out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

function ColorSchemeToggle() {
  const session = useSession();
  const computed = useComputedColorScheme('light');
  const next = computed === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={`Switch to ${next} theme`}>
      <ActionIcon variant="default" size="lg" radius="md" aria-label={`Switch to ${next} theme`} onClick={() => void session.updateUser({ theme: next })}>
        {computed === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}

/**
 * The first thing a keyboard reaches on every page, shown only while focused: it skips the header and navigation to
 * what the screen is for. A screen marks that with `data-skip-target` (the agent workspace, its message box); else
 * it is the main area.
 */
function SkipLink() {
  const [focused, setFocused] = useState(false);
  return (
    <Anchor
      href="#main-content"
      onFocus={() => setFocused(true)}
      onBlur={() => setFocused(false)}
      onClick={(event) => {
        event.preventDefault();
        (document.querySelector<HTMLElement>('[data-skip-target]') ?? document.getElementById('main-content'))?.focus();
      }}
      data-testid="skip-link"
      style={
        focused
          ? { position: 'absolute', top: 8, left: 8, zIndex: 1000, padding: '6px 12px', background: 'var(--mantine-color-body)', borderRadius: 6, boxShadow: 'var(--mantine-shadow-md)' }
          : { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clipPath: 'inset(50%)', whiteSpace: 'nowrap' }
      }
    >
      Skip to content
    </Anchor>
  );
}

/** The frame around every signed-in screen: header, navigation, and the routed page. */
export function AppLayout() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const projectMatch = useMatch('/projects/:projectSlug/*');
  const projectSlug = projectMatch?.params.projectSlug;
  const project = useQuery({
    queryKey: queryKeys.project(projectSlug ?? ''),
    queryFn: () => consoleApi.project(projectSlug ?? ''),
    enabled: Boolean(projectSlug),
  });
  const remotes = useRemotes();
  const location = useLocation();
  useEffect(close, [location.pathname, close]);

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 260, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={{ base: 'sm', sm: 'lg' }}
    >
      <AppShell.Header>
        <SkipLink />
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Link to="/projects" style={{ textDecoration: 'none', color: 'inherit' }} aria-label="Engram home">
              <Logo compact={Boolean(projectSlug)} />
            </Link>
            {projectSlug ? (
              <>
                <Text c="dimmed" visibleFrom="xs">
                  /
                </Text>
                <ProjectSwitcher current={project.data ?? null} />
              </>
            ) : null}
          </Group>
          <Group gap="sm" wrap="nowrap">
            <ColorSchemeToggle />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>

      <AppShell.Navbar p="sm">
        <AppShell.Section>
          <OrganizationSwitcher />
        </AppShell.Section>
        <AppShell.Section grow component={ScrollArea} mt="sm">
          <Stack gap={2}>
            {projectSlug ? (
              <>
                <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" pt="xs" pb={4} truncate>
                  {project.data?.name ?? 'Project'}
                </Text>
                {(remotes.data ?? []).map((remote) => (
                  <NavItem
                    key={remote.name}
                    to={`/projects/${projectSlug}/${remote.route}`}
                    label={remote.title}
                    icon={REMOTE_ICONS[remote.icon] ?? IconApps}
                    onNavigate={close}
                  />
                ))}
                <Divider my="sm" />
              </>
            ) : null}
            <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" pt="xs" pb={4}>
              Organization
            </Text>
            <NavItem to="/projects" label="Projects" icon={IconFolders} onNavigate={close} exact />
            <NavItem to="/settings/members" label="Members" icon={IconUsers} onNavigate={close} />
            <NavItem to="/settings/api-keys" label="API keys" icon={IconKey} onNavigate={close} />
            <NavItem to="/settings/environment-variables" label="Environment variables" icon={IconVariable} onNavigate={close} />
            <NavItem to="/settings/organization" label="Settings" icon={IconBuilding} onNavigate={close} />
            <NavItem to="/settings/import" label="Import" icon={IconDatabaseImport} onNavigate={close} />
          </Stack>
        </AppShell.Section>
        <AppShell.Section>
          <Divider mb="sm" />
          <NavItem to="/account" label="Account" icon={IconUser} onNavigate={close} />
        </AppShell.Section>
      </AppShell.Navbar>

      <AppShell.Main id="main-content" tabIndex={-1} style={{ outline: 'none' }}>
        {/* For the screens app.tsx loads on first use. */}
        <Suspense fallback={<Loader m="xl" />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
