import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Card, ErrorNotice, Link, PageHeader, Skeleton, Stack, Table, Text, useNavigate, useV1 } from '@engram/console-kit';
import { IconPlug, IconPlus } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { AddServerModal } from './add-server-modal.js';
import { listMcpServers, type McpServer, type McpTransport } from './mcp-api.js';
import { mcpKeys } from './mcp-keys.js';

export const TRANSPORT_LABELS: Record<McpTransport, string> = { stdio: 'stdio', sse: 'SSE', streamable_http: 'Streamable HTTP' };

/** Where the server is: its URL, or the command line that starts it. */
export function serverEndpoint(server: McpServer): string {
  return server.mcp_server_type === 'stdio' ? [server.command, ...(server.args ?? [])].join(' ') : (server.server_url ?? '');
}

/** The organization's MCP servers; each opens on its tools. */
export function McpServersPage() {
  const v1 = useV1();
  const navigate = useNavigate();
  const { can } = usePermissions();
  const [adding, setAdding] = useState(false);
  const servers = useQuery({ queryKey: mcpKeys.list(v1), queryFn: listMcpServers });

  return (
    <>
      <PageHeader
        title="MCP servers"
        description="Model Context Protocol servers whose tools your agents can use: reached over Streamable HTTP or SSE, or started as a local process."
        actions={
          can('addMcpServer') ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
              Add server
            </Button>
          ) : null
        }
      />
      {servers.error ? <ErrorNotice error={servers.error} onRetry={() => void servers.refetch()} /> : null}
      {servers.isPending ? (
        <Skeleton h={96} radius="lg" />
      ) : servers.data?.length === 0 ? (
        <Card withBorder radius="lg" p="xl">
          <Stack align="center" gap="xs">
            <IconPlug size={32} stroke={1.4} />
            <Text fw={600}>No MCP servers yet</Text>
            <Text size="sm" c="dimmed" ta="center" maw={440}>
              Add a server and its tools are registered, ready to attach to agents.
            </Text>
          </Stack>
        </Card>
      ) : servers.data ? (
        <Card withBorder radius="lg" p={0}>
          <Table.ScrollContainer minWidth={560}>
            <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover data-testid="mcp-servers-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Transport</Table.Th>
                  <Table.Th>Endpoint</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {servers.data.map((server) => (
                  <Table.Tr key={server.id} style={{ cursor: 'pointer' }} onClick={() => void navigate(server.id)} data-testid="mcp-server-row">
                    <Table.Td>
                      <Text size="sm" fw={600} component={Link} to={server.id} onClick={(event) => event.stopPropagation()} c="var(--mantine-color-text)">
                        {server.server_name}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Badge size="sm" variant="light" tt="none">
                        {TRANSPORT_LABELS[server.mcp_server_type]}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" ff="monospace" c="dimmed" truncate maw={480}>
                        {serverEndpoint(server)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      ) : null}
      {adding ? <AddServerModal onClose={() => setAdding(false)} /> : null}
    </>
  );
}
