import type { ReactNode } from 'react';
import { Button, Group, Link, PageHeader, Route, Routes, useLocation, useProject } from '@engram/console-kit';
import { Dashboard } from './dashboard.js';
import { FilterBar } from './filters.js';
import { ModelCostsPage, ModelsPage } from './models.js';
import { TraceView } from './trace-view.js';
import { TraceExplorer } from './traces.js';
import { useFilteredPath } from './shared.js';

const SCREENS = [
  { to: '', label: 'Overview' },
  { to: 'traces', label: 'Traces' },
  { to: 'models', label: 'Models' },
] as const;

function ScreenLink({ to, label }: { to: string; label: string }) {
  const location = useLocation();
  const project = useProject();
  const target = useFilteredPath(to);
  const base = `/projects/${project.slug}/observability`;
  const active = to === '' ? location.pathname === base || location.pathname === `${base}/` : location.pathname.startsWith(`${base}/${to}`);
  return (
    <Button component={Link} to={target} size="xs" variant={active ? 'light' : 'subtle'} aria-current={active ? 'page' : undefined}>
      {label}
    </Button>
  );
}

function Screen({ children, granularity = true }: { children: ReactNode; granularity?: boolean }) {
  return (
    <>
      <FilterBar granularity={granularity} />
      {children}
    </>
  );
}

/** The observability remote (`observability/app`), mounted by the shell under /projects/:projectSlug/observability/*. */
export default function ObservabilityApp() {
  return (
    <>
      <PageHeader
        title="Observability"
        description="What your agents did and what it cost: latency, errors, tool use and steps over time, every run's trace, and usage per model."
        actions={
          <Group gap={4} role="navigation" aria-label="Observability screens">
            {SCREENS.map((screen) => (
              <ScreenLink key={screen.label} to={screen.to} label={screen.label} />
            ))}
          </Group>
        }
      />
      <Routes>
        <Route
          index
          element={
            <Screen>
              <Dashboard />
            </Screen>
          }
        />
        <Route
          path="traces"
          element={
            <Screen granularity={false}>
              <TraceExplorer />
            </Screen>
          }
        />
        <Route path="traces/:traceId" element={<TraceView />} />
        <Route
          path="models"
          element={
            <Screen granularity={false}>
              <ModelsPage />
            </Screen>
          }
        />
        <Route
          path="models/:modelId"
          element={
            <Screen>
              <ModelCostsPage />
            </Screen>
          }
        />
      </Routes>
    </>
  );
}
