import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Badge, Button, Group, NativeSelect, SimpleGrid, Stack, Table, Text, TextInput, useFormatters, useNavigate } from '@engram/console-kit';
import { rangeWindow, useFilters, useProjectAgents } from './filters.js';
import { observabilityApi, observabilityKeys, type TraceSearch, type TraceSummary } from './observability-api.js';
import { EmptyState, formatMs, Loaded, Section, useFilteredPath } from './shared.js';

/** The §5 filters as typed in the form; empty fields filter nothing. */
type FilterForm = {
  durationOperator: 'gte' | 'lte';
  duration: string;
  statusCode: '' | 'tool_error' | 'api_error';
  timestampOperator: 'gte' | 'lte';
  timestamp: string;
  functionName: string;
  templateFamily: string;
  agentStepsOperator: 'eq' | 'gte' | 'lte';
  agentSteps: string;
};

const EMPTY_FORM: FilterForm = {
  durationOperator: 'gte',
  duration: '',
  statusCode: '',
  timestampOperator: 'gte',
  timestamp: '',
  functionName: '',
  templateFamily: '',
  agentStepsOperator: 'gte',
  agentSteps: '',
};

// The API's own rules and messages (spec 000 §5), checked here first so a typo is pointed at in its field.
const DURATION = /^\d+(\.\d+)?(ms|s|m)$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

type FormErrors = Partial<Record<'duration' | 'timestamp' | 'agentSteps', string>>;

function validate(form: FilterForm): FormErrors {
  const errors: FormErrors = {};
  if (form.duration.trim() && !DURATION.test(form.duration.trim())) errors.duration = 'Invalid duration format';
  if (form.timestamp.trim() && (!ISO_DATE.test(form.timestamp.trim()) || Number.isNaN(Date.parse(form.timestamp.trim())))) errors.timestamp = 'Invalid date format';
  if (form.agentSteps.trim() && !/^\d+$/.test(form.agentSteps.trim())) errors.agentSteps = 'Agent steps must be a whole number';
  return errors;
}

/** The form's filters as the search body takes them (the agent is the filter bar's, with the range). */
function filtersOf(form: FilterForm): Omit<TraceSearch, 'startTimeUnix' | 'endTimeUnix' | 'projectId' | 'agentId' | 'cursor'> {
  return {
    ...(form.duration.trim() ? { duration: { operator: form.durationOperator, value: form.duration.trim() } } : {}),
    ...(form.statusCode ? { statusCode: form.statusCode } : {}),
    ...(form.timestamp.trim() ? { timestamp: { operator: form.timestampOperator, value: form.timestamp.trim() } } : {}),
    ...(form.functionName.trim() ? { functionName: form.functionName.trim() } : {}),
    ...(form.templateFamily.trim() ? { templateFamily: form.templateFamily.trim() } : {}),
    ...(form.agentSteps.trim() ? { agentSteps: { operator: form.agentStepsOperator, value: Number(form.agentSteps.trim()) } } : {}),
  };
}

const COMPARE = [
  { value: 'gte', label: 'at least' },
  { value: 'lte', label: 'at most' },
];

function StatusBadge({ status }: { status: TraceSummary['status_code'] }) {
  if (status === 'ok') return <Badge color="teal" variant="light">ok</Badge>;
  return (
    <Badge color={status === 'api_error' ? 'red' : 'orange'} variant="light">
      {status === 'api_error' ? 'API error' : 'tool error'}
    </Badge>
  );
}

