import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, ErrorNotice, Group, Modal, PasswordInput, SegmentedControl, SimpleGrid, Stack, Text, TextInput, useNavigate, useV1 } from '@engram/console-kit';
import { Textarea } from '@engram/console-kit/widgets';
import { IconPlugConnected, IconTerminal2 } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { addMcpServer, testMcpConfig, type McpServerConfig, type McpTransport } from './mcp-api.js';
import { mcpKeys } from './mcp-keys.js';
import { LiveTools } from './live-tools.js';
import { NamedValueRows } from './named-value-rows.js';
import { EMPTY_SERVER_DRAFT, serverConfig, type ServerDraft } from './server-draft.js';

const TRANSPORTS: Array<{ value: McpTransport; label: string }> = [
  { value: 'streamable_http', label: 'Streamable HTTP' },
  { value: 'sse', label: 'SSE' },
  { value: 'stdio', label: 'Local process (stdio)' },
];

/** Errors of one row list (`env.0`, `headers.2`…), by row. */
function rowErrors(errors: Record<string, string>, field: string): Record<number, string> {
  return Object.fromEntries(Object.entries(errors).flatMap(([key, message]) => (key.startsWith(`${field}.`) ? [[Number(key.slice(field.length + 1)), message]] : [])));
}

/** Adds an MCP server: its transport and credentials, a connection test before saving, then its page. */
export function AddServerModal({ onClose }: { onClose: () => void }) {
  const v1 = useV1();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const [draft, setDraft] = useState<ServerDraft>(EMPTY_SERVER_DRAFT);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const update = (change: Partial<ServerDraft>) => setDraft((current) => ({ ...current, ...change }));

  const test = useMutation({ mutationFn: (config: McpServerConfig) => testMcpConfig(draft.name.trim(), config) });
  const add = useMutation({
    mutationFn: (config: McpServerConfig) => addMcpServer(draft.name.trim(), config),
    onSuccess: async (server) => {
      await queryClient.invalidateQueries({ queryKey: mcpKeys.all(v1) });
      void navigate(server.id);
    },
  });
  /** The config the fields make; nothing is sent while a field is wrong. */
  const withConfig = (action: (config: McpServerConfig) => void) => {
    const made = serverConfig(draft);
    setErrors(made.errors);
    if (made.config) action(made.config);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    withConfig((config) => add.mutate(config));
  };
  const stdio = draft.transport === 'stdio';

  return (
    <Modal opened onClose={onClose} title="Add an MCP server" size="lg">
      <form onSubmit={submit} noValidate aria-label="Add an MCP server">
        <Stack>
          {add.error ? <ErrorNotice error={add.error} title="The server was not added" /> : null}
          <TextInput label="Name" description="Its tools are tagged mcp:<name>." value={draft.name} onChange={(event) => update({ name: event.currentTarget.value })} error={errors.name} data-autofocus />
          <SegmentedControl aria-label="Transport" value={draft.transport} onChange={(value) => update({ transport: value as McpTransport })} data={TRANSPORTS} fullWidth />
          {stdio ? (
            <>
              <Alert variant="light" color="gray" icon={<IconTerminal2 size={18} />}>
                The command runs on the Engram server, as a child process of the API and of each worker.
              </Alert>
              <TextInput label="Command" placeholder="npx" value={draft.command} onChange={(event) => update({ command: event.currentTarget.value })} error={errors.command} ff="monospace" />
              <Textarea
                label="Arguments"
                description="One a line."
                placeholder={'-y\n@modelcontextprotocol/server-everything'}
                value={draft.args}
                onChange={(event) => update({ args: event.currentTarget.value })}
                autosize
                minRows={2}
                maxRows={8}
                styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
              />
              <NamedValueRows label="Environment variables" nameLabel="Name" rows={draft.env} onChange={(env) => update({ env })} errors={rowErrors(errors, 'env')} />
            </>
          ) : (
            <>
              <TextInput label="URL" placeholder={draft.transport === 'sse' ? 'https://mcp.example.com/sse' : 'https://mcp.example.com/mcp'} value={draft.url} onChange={(event) => update({ url: event.currentTarget.value })} error={errors.url} ff="monospace" />
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                <TextInput label="Auth header" placeholder="Authorization" value={draft.authHeader} onChange={(event) => update({ authHeader: event.currentTarget.value })} error={errors.authHeader} />
                <PasswordInput label="Auth token" description="Authorization takes a bare token as Bearer." value={draft.authToken} onChange={(event) => update({ authToken: event.currentTarget.value })} autoComplete="off" />
              </SimpleGrid>
              <NamedValueRows label="Custom headers" nameLabel="Header" rows={draft.headers} onChange={(headers) => update({ headers })} errors={rowErrors(errors, 'headers')} />
            </>
          )}
          {test.error ? <ErrorNotice error={test.error} title="The server did not answer" /> : null}
          {test.data && !test.isPending ? <LiveTools tools={test.data.tools} /> : null}
          <Group justify="space-between">
            <Text size="xs" c="dimmed">
              Credentials are stored encrypted and only ever shown masked.
            </Text>
            <Group gap="xs">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              {can('useMcpServer') ? (
                <Button variant="light" leftSection={<IconPlugConnected size={16} />} loading={test.isPending} onClick={() => withConfig((config) => test.mutate(config))}>
                  Test connection
                </Button>
              ) : null}
              <Button type="submit" loading={add.isPending}>
                Add server
              </Button>
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
