import type { Knex } from 'knex';
import {
  coreMemoryAppend,
  coreMemoryReplace,
  memoryApplyPatch,
  memoryInsert,
  memoryReplace,
  memoryRethink,
  type AgentSnapshot,
  type MemoryBlock,
} from '@engram/core';
import { AgentBlock, Block, lockMemoryBlock, recompileSystemMessage } from '@engram/db';
import { grepAgentFiles, INLINE_FILE_TOOL_NAMES, openFiles } from './file-tools.js';
import { executeMemoryCommand } from './memory-tool.js';

export type ToolOutcome = { status: 'success' | 'error'; funcResponse: string; memoryChanged: boolean };

type ToolArgs = Record<string, unknown>;

function text(args: ToolArgs, key: string): string {
  const value = args[key];
  if (typeof value !== 'string') throw new ToolArgumentError(`missing or non-string argument '${key}'`);
  return value;
}

class ToolArgumentError extends Error {}

type MemoryEdit = (block: MemoryBlock, args: ToolArgs) => { ok: true; value: string; message: string } | { ok: false; error: string };

const MEMORY_EDITS: Record<string, MemoryEdit> = {
  memory_insert: (block, args) =>
    memoryInsert(block, text(args, 'new_string'), typeof args.insert_line === 'number' ? args.insert_line : -1),
  memory_replace: (block, args) => memoryReplace(block, text(args, 'old_string'), text(args, 'new_string')),
  memory_rethink: (block, args) => memoryRethink(block, text(args, 'new_memory')),
  memory_apply_patch: (block, args) => memoryApplyPatch(block, text(args, 'patch')),
  core_memory_append: (block, args) => coreMemoryAppend(block, text(args, 'content')),
  core_memory_replace: (block, args) => coreMemoryReplace(block, text(args, 'old_content'), text(args, 'new_content')),
};

export function isBaseTool(name: string): boolean {
  return (
    name === 'send_message' ||
    name === 'memory_finish_edits' ||
    name === 'conversation_search' ||
    name === 'memory' ||
    name in MEMORY_EDITS ||
    INLINE_FILE_TOOL_NAMES.includes(name)
  );
}

/**
 * Runs a built-in tool inside the step's transaction, so its effects commit together with the
 * step's messages (a retried step never applies an edit twice).
 */
export async function executeBaseTool(
  trx: Knex.Transaction,
  snapshot: AgentSnapshot,
  name: string,
  args: ToolArgs,
): Promise<ToolOutcome> {
  try {
    if (name === 'send_message') {
      text(args, 'message');
      return { status: 'success', funcResponse: 'Sent message successfully.', memoryChanged: false };
    }
    if (name === 'memory_finish_edits') return { status: 'success', funcResponse: 'None', memoryChanged: false };
    if (name === 'conversation_search') return await conversationSearch(trx, snapshot, args);
    // Opening files changes what the prompt shows, so it counts as a memory change: the step recompiles the prompt.
    if (name === 'open_files') return await openFiles(trx, snapshot, args, new Date());
    if (name === 'grep_files') return await grepAgentFiles(trx, snapshot, args, new Date());
    // Letta's omni memory tool: its text edits are the single-block edits below, with their locking and limits.
    if (name === 'memory') return await executeMemoryCommand(trx, snapshot, args, (edit, editArgs) => executeBaseTool(trx, snapshot, edit, editArgs));
    const edit = MEMORY_EDITS[name];
    if (!edit) return { status: 'error', funcResponse: `Error: unknown tool ${name}`, memoryChanged: false };
    const label = text(args, 'label');
    const row = await lockMemoryBlock(trx, { organizationId: snapshot.organizationId, agentId: snapshot.id, conversationId: snapshot.conversationId ?? null }, label);
    if (!row) {
      const labels = snapshot.blocks.map((block) => block.label).join(', ');
      return { status: 'error', funcResponse: `Error: no memory block labelled '${label}'. Blocks: ${labels}`, memoryChanged: false };
    }
    const result = edit(
      { id: row.id, label: row.label, value: row.value, limit: row.limit, description: row.description, readOnly: row.readOnly },
      args,
    );
    if (!result.ok) return { status: 'error', funcResponse: result.error, memoryChanged: false };
    await Block.query(trx).forOrg(snapshot.organizationId).findById(row.id).patch({ value: result.value });
    // A shared block is one row: every other agent using it sees the edit in its prompt at once.
    // (The editing agent's own prompt is rebuilt when its step closes.)
    const sharers = await AgentBlock.query(trx)
      .forOrg(snapshot.organizationId)
      .where({ blockId: row.id })
      .whereNot({ agentId: snapshot.id });
    for (const { agentId } of sharers) await recompileSystemMessage(trx, snapshot.organizationId, agentId, new Date());
    return { status: 'success', funcResponse: result.message, memoryChanged: true };
  } catch (error) {
    if (error instanceof ToolArgumentError) {
      return { status: 'error', funcResponse: `Error executing function ${name}: ${error.message}`, memoryChanged: false };
    }
    throw error;
  }
}

async function conversationSearch(trx: Knex.Transaction, snapshot: AgentSnapshot, args: ToolArgs): Promise<ToolOutcome> {
  const limit = typeof args.limit === 'number' && args.limit > 0 ? Math.min(args.limit, 50) : 5;
  const roles = Array.isArray(args.roles) ? args.roles.filter((role): role is string => typeof role === 'string') : ['user', 'assistant'];
  const query = typeof args.query === 'string' ? args.query : '';
  const rows = await trx('messages')
    .where({ organizationId: snapshot.organizationId, agentId: snapshot.id })
    .whereIn('role', roles.filter((role) => role === 'user' || role === 'assistant'))
    // A run's inputs reach the agent with the run's first step: one still queued (or failed before it) is not its to recall.
    .whereNotExists((pending) => {
      pending.from('runs').whereRaw('runs.id = messages.run_id and messages.id = any(runs.pending_input_ids)');
    })
    .modify((builder) => {
      if (query) builder.whereRaw(`content::text ilike ?`, [`%${query.replaceAll('%', '\\%')}%`]);
      if (typeof args.start_date === 'string') builder.where('created_at', '>=', args.start_date);
      if (typeof args.end_date === 'string') builder.where('created_at', '<=', args.end_date);
    })
    .orderBy('sequence', 'desc')
    .limit(limit)
    .select('role', 'content', 'created_at');
  const results = (rows as Array<{ role: string; content: Array<{ type: string; text?: string }>; createdAt: Date }>).map((row) => ({
    timestamp: row.createdAt.toISOString(),
    role: row.role,
    content: row.content.filter((part) => part.type === 'text').map((part) => part.text).join(''),
  }));
  return {
    status: 'success',
    funcResponse: JSON.stringify({ message: `Showing ${results.length} results:`, results }),
    memoryChanged: false,
  };
}