function TraceRow({ trace, agentName }: { trace: TraceSummary; agentName: string | undefined }) {
  const format = useFormatters();
  const navigate = useNavigate();
  const target = useFilteredPath(`traces/${trace.trace_id}`);
  const open = () => void navigate(target);
  return (
    <Table.Tr
      data-testid="trace-row"
      data-trace-id={trace.trace_id}
      style={{ cursor: 'pointer' }}
      tabIndex={0}
      onClick={open}
      onKeyDown={(event) => {
        if (event.key === 'Enter') open();
      }}
    >
      <Table.Td>{format.dateTime(trace.started_at)}</Table.Td>
      <Table.Td>{trace.agent_id ? (agentName ?? trace.agent_id) : '—'}</Table.Td>
      <Table.Td ta="right" data-testid="trace-duration">
        {formatMs(trace.duration_ms)}
      </Table.Td>
      <Table.Td ta="right" data-testid="trace-steps">
        {trace.agent_steps}
      </Table.Td>
      <Table.Td ta="right">{trace.span_count}</Table.Td>
      <Table.Td data-testid="trace-tools">{trace.function_names.join(', ') || '—'}</Table.Td>
      <Table.Td>
        <StatusBadge status={trace.status_code} />
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * The trace explorer: the run traces of the range that pass the §5 filters, newest first, 100 to a page; a trace
 * opens as a waterfall of its spans.
 */
export function TraceExplorer() {
  const { filters, query, problem } = useFilters();
  const agents = useProjectAgents();
  // The preset ranges end when the screen was opened (or refreshed), so paging through them stays put.
  const [now, setNow] = useState(() => Date.now());
  const [form, setForm] = useState<FilterForm>(EMPTY_FORM);
  const [applied, setApplied] = useState<FilterForm>(EMPTY_FORM);
  const [errors, setErrors] = useState<FormErrors>({});
  /** The cursors of the pages before this one (the first page has none). */
  const [cursors, setCursors] = useState<string[]>([]);
  const timeWindow = problem === null ? rangeWindow(filters, now) : null;
  const search: TraceSearch | null = timeWindow && {
    ...timeWindow,
    ...(query.projectId ? { projectId: query.projectId } : {}),
    ...(query.agentId ? { agentId: query.agentId } : {}),
    ...filtersOf(applied),
    ...(cursors.length > 0 ? { cursor: cursors[cursors.length - 1] } : {}),
  };
  const traces = useQuery({
    queryKey: observabilityKeys.traces(search ?? { startTimeUnix: 0, endTimeUnix: 0 }),
    queryFn: () => observabilityApi.searchTraces(search as TraceSearch),
    enabled: search !== null,
    placeholderData: keepPreviousData,
  });

  const field = <Key extends keyof FilterForm>(key: Key) => ({
    value: form[key],
    onChange: (event: { currentTarget: { value: string } }) => setForm({ ...form, [key]: event.currentTarget.value }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validate(form);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setApplied(form);
    setCursors([]);
    setNow(Date.now());
  };
  const filtered = JSON.stringify(applied) !== JSON.stringify(EMPTY_FORM) || query.agentId !== undefined;

  return (
    <Stack gap="lg">
      <Section title="Filters" testId="trace-filters">
        <form onSubmit={submit} aria-label="Trace filters">
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
            <NativeSelect
              label="Status"
              data={[
                { value: '', label: 'Any status' },
                { value: 'tool_error', label: 'Tool error' },
                { value: 'api_error', label: 'API error' },
              ]}
              {...field('statusCode')}
            />
            <TextInput label="Tool called" placeholder="e.g. web_search" {...field('functionName')} />
            <TextInput label="Template family" placeholder="template id" {...field('templateFamily')} />
            <Group gap={4} align="flex-start" wrap="nowrap">
              <NativeSelect label="Duration" data={COMPARE} {...field('durationOperator')} w={140} />
              <TextInput label="Duration value" placeholder="250ms, 1.5s, 2m" error={errors.duration} {...field('duration')} />
            </Group>
            <Group gap={4} align="flex-start" wrap="nowrap">
              <NativeSelect
                label="Started"
                data={[
                  { value: 'gte', label: 'at or after' },
                  { value: 'lte', label: 'at or before' },
                ]}
                {...field('timestampOperator')}
                w={140}
              />
              <TextInput label="Start time" placeholder="2026-11-27T09:00Z" error={errors.timestamp} {...field('timestamp')} />
            </Group>
            <Group gap={4} align="flex-start" wrap="nowrap">
              <NativeSelect
                label="Agent steps"
                data={[
                  { value: 'eq', label: 'exactly' },
                  { value: 'gte', label: 'at least' },
                  { value: 'lte', label: 'at most' },
                ]}
                {...field('agentStepsOperator')}
                w={140}
              />
              <TextInput label="Steps" inputMode="numeric" error={errors.agentSteps} {...field('agentSteps')} />
            </Group>
            <Group gap="xs" align="flex-end">
              <Button type="submit">Search</Button>
              <Button
                variant="default"
                onClick={() => {
                  setForm(EMPTY_FORM);
                  setApplied(EMPTY_FORM);
                  setErrors({});
                  setCursors([]);
                  setNow(Date.now());
                }}
              >
                Clear
              </Button>
            </Group>
          </SimpleGrid>
        </form>
      </Section>
      <Section
        title="Traces"
        testId="traces-section"
        actions={
          <Button size="xs" variant="default" onClick={() => setNow(Date.now())} loading={traces.isFetching}>
            Refresh
          </Button>
        }
      >
        {problem ? (
          <Text size="sm" c="red">
            {problem}
          </Text>
        ) : (
          <Loaded
            query={traces}
            errorTitle="The traces could not be searched"
            height={240}
            isEmpty={(data) => data.traces.length === 0 && cursors.length === 0}
            empty={
              filtered ? (
                <EmptyState title="No traces match these filters" testId="no-traces">
                  Loosen a filter or choose a longer range.
                </EmptyState>
              ) : (
                <EmptyState title="No traces yet" testId="no-traces">
                  Every run of an agent leaves a trace of its steps, model calls and tool calls. Send a message to an agent, then refresh, or choose a
                  longer range.
                </EmptyState>
              )
            }
          >
            {(data) => (
              <Stack gap="xs">
                <Table striped highlightOnHover data-testid="traces-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Started</Table.Th>
                      <Table.Th>Agent</Table.Th>
                      <Table.Th ta="right">Duration</Table.Th>
                      <Table.Th ta="right">Steps</Table.Th>
                      <Table.Th ta="right">Spans</Table.Th>
                      <Table.Th>Tools</Table.Th>
                      <Table.Th>Status</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {data.traces.map((trace) => (
                      <TraceRow key={trace.trace_id} trace={trace} agentName={trace.agent_id ? agents.data?.get(trace.agent_id) : undefined} />
                    ))}
                  </Table.Tbody>
                </Table>
                <Group justify="space-between">
                  <Text size="xs" c="dimmed">
                    Page {cursors.length + 1} · {data.traces.length} traces
                  </Text>
                  <Group gap="xs">
                    <Button size="xs" variant="default" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
                      Previous
                    </Button>
                    <Button size="xs" variant="default" disabled={!data.nextCursor} onClick={() => data.nextCursor && setCursors([...cursors, data.nextCursor])}>
                      Next
                    </Button>
                  </Group>
                </Group>
              </Stack>
            )}
          </Loaded>
        )}
      </Section>
    </Stack>
  );
}
