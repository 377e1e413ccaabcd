import { Fragment, useState } from 'react';
import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { Anchor, Badge, Button, Card, ErrorNotice, Group, NativeSelect, PageHeader, Skeleton, Stack, Table, Text, Tooltip, useFormatters, useNavigate, useProject, useV1 } from '@engram/console-kit';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { agentKeys } from '../queries.js';
import { RUN_STATUS_COLORS } from '../workspace/run-detail.js';
import { CursorPager, useCursorPages } from '../workspace/cursor-pager.js';
import { cancelBatch, listBatchItems, listJobs, type Job, type JobFilter } from './jobs-api.js';
import { jobKeys } from './job-keys.js';

const PAGE = 25;
/** A batch still running is read again this often, so its items' statuses move on screen. */
const RUNNING_REFRESH_MS = 2000;

const ITEM_STATUS_COLORS: Record<string, string> = { ...RUN_STATUS_COLORS, pending: 'gray' };

function StatusBadge({ status, tooltip }: { status: string; tooltip?: string | null }) {
  const badge = (
    <Badge size="sm" variant="dot" tt="none" color={ITEM_STATUS_COLORS[status] ?? 'gray'} styles={{ label: { overflow: 'visible' } }} data-testid="job-status">
      {status}
    </Badge>
  );
  return tooltip ? <Tooltip label={tooltip}>{badge}</Tooltip> : badge;
}

