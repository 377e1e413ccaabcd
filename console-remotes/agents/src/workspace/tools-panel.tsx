import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  Code,
  ErrorNotice,
  Group,
  Skeleton,
  Stack,
  Table,
  Text,
  Tooltip,
  useV1,
  type Agent,
  type Tool,
} from '@engram/console-kit';
import { Collapse, Select, Switch } from '@engram/console-kit/widgets';
import { IconChevronDown, IconChevronRight, IconCode, IconPencil, IconPlayerPlay, IconPlugConnected, IconPlus, IconUnlink } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { canRunOnItsOwn } from '../ade-api.js';
import { agentKeys, useAgentTools, useOrganizationTools } from '../queries.js';
import { ToolEditorModal } from '../tools/tool-editor-modal.js';
import { ToolRunForm } from './tool-run-form.js';

/** A tool as `/v1` answers it: the kit's shape, and the source a custom tool runs. */
type ToolWithSource = Tool & { source_code?: string | null };

/** What the model is told about a tool (its description and parameters) and, for a custom tool, the source it runs. */
function ToolDetails({ tool }: { tool: ToolWithSource }) {
  const parameters = Object.entries(tool.json_schema.parameters?.properties ?? {});
  const required = new Set(tool.json_schema.parameters?.required ?? []);
  return (
    <Stack gap={6} data-testid="tool-details">
      {tool.description ? (
        <Text size="xs" style={{ whiteSpace: 'pre-wrap' }}>
          {tool.description}
        </Text>
      ) : null}
      <Text size="xs" fw={600}>
        Parameters
      </Text>
      {parameters.length === 0 ? (
        <Text size="xs" c="dimmed">
          None.
        </Text>
      ) : (
        <Table fz="xs" verticalSpacing={2} horizontalSpacing="xs" data-testid="tool-parameters">
          <Table.Tbody>
            {parameters.map(([name, schema]) => (
              <Table.Tr key={name}>
                <Table.Td ff="monospace">
                  {name}
                  {required.has(name) ? '' : '?'}
                </Table.Td>
                <Table.Td c="dimmed">{schema.type ?? 'any'}</Table.Td>
                <Table.Td>{schema.description ?? ''}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {tool.source_code ? (
        <>
          <Text size="xs" fw={600}>
            Source
          </Text>
          <Code block fz="xs" mah={240} style={{ overflow: 'auto' }} data-testid="tool-source">
            {tool.source_code}
          </Code>
        </>
      ) : null}
    </Stack>
  );
}

/** The toggle writes a `requires_approval` tool rule on the agent; its presence is the state. */
function requiresApproval(agent: Agent, tool: Tool): boolean {
  return (agent.tool_rules ?? []).some((rule) => rule.type === 'requires_approval' && rule.tool_name === tool.name);
}

function ToolRow({ agent, tool, onEdit }: { agent: Agent; tool: Tool; onEdit: () => void }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const [running, setRunning] = useState(false);
  const [open, setOpen] = useState(false);
  const changeable = can('changeAgent');
  const runnable = changeable && canRunOnItsOwn(tool);
  const editable = can('updateTool');
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: agentKeys.agent(v1, agent.id), exact: true }),
      queryClient.invalidateQueries({ queryKey: agentKeys.tools(v1, agent.id) }),
      queryClient.invalidateQueries({ queryKey: agentKeys.context(v1, agent.id) }),
    ]);
  const approval = useMutation({ mutationFn: (required: boolean) => v1.setToolApproval(agent.id, tool.name, required), onSuccess: refresh });
  const detach = useMutation({ mutationFn: () => v1.detachTool(agent.id, tool.id), onSuccess: refresh });
  // Set in the change handler itself, so the controlled switch never snaps back while the change is saved.
  const [requested, setRequested] = useState<boolean | null>(null);
  const required = requested ?? requiresApproval(agent, tool);
  return (
    <Card withBorder radius="md" p="sm" data-testid={`tool-${tool.name}`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap">
          <Button
            variant="subtle"
            color="gray"
            size="compact-sm"
            px={4}
            leftSection={open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
            onClick={() => setOpen((shown) => !shown)}
            aria-expanded={open}
            aria-label={`${tool.name}: ${open ? 'hide' : 'show'} its parameters and source`}
            styles={{ label: { fontFamily: 'var(--mantine-font-family-monospace)', fontWeight: 600 } }}
            style={{ minWidth: 0 }}
          >
            {tool.name}
          </Button>
          <Group gap={4} wrap="nowrap">
            <Badge size="xs" variant="default" tt="none">
              {tool.tool_type.replace(/^letta_/, '')}
            </Badge>
            {tool.tool_type === 'custom' ? (
              <Tooltip label={editable ? 'Edit the source' : 'Read the source'}>
                <ActionIcon size="sm" variant="subtle" onClick={onEdit} aria-label={`${editable ? 'Edit' : 'Read'} ${tool.name}`}>
                  {editable ? <IconPencil size={14} /> : <IconCode size={14} />}
                </ActionIcon>
              </Tooltip>
            ) : null}
            {runnable ? (
              <Tooltip label={running ? 'Close' : 'Try it with arguments'}>
                <ActionIcon
                  size="sm"
                  variant={running ? 'light' : 'subtle'}
                  onClick={() => setRunning((open) => !open)}
                  aria-label={`Try ${tool.name}`}
                  aria-expanded={running}
                >
                  <IconPlayerPlay size={14} />
                </ActionIcon>
              </Tooltip>
            ) : null}
            {changeable ? (
              <Tooltip label="Detach from this agent">
                <ActionIcon size="sm" variant="subtle" color="red" loading={detach.isPending} onClick={() => detach.mutate()} aria-label={`Detach ${tool.name}`}>
                  <IconUnlink size={14} />
                </ActionIcon>
              </Tooltip>
            ) : null}
          </Group>
        </Group>
        {open ? (
          <ToolDetails tool={tool} />
        ) : tool.description ? (
          <Text size="xs" c="dimmed" lineClamp={2}>
            {tool.description}
          </Text>
        ) : null}
        <Switch
          size="xs"
          label="Requires approval"
          checked={required}
          disabled={!changeable}
          onChange={(event) => {
            const wanted = event.currentTarget.checked;
            setRequested(wanted);
            approval.mutate(wanted, { onSettled: () => setRequested(null) });
          }}
          aria-label={`${tool.name} requires approval`}
        />
        {approval.error ? <ErrorNotice error={approval.error} title="Not changed" /> : null}
        {detach.error ? <ErrorNotice error={detach.error} title="Not detached" /> : null}
        {runnable ? (
          // Mounted only while open: kept mounted (Mantine's default, a hidden React <Activity>), the form's field errors never showed.
          <Collapse expanded={running} keepMounted={false}>
            <ToolRunForm agentId={agent.id} tool={tool} />
          </Collapse>
        ) : null}
      </Stack>
    </Card>
  );
}

/**
 * The agent's tools: attach, detach, whether each needs a human's approval before it runs, and trying one
 * out; writing a new custom tool (attached once created) or editing one in the tool editor.
 */
export function ToolsPanel({ agent }: { agent: Agent }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const tools = useAgentTools(agent.id);
  const [picking, setPicking] = useState(false);
  // `null`: a new tool; undefined: the editor is closed.
  const [editing, setEditing] = useState<string | null | undefined>(undefined);
  const all = useOrganizationTools(picking);
  const attach = useMutation({
    mutationFn: (toolId: string) => v1.attachTool(agent.id, toolId),
    onSuccess: async () => {
      setPicking(false);
      await queryClient.invalidateQueries({ queryKey: agentKeys.tools(v1, agent.id) });
      await queryClient.invalidateQueries({ queryKey: agentKeys.agent(v1, agent.id), exact: true });
    },
  });
  if (tools.isPending) return <Skeleton h={120} />;
  if (tools.error) return <ErrorNotice error={tools.error} onRetry={() => void tools.refetch()} />;
  const attached = new Set(tools.data.map((tool) => tool.id));
  const options = (all.data ?? []).filter((tool) => !attached.has(tool.id)).map((tool) => ({ value: tool.id, label: tool.name }));
  return (
    <Stack gap="sm">
      {picking ? (
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <Select
            style={{ flex: 1 }}
            size="xs"
            label="Attach a tool"
            placeholder={all.isPending ? 'Loading tools…' : options.length ? 'Choose a tool' : 'Every tool is attached'}
            data={options}
            searchable
            onChange={(toolId) => toolId && attach.mutate(toolId)}
            disabled={attach.isPending}
          />
          <Button size="xs" variant="default" onClick={() => setPicking(false)}>
            Cancel
          </Button>
        </Group>
      ) : (
        <Group gap="xs">
          {can('changeAgent') ? (
            <Button size="xs" variant="light" leftSection={<IconPlugConnected size={14} />} onClick={() => setPicking(true)}>
              Attach a tool
            </Button>
          ) : null}
          {can('createTool') && can('changeAgent') ? (
            <Button size="xs" variant="default" leftSection={<IconPlus size={14} />} onClick={() => setEditing(null)}>
              New tool
            </Button>
          ) : null}
        </Group>
      )}
      {attach.error ? <ErrorNotice error={attach.error} title="The tool was not attached" /> : null}
      {tools.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          No tools attached.
        </Text>
      ) : (
        tools.data.map((tool) => <ToolRow key={tool.id} agent={agent} tool={tool} onEdit={() => setEditing(tool.id)} />)
      )}
      {editing !== undefined ? <ToolEditorModal agentId={agent.id} toolId={editing} onClose={() => setEditing(undefined)} /> : null}
    </Stack>
  );
}
