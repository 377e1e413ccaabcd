import { useQuery } from '@tanstack/react-query';
import { Group, NativeSelect, SegmentedControl, Text, TextInput, useProject, useSearchParams, useV1 } from '@engram/console-kit';
import { observabilityKeys, RANGES, type Granularity, type MetricQuery, type RangeName } from './observability-api.js';
import { periodsOf } from './periods.js';

/**
 * What every screen of the remote is looking at: a time range, its granularity and timezone, and the scope (this
 * project, or the whole organization, optionally one agent). Kept in the URL so moving between the screens, a reload
 * or a shared link keeps it.
 */
export type Filters = {
  range: RangeName;
  /** `custom` only: `YYYY-MM-DDTHH:mm` in the browser's time, as a datetime-local input writes it. */
  from: string;
  to: string;
  granularity: Granularity;
  /** `browser`: the browser's own timezone; else `UTC`. */
  timezone: 'browser' | 'UTC';
  scope: 'project' | 'organization';
  agentId: string;
};

const DEFAULTS: Filters = { range: '7d', from: '', to: '', granularity: 'daily', timezone: 'browser', scope: 'project', agentId: '' };

export const browserTimezone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The preset ranges in hours (spec 000 §9), for the trace search, which takes explicit times. */
const RANGE_HOURS: Record<Exclude<RangeName, 'custom'>, number> = { '1h': 1, '4h': 4, '12h': 12, '1d': 24, '7d': 168, '30d': 720 };

const RANGE_LABELS: Record<RangeName, string> = { '1h': '1h', '4h': '4h', '12h': '12h', '1d': '1d', '7d': '7d', '30d': '30d', custom: 'Custom' };

const localToUnix = (value: string): number | undefined => {
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : Math.floor(time / 1000);
};

/** A custom range the API would refuse, said before asking it (the messages are the API's, spec 000 §5). */
export function customRangeProblem(filters: Filters): string | null {
  if (filters.range !== 'custom') return null;
  const start = localToUnix(filters.from);
  const end = localToUnix(filters.to);
  if (start === undefined) return 'startTimeUnix must be a valid timestamp';
  if (end === undefined) return 'endTimeUnix must be a valid timestamp';
  if (start >= end) return 'startTimeUnix must be less than endTimeUnix';
  if (end - start > 365 * 86_400) return 'Time range must be at most 365 days';
  return null;
}

export function useFilters() {
  const [params, setParams] = useSearchParams();
  const project = useProject();
  const read = <Key extends keyof Filters>(key: Key, allowed?: readonly string[]): Filters[Key] => {
    const value = params.get(key);
    return (value !== null && (!allowed || allowed.includes(value)) ? value : DEFAULTS[key]) as Filters[Key];
  };
  const filters: Filters = {
    range: read('range', RANGES),
    from: read('from'),
    to: read('to'),
    granularity: read('granularity', ['hourly', 'daily']),
    timezone: read('timezone', ['browser', 'UTC']),
    scope: read('scope', ['project', 'organization']),
    agentId: read('agentId'),
  };
  const query: MetricQuery = {
    range: filters.range,
    granularity: filters.granularity,
    timezone: filters.timezone === 'UTC' ? 'UTC' : browserTimezone(),
    ...(filters.range === 'custom' ? { startTimeUnix: localToUnix(filters.from), endTimeUnix: localToUnix(filters.to) } : {}),
    ...(filters.scope === 'project' ? { projectId: project.id } : {}),
    ...(filters.agentId ? { agentId: filters.agentId } : {}),
  };
  // From the address bar, not the render's params: two changes before a render would otherwise undo the first.
  const update = (patch: Partial<Filters>) =>
    setParams(
      () => {
        const next = new URLSearchParams(window.location.search);
        for (const [key, value] of Object.entries(patch)) {
          if (value === '' || value === DEFAULTS[key as keyof Filters]) next.delete(key);
          else next.set(key, value);
        }
        return next;
      },
      { replace: true },
    );
  return { filters, query, problem: customRangeProblem(filters), update };
}