/** A batch's requests in order: each one's agent, status, and the run it became (opened in its agent's runs). */
function BatchItems({ job }: { job: Job }) {
  const v1 = useV1();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const active = job.status === 'created' || job.status === 'running';
  const items = useQuery({ queryKey: jobKeys.items(v1, job.id), queryFn: () => listBatchItems(job.id), refetchInterval: active ? RUNNING_REFRESH_MS : false });
  const agentIds = [...new Set((items.data ?? []).map((item) => item.agent_id))];
  const agents = useQueries({ queries: agentIds.map((agentId) => ({ queryKey: agentKeys.agent(v1, agentId), queryFn: () => v1.getAgent(agentId) })) });
  const nameOf = (agentId: string) => agents.find((agent) => agent.data?.id === agentId)?.data?.name ?? agentId;
  const cancel = useMutation({
    mutationFn: () => cancelBatch(job.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: jobKeys.all(v1) }),
  });
  if (items.error) return <ErrorNotice error={items.error} onRetry={() => void items.refetch()} />;
  if (!items.data) return <Skeleton h={60} />;
  return (
    <Stack gap="xs" p="xs" data-testid="batch-items">
      {cancel.error ? <ErrorNotice error={cancel.error} title="The batch was not cancelled" /> : null}
      {active && can('cancelBatch') ? (
        <Group justify="flex-end">
          <Button size="xs" variant="default" color="red" loading={cancel.isPending} onClick={() => cancel.mutate()}>
            Cancel batch
          </Button>
        </Group>
      ) : null}
      <Table verticalSpacing={4} fz="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>#</Table.Th>
            <Table.Th>Agent</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Run</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.data.map((item) => (
            <Table.Tr key={item.id} data-testid="batch-item">
              <Table.Td>{item.position + 1}</Table.Td>
              <Table.Td data-testid="batch-item-agent">{nameOf(item.agent_id)}</Table.Td>
              <Table.Td>
                <StatusBadge status={item.status} />
              </Table.Td>
              <Table.Td>
                {item.run_id ? (
                  <Anchor size="xs" ff="monospace" onClick={() => void navigate(`../${item.agent_id}?panel=runs&run=${item.run_id}`, { relative: 'path' })}>
                    {item.run_id.slice(0, 12)}…
                  </Anchor>
                ) : (
                  <Text size="xs" c="dimmed">
                    not started
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

const countsOf = (job: Job) => (job.metadata?.item_counts ?? {}) as Record<string, number>;

/** What went wrong in a run, in one line: the error its record keeps, else the stop reason of a run that did not complete. */
function errorOf(job: Job): string | null {
  const error = job.metadata?.error as { message?: unknown; error_type?: unknown; errorType?: unknown } | undefined;
  if (error && typeof error.message === 'string') return error.message;
  if (job.status === 'failed' || job.status === 'cancelled') return job.stop_reason ?? job.status;
  return null;
}

const STATUSES = [
  { value: '', label: 'Any status' },
  { value: 'running', label: 'Running' },
  { value: 'completed', label: 'Completed' },
  { value: 'failed', label: 'Failed' },
  { value: 'cancelled', label: 'Cancelled' },
];

/**
 * Every run and message batch of the organization, newest first, filtered by status or agent (an agent's runs only,
 * then). A run opens in its agent's runs; a batch opens in place with each of its requests and how it went.
 */
export function JobsPage() {
  const v1 = useV1();
  const project = useProject();
  const [filter, setFilter] = useState<JobFilter>({});
  const agents = useQuery({
    queryKey: [...agentKeys.all(v1), 'runs-filter', project.id],
    queryFn: () => v1.listAgents({ project_id: project.id, limit: 100 }),
  });
  return (
    <Stack>
      <PageHeader title="Runs" description="Every run of your agents and every message batch, newest first. Open a batch to see each of its requests." />
      <Group gap="sm" align="flex-end" data-testid="runs-filters">
        <NativeSelect
          size="xs"
          label="Status"
          data={STATUSES}
          value={filter.status ?? ''}
          onChange={(event) => setFilter({ ...filter, status: event.currentTarget.value || undefined })}
        />
        <NativeSelect
          size="xs"
          label="Agent"
          data={[{ value: '', label: 'Any agent' }, ...(agents.data ?? []).map((agent) => ({ value: agent.id, label: agent.name }))]}
          value={filter.agentId ?? ''}
          onChange={(event) => setFilter({ ...filter, agentId: event.currentTarget.value || undefined })}
        />
      </Group>
      {/* A new filter starts again from the newest page. */}
      <JobsList key={JSON.stringify(filter)} filter={filter} />
    </Stack>
  );
}

function JobsList({ filter }: { filter: JobFilter }) {
  const v1 = useV1();
  const navigate = useNavigate();
  const format = useFormatters();
  const pages = useCursorPages();
  const [openBatch, setOpenBatch] = useState<string | null>(null);
  const jobs = useQuery({
    queryKey: [...jobKeys.page(v1, pages.after), filter],
    queryFn: () => listJobs({ after: pages.after, limit: PAGE }, filter),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.some((job) => job.status === 'created' || job.status === 'running') ? RUNNING_REFRESH_MS : false),
  });
  const shown = jobs.data ?? [];
  const agentIds = [...new Set(shown.flatMap((job) => (job.agent_id ? [job.agent_id] : [])))];
  const agents = useQueries({ queries: agentIds.map((agentId) => ({ queryKey: agentKeys.agent(v1, agentId), queryFn: () => v1.getAgent(agentId) })) });
  const nameOf = (agentId: string) => agents.find((agent) => agent.data?.id === agentId)?.data?.name ?? agentId;
  const open = (job: Job) => {
    if (job.job_type === 'batch') setOpenBatch(openBatch === job.id ? null : job.id);
    else if (job.agent_id) void navigate(`../${job.agent_id}?panel=runs&run=${job.id}`, { relative: 'path' });
  };
  const filtered = filter.status !== undefined || filter.agentId !== undefined;
  return (
    <Stack>
      {jobs.error ? <ErrorNotice error={jobs.error} onRetry={() => void jobs.refetch()} /> : null}
      {jobs.isPending ? <Skeleton h={120} /> : null}
      {jobs.data && shown.length === 0 && pages.index === 0 ? (
        <Card withBorder p="xl">
          <Text size="sm" c="dimmed" ta="center">
            {filtered ? 'No run matches these filters.' : 'No runs yet: every message an agent gets starts one.'}
          </Text>
        </Card>
      ) : null}
      {shown.length > 0 ? (
        <Table highlightOnHover verticalSpacing={6} fz="sm" data-testid="jobs-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              <Table.Th>Kind</Table.Th>
              <Table.Th>Id</Table.Th>
              <Table.Th>Agent</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Started</Table.Th>
              <Table.Th ta="right">Duration</Table.Th>
              <Table.Th>Error</Table.Th>
              <Table.Th>Requests</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((job) => {
              const counts = countsOf(job);
              const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
              return (
                <Fragment key={job.id}>
                  <Table.Tr style={{ cursor: 'pointer' }} tabIndex={0} data-testid="job-row" data-job-type={job.job_type} onClick={() => open(job)} onKeyDown={(event) => event.key === 'Enter' && open(job)}>
                    <Table.Td w={24}>{job.job_type === 'batch' ? openBatch === job.id ? <IconChevronDown size={14} /> : <IconChevronRight size={14} /> : null}</Table.Td>
                    <Table.Td>
                      <Badge size="sm" variant="light" tt="none">
                        {job.job_type === 'batch' ? 'batch' : 'run'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Tooltip label={job.id}>
                        <Text size="xs" ff="monospace" data-testid="job-id">
                          {job.id.slice(0, job.id.indexOf('-') + 9)}…
                        </Text>
                      </Tooltip>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" data-testid="job-agent">
                        {job.agent_id ? nameOf(job.agent_id) : '—'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge status={job.status ?? 'created'} tooltip={job.stop_reason ? `Stop reason: ${job.stop_reason}` : job.id} />
                    </Table.Td>
                    <Table.Td>
                      <Tooltip label={format.dateTime(job.created_at)}>
                        <Text size="xs">{format.relative(job.created_at, 'narrow')}</Text>
                      </Tooltip>
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace" fz="xs">
                      {format.durationNs(job.total_duration_ns)}
                    </Table.Td>
                    <Table.Td maw={280}>
                      {errorOf(job) ? (
                        <Text size="xs" c="red" lineClamp={2} title={errorOf(job) ?? undefined} data-testid="job-error">
                          {errorOf(job)}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td>
                      {job.job_type === 'batch' ? (
                        <Text size="xs" data-testid="batch-counts">
                          {Object.entries(counts)
                            .map(([status, count]) => `${count} ${status}`)
                            .join(', ')}{' '}
                          of {total}
                        </Text>
                      ) : null}
                    </Table.Td>
                  </Table.Tr>
                  {openBatch === job.id ? (
                    <Table.Tr>
                      <Table.Td colSpan={9}>
                        <BatchItems job={job} />
                      </Table.Td>
                    </Table.Tr>
                  ) : null}
                </Fragment>
              );
            })}
          </Table.Tbody>
        </Table>
      ) : null}
      <CursorPager pages={pages} pageSize={PAGE} shown={shown.length} nextCursor={shown.length === PAGE ? (shown.at(-1)?.id ?? null) : null} settled={!jobs.isPlaceholderData} />
    </Stack>
  );
}
