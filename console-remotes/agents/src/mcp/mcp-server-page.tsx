import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  Code,
  ErrorNotice,
  Group,
  Link,
  Skeleton,
  Stack,
  Text,
  Title,
  Tooltip,
  useNavigate,
  useParams,
  useV1,
} from '@engram/console-kit';
import { Collapse } from '@engram/console-kit/widgets';
import { IconArrowLeft, IconPlayerPlay, IconPlugConnected, IconRefresh, IconTrash } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { AttachToAgent } from '../tools/attach-to-agent.js';
import { toolKeys } from '../tools/tool-keys.js';
import type { FullTool } from '../tools/tools-api.js';
import type { ToolSchema } from '../workspace/tool-arguments.js';
import { ToolArgumentsForm } from '../workspace/tool-run-form.js';
import { deleteMcpServer, getMcpServer, listLiveTools, listRegisteredTools, refreshMcpServer, runRegisteredTool, type McpServer, type McpToolHealth, type ToolSyncSummary } from './mcp-api.js';
import { mcpKeys } from './mcp-keys.js';
import { HealthBadge, LiveTools } from './live-tools.js';
import { serverEndpoint, TRANSPORT_LABELS } from './mcp-servers-page.js';

/** The server's settings as the API shows them: credentials masked. */
function ServerSettings({ server }: { server: McpServer }) {
  const secrets = server.mcp_server_type === 'stdio' ? server.env : { ...(server.auth_token ? { [server.auth_header || 'Authorization']: server.auth_token } : {}), ...server.custom_headers };
  return (
    <Stack gap={6}>
      <Group gap="xs">
        <Badge variant="light" tt="none">
          {TRANSPORT_LABELS[server.mcp_server_type]}
        </Badge>
        <Code>{serverEndpoint(server)}</Code>
      </Group>
      {secrets && Object.keys(secrets).length ? (
        <Group gap="xs" data-testid="mcp-server-secrets">
          <Text size="xs" c="dimmed">
            {server.mcp_server_type === 'stdio' ? 'Environment' : 'Headers'}:
          </Text>
          {Object.entries(secrets).map(([name, masked]) => (
            <Code key={name} fz="xs">
              {name}={masked}
            </Code>
          ))}
        </Group>
      ) : null}
    </Stack>
  );
}

function summaryText(summary: ToolSyncSummary): string {
  const parts = [`${summary.added.length} added`, `${summary.updated.length} updated`, `${summary.deleted.length} removed`];
  if (summary.skipped.length) parts.push(`${summary.skipped.length} skipped (${summary.skipped.map((skip) => `${skip.name}: ${skip.reason}`).join('; ')})`);
  return `Tools refreshed: ${parts.join(', ')}.`;
}

