import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorNotice, Modal, Skeleton, useV1 } from '@engram/console-kit';
import { agentKeys } from '../queries.js';
import { ToolEditor } from './tool-editor.js';
import { toolKeys } from './tool-keys.js';
import { getTool, type FullTool } from './tools-api.js';

/** Below the modal's own sticky header (Mantine's is at least 3.75rem tall). */
const BELOW_MODAL_HEADER = 'calc(3.75rem * var(--mantine-scale))';

/**
 * The tool editor over the agent workspace: a new tool is attached to the agent once created; an edited one
 * changes for every agent that has it. Escape does not close it (it hands the keyboard back from the source
 * field), so no typing is lost by accident.
 */
export function ToolEditorModal({ agentId, toolId, onClose }: { agentId: string; toolId: string | null; onClose: () => void }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const tool = useQuery({ queryKey: toolKeys.tool(v1, toolId ?? ''), queryFn: () => getTool(toolId ?? ''), enabled: toolId !== null });

  const afterSave = async (saved: FullTool) => {
    if (toolId === null) await v1.attachTool(agentId, saved.id);
    // The agent's tool list, its prompt (which names its tools) and its context window all change.
    await queryClient.invalidateQueries({ queryKey: agentKeys.agent(v1, agentId) });
    onClose();
  };

  return (
    <Modal opened onClose={onClose} title={toolId === null ? 'New tool' : 'Edit tool'} size={1200} closeOnEscape={false} centered={false}>
      {toolId === null ? (
        <ToolEditor tool={null} saveLabel="Create and attach" onSaved={afterSave} stickyTop={BELOW_MODAL_HEADER} />
      ) : tool.isPending ? (
        <Skeleton h={320} />
      ) : tool.error ? (
        <ErrorNotice error={tool.error} title="This tool could not be opened" onRetry={() => void tool.refetch()} />
      ) : (
        <ToolEditor tool={tool.data} saveLabel="Save changes" onSaved={afterSave} stickyTop={BELOW_MODAL_HEADER} />
      )}
    </Modal>
  );
}
