import { Suspense } from 'react';
import { Button, Group, Loader, Outlet, RouterNavLink, useLocation, useParams } from '@engram/console-kit';
import { IconArrowsSplit, IconBox, IconDatabase, IconFileDownload, IconId, IconKey, IconListDetails, IconPlug, IconRobot, IconStack2, IconTemplate, IconTool, IconUsersGroup, type Icon } from '@tabler/icons-react';

/** The screens of this remote besides the agent workspace; the shell's navigation has one entry for all of them. */
const SECTIONS: Array<{ to: string; label: string; icon: Icon }> = [
  { to: '', label: 'Agents', icon: IconRobot },
  { to: 'templates', label: 'Templates', icon: IconTemplate },
  { to: 'block-templates', label: 'Block templates', icon: IconStack2 },
  { to: 'datasets', label: 'Datasets', icon: IconDatabase },
  { to: 'ab-tests', label: 'A/B tests', icon: IconArrowsSplit },
  { to: 'groups', label: 'Groups', icon: IconUsersGroup },
  { to: 'runs', label: 'Runs', icon: IconListDetails },
  { to: 'tools', label: 'Tools', icon: IconTool },
  { to: 'mcp-servers', label: 'MCP servers', icon: IconPlug },
  { to: 'providers', label: 'Providers', icon: IconKey },
  { to: 'identities', label: 'Identities', icon: IconId },
  { to: 'sandbox', label: 'Sandbox', icon: IconBox },
  { to: 'agent-files', label: 'Agent files', icon: IconFileDownload },
];

/**
 * The remote's own root (`/projects/<slug>/agents`). The shell mounts it under a splat route, and a relative
 * link in a layout route without a path of its own resolves against the whole URL there, so the links are
 * absolute: the URL without the splat's unmatched rest.
 */
function useRemoteRoot(): string {
  const { pathname } = useLocation();
  const { '*': rest = '' } = useParams();
  const path = pathname.replace(/\/+$/, '');
  const tail = rest.replace(/\/+$/, '');
  return tail ? path.slice(0, path.length - tail.length - 1) : path;
}

/**
 * The links between the sections above the routed screen. They wrap onto a second row where the window is narrow,
 * so every section stays in view and reachable by mouse (a row cut off at the edge hid the last ones).
 */
export function SectionLayout() {
  const root = useRemoteRoot();
  return (
    <>
      <Group component="nav" aria-label="Agent platform" gap={4} wrap="wrap" mb="md" data-testid="section-tabs">
        {SECTIONS.map(({ to, label, icon: SectionIcon }) => (
          // `end` for the agents list only: every other section keeps its link lit on its detail screens.
          <RouterNavLink key={to} to={to ? `${root}/${to}` : root} end={to === ''} style={{ textDecoration: 'none' }}>
            {({ isActive }) => (
              <Button component="span" size="xs" radius="md" variant={isActive ? 'light' : 'subtle'} color={isActive ? undefined : 'gray'} leftSection={<SectionIcon size={15} />}>
                {label}
              </Button>
            )}
          </RouterNavLink>
        ))}
      </Group>
      {/* The screens below load on first visit; the links stay while one does. */}
      <Suspense fallback={<Loader m="xl" />}>
        <Outlet />
      </Suspense>
    </>
  );
}