/** One registered tool: its schema health, a run with arguments, and attaching it to an agent. */
function RegisteredTool({ server, tool }: { server: McpServer; tool: FullTool }) {
  const { can } = usePermissions();
  const [open, setOpen] = useState(false);
  // Registration keeps the schema's health, as of the last check, beside the schema.
  const status = tool.json_schema['mcp:SCHEMA_STATUS'] as McpToolHealth['status'] | undefined;
  const warnings = tool.json_schema['mcp:SCHEMA_WARNINGS'];
  return (
    <Card withBorder radius="md" p="sm" data-testid={`mcp-tool-${tool.name}`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
            <Text size="sm" fw={600} ff="monospace">
              {tool.name}
            </Text>
            {status ? <HealthBadge health={{ status, reasons: Array.isArray(warnings) ? warnings.map(String) : [] }} /> : null}
          </Group>
          <Tooltip label={open ? 'Close' : 'Run it or attach it to an agent'}>
            <ActionIcon variant={open ? 'light' : 'subtle'} onClick={() => setOpen((value) => !value)} aria-label={`Use ${tool.name}`} aria-expanded={open}>
              <IconPlayerPlay size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
        {tool.description ? (
          <Text size="xs" c="dimmed">
            {tool.description}
          </Text>
        ) : null}
        <Collapse expanded={open} keepMounted={false}>
          <Stack gap="sm" pt="xs">
            {can('useMcpServer') ? (
              <ToolArgumentsForm schema={tool.json_schema as ToolSchema} label={`Run ${tool.name}`} run={(args) => runRegisteredTool(server.id, tool.id, args)} />
            ) : null}
            {can('changeAgent') ? <AttachToAgent toolId={tool.id} toolName={tool.name} /> : null}
          </Stack>
        </Collapse>
      </Stack>
    </Card>
  );
}

/** `mcp-servers/:serverId`: the server's settings, a connection test, its registered tools (run, attach), refresh and delete. */
export function McpServerPage() {
  const { serverId = '' } = useParams();
  const v1 = useV1();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const server = useQuery({ queryKey: mcpKeys.server(v1, serverId), queryFn: () => getMcpServer(serverId) });
  const tools = useQuery({ queryKey: mcpKeys.registeredTools(v1, serverId), queryFn: () => listRegisteredTools(serverId) });
  const check = useMutation({ mutationFn: () => listLiveTools(server.data?.server_name ?? '') });
  const refresh = useMutation({
    mutationFn: () => refreshMcpServer(serverId),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: mcpKeys.registeredTools(v1, serverId) });
      await queryClient.invalidateQueries({ queryKey: toolKeys.all(v1) });
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteMcpServer(serverId),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: mcpKeys.all(v1) });
      await queryClient.invalidateQueries({ queryKey: toolKeys.all(v1) });
      void navigate('..', { relative: 'path' });
    },
  });

  if (server.isPending) return <Skeleton h={240} radius="lg" />;
  if (server.error) return <ErrorNotice error={server.error} title="This server could not be opened" onRetry={() => void server.refetch()} />;
  return (
    <>
      <Group justify="space-between" mb="md" wrap="wrap" gap="sm">
        <Group gap="xs" wrap="nowrap">
          <Tooltip label="All MCP servers">
            <ActionIcon component={Link} to=".." relative="path" variant="subtle" aria-label="All MCP servers">
              <IconArrowLeft size={18} />
            </ActionIcon>
          </Tooltip>
          <Title order={2} fz={{ base: 'h3', sm: 'h2' }} data-testid="mcp-server-name">
            {server.data.server_name}
          </Title>
        </Group>
        <Group gap="xs">
          <Button variant="light" leftSection={<IconPlugConnected size={16} />} loading={check.isPending} onClick={() => check.mutate()}>
            Test connection
          </Button>
          {can('useMcpServer') ? (
            <Button variant="default" leftSection={<IconRefresh size={16} />} loading={refresh.isPending} onClick={() => refresh.mutate()}>
              Refresh tools
            </Button>
          ) : null}
          {can('deleteMcpServer') ? (
            <Button variant="default" color="red" leftSection={<IconTrash size={16} />} onClick={() => setConfirmingDelete(true)}>
              Delete
            </Button>
          ) : null}
        </Group>
      </Group>
      <Stack gap="md">
        <Card withBorder radius="lg" p="md">
          <Stack gap="sm">
            <ServerSettings server={server.data} />
            {check.error ? <ErrorNotice error={check.error} title="The server did not answer" /> : null}
            {check.data && !check.isPending ? <LiveTools tools={check.data} /> : null}
            {refresh.error ? <ErrorNotice error={refresh.error} title="The tools were not refreshed" /> : null}
            {refresh.data && !refresh.isPending ? (
              <Text size="sm" data-testid="mcp-refresh-summary">
                {summaryText(refresh.data)}
              </Text>
            ) : null}
          </Stack>
        </Card>
        <Title order={4}>Registered tools</Title>
        {tools.error ? <ErrorNotice error={tools.error} onRetry={() => void tools.refetch()} /> : null}
        {tools.isPending ? (
          <Skeleton h={60} radius="md" />
        ) : tools.data?.length === 0 ? (
          <Text size="sm" c="dimmed">
            No tools registered from this server. Test the connection, then refresh its tools.
          </Text>
        ) : (
          tools.data?.map((tool) => <RegisteredTool key={tool.id} server={server.data} tool={tool} />)
        )}
      </Stack>
      {confirmingDelete ? (
        <ConfirmDialog
          title={`Delete ${server.data.server_name}?`}
          confirmLabel="Delete server"
          mutation={remove}
          onConfirm={() => remove.mutate()}
          onClose={() => setConfirmingDelete(false)}
        >
          Its tools are deleted too, and every agent that has one loses it.
        </ConfirmDialog>
      ) : null}
    </>
  );
}
