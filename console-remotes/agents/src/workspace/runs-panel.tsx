import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Anchor, Badge, Button, ErrorNotice, Group, Link, Skeleton, Stack, Table, Text, Tooltip, useFormatters, useProject, useV1, type Run } from '@engram/console-kit';
import { agentKeys, useRunUsage } from '../queries.js';
import { RUN_STATUS_COLORS, RunDetail } from './run-detail.js';

const PAGE = 10;

function UsageCells({ run }: { run: Run }) {
  const format = useFormatters();
  const usage = useRunUsage(run.id, run.status !== 'running' && run.status !== 'created');
  return (
    <>
      <Table.Td ta="right" ff="monospace" fz="xs">
        {usage.data ? format.number(usage.data.step_count) : '—'}
      </Table.Td>
      <Table.Td ta="right" ff="monospace" fz="xs">
        {usage.data ? format.number(usage.data.total_tokens) : '—'}
      </Table.Td>
    </>
  );
}

/**
 * The agent's runs, newest first: status, when, how long, steps and tokens. Opening one shows its detail in place
 * (`openRunId`, kept by the workspace in the address so a run can be linked to).
 */
export function RunsPanel({ agentId, openRunId, onOpenRun }: { agentId: string; openRunId: string | null; onOpenRun: (runId: string | null) => void }) {
  if (openRunId) return <RunDetail runId={openRunId} onBack={() => onOpenRun(null)} />;
  return <RunsTable agentId={agentId} onOpenRun={onOpenRun} />;
}

function RunsTable({ agentId, onOpenRun }: { agentId: string; onOpenRun: (runId: string) => void }) {
  const v1 = useV1();
  const project = useProject();
  const format = useFormatters();
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1);
  const runs = useQuery({
    queryKey: [...agentKeys.runs(v1, agentId), after ?? ''],
    queryFn: () => v1.listRuns({ agent_id: agentId, limit: PAGE, ...(after ? { after } : {}) }),
    placeholderData: keepPreviousData,
  });
  if (runs.isPending) return <Skeleton h={160} />;
  if (runs.error) return <ErrorNotice error={runs.error} onRetry={() => void runs.refetch()} />;
  if (runs.data.length === 0 && cursors.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No runs yet: every message you send starts one.
      </Text>
    );
  }
  const last = runs.data.at(-1);
  return (
    <Stack gap="sm">
      <Group justify="flex-end">
        <Anchor component={Link} to={`/projects/${project.slug}/observability/traces?agentId=${encodeURIComponent(agentId)}&scope=organization`} size="xs" data-testid="agent-traces-link">
          This agent's traces
        </Anchor>
      </Group>
      <Table.ScrollContainer minWidth={0}>
        <Table verticalSpacing={6} horizontalSpacing="xs" fz="sm" highlightOnHover data-testid="runs-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Status</Table.Th>
              <Table.Th>Started</Table.Th>
              <Table.Th ta="right" visibleFrom="xs">
                Duration
              </Table.Th>
              <Table.Th ta="right">Steps</Table.Th>
              <Table.Th ta="right">Tokens</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {runs.data.map((run) => (
              <Table.Tr
                key={run.id}
                style={{ cursor: 'pointer' }}
                tabIndex={0}
                aria-label={`Open run ${run.id}`}
                data-testid="run-row"
                onClick={() => onOpenRun(run.id)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' || event.key === ' ') {
                    event.preventDefault();
                    onOpenRun(run.id);
                  }
                }}
              >
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Tooltip label={run.stop_reason ? `Stop reason: ${run.stop_reason}` : run.id}>
                    <Badge size="sm" variant="dot" tt="none" color={RUN_STATUS_COLORS[run.status] ?? 'gray'} styles={{ label: { overflow: 'visible' } }}>
                      {run.status}
                    </Badge>
                  </Tooltip>
                </Table.Td>
                <Table.Td>
                  <Tooltip label={format.dateTime(run.created_at)}>
                    <Text size="xs" style={{ whiteSpace: 'nowrap' }}>
                      {format.relative(run.created_at, 'narrow')}
                    </Text>
                  </Tooltip>
                </Table.Td>
                <Table.Td ta="right" ff="monospace" fz="xs" visibleFrom="xs">
                  {format.durationNs(run.total_duration_ns)}
                </Table.Td>
                <UsageCells run={run} />
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group justify="space-between">
        <Button size="xs" variant="default" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </Button>
        <Button size="xs" variant="default" disabled={runs.data.length < PAGE || !last} onClick={() => last && setCursors([...cursors, last.id])}>
          Older
        </Button>
      </Group>
    </Stack>
  );
}
