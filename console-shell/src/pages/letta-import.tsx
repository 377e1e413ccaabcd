import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Badge,
  Button,
  Card,
  ErrorNotice,
  Group,
  PageHeader,
  PasswordInput,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  V1_API,
  sendJson,
  useSession,
  v1AuthHeaders,
} from '@engram/console-kit';
import { IconDatabaseImport } from '@tabler/icons-react';
import { Permitted } from '../layout/access.js';

/*
 * Settings → Import: moves everything a server speaking the Letta API holds into this organization, and follows the
 * runs (`/v1/imports/letta`, the same calls `npm run import:letta` makes). Its calls are this screen's alone.
 */

type ImportRun = {
  id: string;
  sourceUrl: string;
  dryRun: boolean;
  status: 'running' | 'completed' | 'failed';
  phase: string;
  workflowId: string;
  progress: { agentsTotal: number; agentsDone: number; agentsFailed: number; messages: number; passages: number; created: Record<string, number> };
  plan: { agents: Array<{ sourceId: string; name: string; messages: number; passages: number }>; [kind: string]: unknown } | null;
  problems: Array<{ kind: string; sourceId: string | null; name: string | null; reason: string }>;
  error: string | null;
  createdAt: string;
};

const importApi = {
  list: () => sendJson<ImportRun[]>(`${V1_API}/imports/letta`, { headers: v1AuthHeaders() }),
  start: (body: { sourceUrl: string; apiKey: string; dryRun: boolean }) =>
    sendJson<ImportRun>(`${V1_API}/imports/letta`, { method: 'POST', json: body, headers: v1AuthHeaders() }),
};

const importsKey = (organizationId: string) => ['v1', organizationId, 'letta-imports'] as const;

const STATUS_COLOR = { running: 'blue', completed: 'green', failed: 'red' } as const;

function StartCard({ organizationId }: { organizationId: string }) {
  const queryClient = useQueryClient();
  const [sourceUrl, setSourceUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [mode, setMode] = useState<'dry' | 'real'>('dry');
  const start = useMutation({
    mutationFn: () => importApi.start({ sourceUrl: sourceUrl.trim(), apiKey, dryRun: mode === 'dry' }),
    onSuccess: async () => {
      setApiKey('');
      await queryClient.invalidateQueries({ queryKey: importsKey(organizationId) });
    },
  });
  return (
    <Card withBorder radius="md" p="lg" data-testid="start-letta-import">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          start.mutate();
        }}
      >
        <Stack gap="sm">
          <Title order={4}>Import from a Letta server</Title>
          <Text size="sm" c="dimmed">
            Self-hosted Letta, Letta Cloud or another Engram: its agents with their whole history, memory blocks, archival passages, tools, identities,
            groups, conversations and MCP servers. The key is kept sealed and never shown again; secret values are not read from the source.
          </Text>
          {start.error ? <ErrorNotice error={start.error} title="The import did not start" /> : null}
          <TextInput label="Server URL" placeholder="https://api.letta.com" value={sourceUrl} onChange={(event) => setSourceUrl(event.currentTarget.value)} required maw={520} />
          <PasswordInput label="API key of the source" value={apiKey} onChange={(event) => setApiKey(event.currentTarget.value)} required maw={520} />
          <SegmentedControl
            value={mode}
            onChange={(value) => setMode(value as 'dry' | 'real')}
            data={[
              { value: 'dry', label: 'Dry run: report what would move' },
              { value: 'real', label: 'Import' },
            ]}
            maw={520}
          />
          <Group>
            <Permitted permission="update_organization" action="import into the organization">
              <Button type="submit" leftSection={<IconDatabaseImport size={16} />} loading={start.isPending} disabled={!sourceUrl.trim() || !apiKey}>
                Start
              </Button>
            </Permitted>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function RunCard({ run }: { run: ImportRun }) {
  const { progress, plan } = run;
  return (
    <Card withBorder radius="md" p="lg" data-testid="letta-import-run">
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={600}>
            {run.dryRun ? 'Dry run' : 'Import'} from {run.sourceUrl}
          </Text>
          <Badge color={STATUS_COLOR[run.status]}>{run.status === 'running' ? `${run.status}: ${run.phase}` : run.status}</Badge>
        </Group>
        <Text size="sm" c="dimmed">
          Started {new Date(run.createdAt).toLocaleString()} · workflow {run.workflowId}
        </Text>
        {run.dryRun ? null : (
          <Text size="sm">
            Agents {progress.agentsDone} of {progress.agentsTotal}
            {progress.agentsFailed ? ` (${progress.agentsFailed} failed)` : ''} · {progress.messages} messages · {progress.passages} passages
            {Object.keys(progress.created).length > 0
              ? ` · created ${Object.entries(progress.created)
                  .map(([kind, count]) => `${count} ${kind}`)
                  .join(', ')}`
              : ''}
          </Text>
        )}
        {run.error ? <Text c="red" size="sm">{run.error}</Text> : null}
        {run.dryRun && plan ? (
          <Table withTableBorder striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Agent</Table.Th>
                <Table.Th>Messages</Table.Th>
                <Table.Th>Passages</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {plan.agents.map((agent) => (
                <Table.Tr key={agent.sourceId}>
                  <Table.Td>{agent.name}</Table.Td>
                  <Table.Td>{agent.messages}</Table.Td>
                  <Table.Td>{agent.passages}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : null}
        {run.problems.length > 0 ? (
          <Stack gap={4}>
            <Text fw={600} size="sm">
              {run.dryRun ? 'Would not move' : 'Not moved'}
            </Text>
            {run.problems.map((problem) => (
              <Text key={`${problem.kind}-${problem.sourceId}-${problem.reason}`} size="sm">
                {problem.kind} {problem.name ?? problem.sourceId}: {problem.reason}
              </Text>
            ))}
          </Stack>
        ) : null}
      </Stack>
    </Card>
  );
}

/** `/settings/import`: start a migration from a Letta server and follow its runs. */
export function LettaImportPage() {
  const session = useSession();
  const organizationId = session.organization?.id ?? '';
  const runs = useQuery({
    queryKey: importsKey(organizationId),
    queryFn: importApi.list,
    enabled: organizationId !== '',
    // Followed while a run is under way.
    refetchInterval: (query) => (query.state.data?.some((run) => run.status === 'running') ? 2000 : false),
  });
  return (
    <>
      <PageHeader title="Import" description="Move an organization from a Letta server (or another Engram) into this one." />
      {!organizationId ? <Text c="dimmed">You are in no organization.</Text> : null}
      {organizationId ? (
        <Stack gap="lg" maw={820}>
          <StartCard organizationId={organizationId} />
          {runs.error ? <ErrorNotice error={runs.error} title="The imports could not be loaded" onRetry={() => void runs.refetch()} /> : null}
          {runs.data?.map((run) => <RunCard key={run.id} run={run} />)}
        </Stack>
      ) : null}
    </>
  );
}
