import { Suspense, type ReactNode } from 'react';
import { Button, Center, ErrorNotice, Link, Skeleton, Stack, Text, useLocation, useProject } from '@engram/console-kit';

/** The titled card every section of this screen sits in. */
export { Section } from '@engram/console-kit';

/** What a screen shows when there is nothing to show yet, said plainly (never an empty chart). */
export function EmptyState({ title, children, testId = 'empty-state' }: { title: string; children?: ReactNode; testId?: string }) {
  return (
    <Center py="lg" data-testid={testId}>
      <Stack gap={4} align="center" maw={480}>
        <Text fw={500}>{title}</Text>
        {children ? (
          <Text size="sm" c="dimmed" ta="center">
            {children}
          </Text>
        ) : null}
      </Stack>
    </Center>
  );
}

type QueryView<T> = { data: T | undefined; error: unknown; isPending: boolean; refetch: () => unknown };

/**
 * A query's three states: a skeleton while it loads, its error with a retry, or `children` with the data (and, when
 * `isEmpty` says so, the empty state instead).
 */
export function Loaded<T>({
  query,
  height = 120,
  errorTitle,
  isEmpty,
  empty,
  children,
}: {
  query: QueryView<T>;
  height?: number;
  errorTitle: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.error) return <ErrorNotice error={query.error} title={errorTitle} onRetry={() => void query.refetch()} />;
  if (query.isPending || query.data === undefined) return <Skeleton h={height} />;
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}

/** A lazily loaded chart, with its space held while the chart library arrives. */
export function ChartSlot({ children, height = 200 }: { children: ReactNode; height?: number }) {
  return <Suspense fallback={<Skeleton h={height} />}>{children}</Suspense>;
}

/** A path inside the remote (`''`, `traces/…`, `models/…`) that keeps the range and scope of the URL. */
export function useFilteredPath(to: string): { pathname: string; search: string } {
  const location = useLocation();
  const project = useProject();
  const base = `/projects/${project.slug}/observability`;
  return { pathname: to ? `${base}/${to}` : base, search: location.search };
}

export function SectionLink({ to, children }: { to: string; children: ReactNode }) {
  const target = useFilteredPath(to);
  return (
    <Button component={Link} to={target} variant="subtle" size="compact-xs">
      {children}
    </Button>
  );
}

/** Milliseconds as a person reads them: 840 ms, 2.4 s, 3.1 min. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

export const formatPercent = (share: number) => `${(share * 100).toFixed(share > 0 && share < 0.1 ? 1 : 0)}%`;

export const formatDollars = (dollars: number) => `$${dollars.toFixed(dollars < 1 ? 4 : 2)}`;
