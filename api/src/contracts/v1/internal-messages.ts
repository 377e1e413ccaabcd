import { z } from 'zod';

/** Text, reasoning, redacted reasoning, an image, or a part a provider sent that is stored as it came. */
const ContentPart = z.looseObject({ type: z.string() });

const ToolCall = z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) });

const ToolReturn = z.object({
  tool_call_id: z.string(),
  status: z.enum(['success', 'error']),
  func_response: z.string(),
  stdout: z.array(z.string()).nullish(),
  stderr: z.array(z.string()).nullish(),
});

const Approval = z.object({
  type: z.enum(['approval', 'tool']),
  tool_call_id: z.string(),
  approve: z.boolean().optional(),
  reason: z.string().nullish(),
  status: z.enum(['success', 'error']).optional(),
  tool_return: z.string().optional(),
});

/**
 * A stored message in the internal `Message` shape (the client's `InternalMessage`), as the context window
 * and message search show it: the provider-neutral row, not the wire union of `/messages`.
 */
export const InternalMessageResponse = z
  .object({
    id: z.string(),
    agent_id: z.string(),
    role: z.enum(['system', 'user', 'assistant', 'tool', 'approval', 'summary']),
    content: z.array(ContentPart),
    name: z.string().nullable(),
    otid: z.string().nullable(),
    sender_id: z.string().nullable(),
    model: z.string().nullable(),
    tool_calls: z.array(ToolCall).nullable(),
    tool_call_id: z.string().nullable(),
    tool_returns: z.array(ToolReturn).nullable(),
    approvals: z.array(Approval).nullable(),
    // Kept on the row, shown by message search; the context window builds its messages without them.
    approve: z.boolean().nullish(),
    approval_request_id: z.string().nullish(),
    denial_reason: z.string().nullish(),
    group_id: z.string().nullish(),
    batch_item_id: z.string().nullish(),
    /** The conversation the message belongs to; null in the agent's own (default) history. */
    conversation_id: z.string().nullish(),
    step_id: z.string().nullable(),
    run_id: z.string().nullable(),
    is_err: z.boolean().nullable(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullish(),
  })
  .meta({ id: 'InternalMessage' });

export type InternalMessageWire = z.infer<typeof InternalMessageResponse>;
