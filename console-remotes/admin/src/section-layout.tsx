import { Suspense } from 'react';
import { Button, Group, Loader, Outlet, RouterNavLink, ScrollArea, useLocation, useParams } from '@engram/console-kit';
import { IconApps, IconBuilding, IconCpu, IconFlag, IconGift, IconMailCheck, IconUsers, type Icon } from '@tabler/icons-react';

const SECTIONS: Array<{ to: string; label: string; icon: Icon }> = [
  { to: '', label: 'Organizations', icon: IconBuilding },
  { to: 'users', label: 'Users', icon: IconUsers },
  { to: 'models', label: 'Models', icon: IconCpu },
  { to: 'gift-codes', label: 'Gift codes & referrals', icon: IconGift },
  { to: 'oauth-apps', label: 'OAuth apps', icon: IconApps },
  { to: 'whitelist', label: 'Whitelisted emails', icon: IconMailCheck },
  { to: 'content-violations', label: 'Content violations', icon: IconFlag },
];

/** The remote's root URL (the shell mounts it under a splat route, so links are made absolute from it). */
export function useRemoteRoot(): string {
  const { pathname } = useLocation();
  const { '*': rest = '' } = useParams();
  const path = pathname.replace(/\/+$/, '');
  const tail = rest.replace(/\/+$/, '');
  return tail ? path.slice(0, path.length - tail.length - 1) : path;
}

/** A row of links between the admin screens above the routed one. */
export function SectionLayout() {
  const root = useRemoteRoot();
  return (
    <>
      <ScrollArea type="never" mb="md">
        <Group component="nav" aria-label="Platform admin" gap={4} wrap="nowrap">
          {SECTIONS.map(({ to, label, icon: SectionIcon }) => (
            <RouterNavLink key={to} to={to ? `${root}/${to}` : root} end={to === ''} style={{ textDecoration: 'none' }}>
              {({ isActive }) => (
                <Button component="span" size="xs" radius="md" variant={isActive ? 'light' : 'subtle'} color={isActive ? undefined : 'gray'} leftSection={<SectionIcon size={15} />}>
                  {label}
                </Button>
              )}
            </RouterNavLink>
          ))}
        </Group>
      </ScrollArea>
      <Suspense fallback={<Loader m="xl" />}>
        <Outlet />
      </Suspense>
    </>
  );
}
