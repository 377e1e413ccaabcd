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
import { IconArrowLeft, IconTrash } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { AttachToAgent } from './attach-to-agent.js';
import { schemaText } from './tool-draft.js';
import { ToolEditor } from './tool-editor.js';
import { toolKeys } from './tool-keys.js';
import { deleteTool, getTool, type FullTool } from './tools-api.js';

/** Below the console's header. */
const BELOW_APP_HEADER = 'var(--app-shell-header-offset, 60px)';

function BackToTools({ title }: { title: string }) {
  return (
    <Group gap="xs" mb="md" wrap="nowrap">
      <Tooltip label="All tools">
        <ActionIcon component={Link} to=".." relative="path" variant="subtle" aria-label="All tools">
          <IconArrowLeft size={18} />
        </ActionIcon>
      </Tooltip>
      <Title order={2} fz={{ base: 'h3', sm: 'h2' }}>
        {title}
      </Title>
    </Group>
  );
}

function DeleteToolButton({ tool }: { tool: FullTool }) {
  const v1 = useV1();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteTool(tool.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: toolKeys.all(v1) });
      void navigate('..', { relative: 'path' });
    },
  });
  return (
    <>
      <Button variant="default" color="red" leftSection={<IconTrash size={16} />} onClick={() => setConfirming(true)}>
        Delete
      </Button>
      {confirming ? (
        <ConfirmDialog title={`Delete ${tool.name}?`} confirmLabel="Delete tool" mutation={remove} onConfirm={() => remove.mutate()} onClose={() => setConfirming(false)}>
          Every agent that has this tool loses it. Its source is gone for good.
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** A built-in or MCP tool: read only here (its schema is what the model sees). */
function ToolSummary({ tool }: { tool: FullTool }) {
  return (
    <Card withBorder radius="lg" p="md">
      <Stack gap="sm">
        <Group gap="xs">
          <Text fw={700} ff="monospace">
            {tool.name}
          </Text>
          <Badge variant="default" tt="none">
            {tool.tool_type}
          </Badge>
        </Group>
        {tool.description ? <Text size="sm">{tool.description}</Text> : null}
        <Text size="sm" c="dimmed">
          {tool.tool_type === 'external_mcp' ? 'This tool runs on its MCP server; it changes when the server’s tools are refreshed.' : 'A built-in tool: it runs inside Engram and cannot be edited.'}
        </Text>
        <Code block data-testid="tool-schema" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {schemaText(tool.json_schema)}
        </Code>
      </Stack>
    </Card>
  );
}

/** `tools/new` and `tools/:toolId`: the editor for custom tools, a read-only view of the others, and attaching either to an agent. */
export function ToolPage() {
  const { toolId } = useParams();
  const v1 = useV1();
  const navigate = useNavigate();
  const { can } = usePermissions();
  const tool = useQuery({ queryKey: toolKeys.tool(v1, toolId ?? ''), queryFn: () => getTool(toolId ?? ''), enabled: toolId !== undefined });

  if (toolId === undefined) {
    return (
      <>
        <BackToTools title="New tool" />
        <ToolEditor
          tool={null}
          saveLabel="Create tool"
          onSaved={(saved) => void navigate(`../${saved.id}`, { relative: 'path', replace: true })}
          stickyTop={BELOW_APP_HEADER}
        />
      </>
    );
  }
  if (tool.isPending) return <Skeleton h={360} radius="lg" />;
  if (tool.error) return <ErrorNotice error={tool.error} title="This tool could not be opened" onRetry={() => void tool.refetch()} />;
  const custom = tool.data.tool_type === 'custom';
  return (
    <>
      <BackToTools title={custom ? 'Edit tool' : 'Tool'} />
      <Stack gap="lg">
        {custom ? (
          <ToolEditor
            key={tool.data.id}
            tool={tool.data}
            saveLabel="Save changes"
            actions={can('deleteTool') ? <DeleteToolButton tool={tool.data} /> : null}
            stickyTop={BELOW_APP_HEADER}
          />
        ) : (
          <ToolSummary tool={tool.data} />
        )}
        {can('changeAgent') ? (
          <Card withBorder radius="lg" p="md" maw={640}>
            <AttachToAgent toolId={tool.data.id} toolName={tool.data.name} />
          </Card>
        ) : null}
      </Stack>
    </>
  );
}
