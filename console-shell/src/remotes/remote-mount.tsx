import { Component, lazy, Suspense, useMemo, useState, type ComponentType, type ErrorInfo, type ReactNode } from 'react';
import { loadRemote, registerRemotes } from '@module-federation/enhanced/runtime';
import { Alert, Button, Center, Code, Group, Loader, Stack, Text } from '@engram/console-kit';
import { IconPlugConnectedX, IconRefresh } from '@tabler/icons-react';
import type { RemoteInfo } from './remote-manifest.js';

type RemoteAppModule = { default: ComponentType };

/** Loads `<remote>/app`; a retry re-registers the remote so a failed entry is fetched again. */
function lazyRemoteApp(remote: RemoteInfo, attempt: number) {
  return lazy(async () => {
    // Remotes build their screens from the kit's widgets: fetch them alongside the remote. (This
    // import is also what makes the shell provide them to the remotes as a shared singleton.)
    void import('@engram/console-kit/widgets');
    registerRemotes([{ name: remote.name, entry: remote.entry }], { force: attempt > 0 });
    const module = await loadRemote<RemoteAppModule>(`${remote.name}/app`);
    if (!module?.default) throw new Error(`${remote.name}/app has no default export`);
    return { default: module.default };
  });
}

type BoundaryProps = { remote: RemoteInfo; onRetry: () => void; children: ReactNode };

/** Whatever a remote does (fail to load, throw while rendering), the shell around it stays up. */
class RemoteErrorBoundary extends Component<BoundaryProps, { error: Error | null }> {
  override state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`[console] the ${this.props.remote.name} remote failed`, error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return <RemoteFallback remote={this.props.remote} error={error} onRetry={() => this.setState({ error: null }, this.props.onRetry)} />;
  }
}

function RemoteFallback({ remote, error, onRetry }: { remote: RemoteInfo; error: Error; onRetry: () => void }) {
  return (
    <Center py="xl" data-testid="remote-fallback">
      <Alert
        maw={560}
        w="100%"
        variant="light"
        color="orange"
        radius="md"
        icon={<IconPlugConnectedX size={20} />}
        title={`${remote.title} is unavailable right now`}
      >
        <Stack gap="sm">
          <Text size="sm">
            This part of the console could not be loaded. Everything else keeps working: use the navigation to reach projects, API keys and
            your account, or try again in a moment.
          </Text>
          <Code block fz="xs" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {error.message.split('\n')[0]}
          </Code>
          <Group>
            <Button size="xs" variant="light" color="orange" leftSection={<IconRefresh size={14} />} onClick={onRetry}>
              Try again
            </Button>
          </Group>
        </Stack>
      </Alert>
    </Center>
  );
}

/** Mounts one remote's app entry under the current route. */
export function RemoteMount({ remote }: { remote: RemoteInfo }) {
  const [attempt, setAttempt] = useState(0);
  const RemoteApp = useMemo(() => lazyRemoteApp(remote, attempt), [remote, attempt]);
  return (
    <RemoteErrorBoundary key={`${remote.name}:${attempt}`} remote={remote} onRetry={() => setAttempt((value) => value + 1)}>
      <Suspense
        fallback={
          <Center py="xl">
            <Group gap="sm">
              <Loader size="sm" />
              <Text c="dimmed" size="sm">
                Loading {remote.title}…
              </Text>
            </Group>
          </Center>
        }
      >
        {/* eslint-disable-next-line react-hooks/static-components -- a remote's app is known only at run time: one lazy component per remote and attempt (memoized above), made again only when a retry asks for a fresh load, which should remount it */}
        <RemoteApp />
      </Suspense>
    </RemoteErrorBoundary>
  );
}