/** The range as explicit Unix seconds ending at `now` (the trace search takes times, not range names). */
export function rangeWindow(filters: Filters, now: number): { startTimeUnix: number; endTimeUnix: number } | null {
  if (filters.range === 'custom') {
    const start = localToUnix(filters.from);
    const end = localToUnix(filters.to);
    return start === undefined || end === undefined ? null : { startTimeUnix: start, endTimeUnix: end };
  }
  const end = Math.ceil(now / 1000);
  return { startTimeUnix: end - RANGE_HOURS[filters.range] * 3600, endTimeUnix: end };
}

/** Every period of the range as of `at` (when the data was read), so a chart shows the quiet periods as such. */
export function rangePeriods(filters: Filters, query: MetricQuery, at: number): string[] {
  const range = rangeWindow(filters, at);
  return range ? periodsOf(range.startTimeUnix * 1000, range.endTimeUnix * 1000, query.granularity, query.timezone) : [];
}

/** The project's agents, for the agent filter and to show names instead of ids. */
export function useProjectAgents() {
  const project = useProject();
  const v1 = useV1();
  return useQuery({
    queryKey: observabilityKeys.agents(project.id),
    queryFn: async () => new Map((await v1.listAgents({ project_id: project.id, limit: 100 })).map((agent) => [agent.id, agent.name])),
    staleTime: 60_000,
  });
}

/** The range, granularity, timezone and scope controls every screen starts with. */
export function FilterBar({ granularity = true }: { granularity?: boolean }) {
  const { filters, problem, update } = useFilters();
  const agents = useProjectAgents();
  const agentOptions = [{ value: '', label: 'All agents' }, ...[...(agents.data ?? new Map<string, string>())].map(([id, name]) => ({ value: id, label: name }))];
  return (
    <Group gap="sm" align="flex-end" wrap="wrap" mb="md" data-testid="filter-bar">
      <SegmentedControl
        size="xs"
        aria-label="Time range"
        data={RANGES.map((range) => ({ value: range, label: RANGE_LABELS[range] }))}
        value={filters.range}
        onChange={(value) => update({ range: value as RangeName })}
      />
      {filters.range === 'custom' ? (
        <>
          <TextInput size="xs" type="datetime-local" label="From" value={filters.from} onChange={(event) => update({ from: event.currentTarget.value })} />
          <TextInput size="xs" type="datetime-local" label="To" value={filters.to} onChange={(event) => update({ to: event.currentTarget.value })} />
        </>
      ) : null}
      {granularity ? (
        <SegmentedControl
          size="xs"
          aria-label="Granularity"
          data={[
            { value: 'hourly', label: 'Hourly' },
            { value: 'daily', label: 'Daily' },
          ]}
          value={filters.granularity}
          onChange={(value) => update({ granularity: value as Granularity })}
        />
      ) : null}
      <NativeSelect
        size="xs"
        label="Timezone"
        data={[
          { value: 'browser', label: `Browser (${browserTimezone()})` },
          { value: 'UTC', label: 'UTC' },
        ]}
        value={filters.timezone}
        onChange={(event) => update({ timezone: event.currentTarget.value as Filters['timezone'] })}
      />
      <NativeSelect
        size="xs"
        label="Scope"
        data={[
          { value: 'project', label: 'This project' },
          { value: 'organization', label: 'All projects' },
        ]}
        value={filters.scope}
        onChange={(event) => update({ scope: event.currentTarget.value as Filters['scope'], agentId: '' })}
      />
      {filters.scope === 'project' ? (
        <NativeSelect size="xs" label="Agent" data={agentOptions} value={filters.agentId} onChange={(event) => update({ agentId: event.currentTarget.value })} />
      ) : null}
      {problem ? (
        <Text size="xs" c="red" role="alert">
          {problem}
        </Text>
      ) : null}
    </Group>
  );
}
