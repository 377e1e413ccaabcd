import type { Knex } from 'knex';
import { DEFAULT_BLOCK_LIMIT, type AgentSnapshot } from '@engram/core';
import { Agent, AgentBlock, Block, memoryBlocksOf, newId, recompileSystemMessage } from '@engram/db';

type ToolArgs = Record<string, unknown>;
type Outcome = { status: 'success' | 'error'; funcResponse: string; memoryChanged: boolean };

/** Runs one of the single-block edits (`memory_replace`, `memory_insert`) with its locking and limits. */
export type BlockEdit = (name: 'memory_replace' | 'memory_insert', args: ToolArgs) => Promise<Outcome>;

/** Paths name blocks as files: `/memories/human` is the block labelled `human`. */
const MEMORY_ROOT = '/memories';
const LABEL = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

const error = (funcResponse: string): Outcome => ({ status: 'error', funcResponse, memoryChanged: false });
const changed = (funcResponse: string): Outcome => ({ status: 'success', funcResponse, memoryChanged: true });

class MemoryCommandError extends Error {}

function stringArg(args: ToolArgs, key: string, command: string): string {
  const value = args[key];
  if (typeof value !== 'string') throw new MemoryCommandError(`Error: the ${command} command needs the string argument '${key}'.`);
  return value;
}

/** `/memories/human`, `memories/human`, `human` → `human`; `/memories` → null (the root). */
function labelOf(path: string): string | null {
  const trimmed = path.trim().replace(/\/+$/, '');
  const relative = trimmed === MEMORY_ROOT || trimmed === MEMORY_ROOT.slice(1) ? '' : trimmed.replace(/^\/?memories\//, '').replace(/^\//, '');
  if (relative === '') return null;
  if (!LABEL.test(relative)) {
    throw new MemoryCommandError(
      `Error: "${path}" is not a memory path. Use ${MEMORY_ROOT}/<label>, where the label is letters, digits, "_", "-" or "." (for example ${MEMORY_ROOT}/human).`,
    );
  }
  return relative;
}

function requiredLabel(args: ToolArgs, key: string, command: string): string {
  const label = labelOf(stringArg(args, key, command));
  if (label === null) throw new MemoryCommandError(`Error: the ${command} command needs a block's path (${MEMORY_ROOT}/<label>), not ${MEMORY_ROOT} itself.`);
  return label;
}

function numbered(value: string): string {
  return value === '' ? '(empty)' : value.split('\n').map((line, index) => `${String(index + 1).padStart(6)}→ ${line}`).join('\n');
}

/**
 * Letta's omni `memory` tool over the agent's blocks, inside the step's transaction. Text edits go through the
 * single-block edits (the block row locked, its character limit kept); commands that change which blocks the agent
 * has lock the agent row first, so two concurrent creates or renames are applied one after the other.
 */
export async function executeMemoryCommand(trx: Knex.Transaction, snapshot: AgentSnapshot, args: ToolArgs, edit: BlockEdit): Promise<Outcome> {
  const { organizationId } = snapshot;
  const command = args.command;
  try {
    switch (command) {
      case 'view':
        return await view(trx, snapshot, typeof args.path === 'string' ? labelOf(args.path) : null);
      case 'str_replace':
        return await edit('memory_replace', {
          label: requiredLabel(args, 'path', command),
          old_string: stringArg(args, 'old_string', command),
          new_string: typeof args.new_string === 'string' ? args.new_string : '',
        });
      case 'insert':
        return await edit('memory_insert', {
          label: requiredLabel(args, 'path', command),
          new_string: stringArg(args, 'insert_text', command),
          insert_line: typeof args.insert_line === 'number' ? args.insert_line : -1,
        });
      case 'create':
        return await create(requiredLabel(args, 'path', command), args);
      case 'delete':
        return await detach(requiredLabel(args, 'path', command));
      case 'rename':
        if (typeof args.old_path === 'string' || typeof args.new_path === 'string') {
          return await rename(requiredLabel(args, 'old_path', command), requiredLabel(args, 'new_path', command));
        }
        return await describeBlock(requiredLabel(args, 'path', command), stringArg(args, 'description', command));
      default:
        return error(`Error: unknown memory command ${JSON.stringify(command)}. Use one of: view, create, str_replace, insert, delete, rename.`);
    }
  } catch (caught) {
    if (caught instanceof MemoryCommandError) return error(caught.message);
    throw caught;
  }

  async function lockAgent(): Promise<void> {
    await Agent.query(trx).forOrg(organizationId).findById(snapshot.id).forUpdate();
  }

  async function attached(label: string): Promise<Block> {
    const row = await Block.query(trx)
      .forOrg(organizationId)
      .join('agent_blocks', 'agent_blocks.block_id', 'blocks.id')
      .where({ 'agent_blocks.agent_id': snapshot.id, 'agent_blocks.label': label })
      .select('blocks.*')
      .forUpdate()
      .first();
    if (!row) throw new MemoryCommandError(`Error: there is no memory block at ${MEMORY_ROOT}/${label}. ${await listing(trx, snapshot)}`);
    return row;
  }

  async function recompileSharers(blockId: string): Promise<void> {
    const sharers = await AgentBlock.query(trx).forOrg(organizationId).where({ blockId }).whereNot({ agentId: snapshot.id });
    for (const { agentId } of sharers) await recompileSystemMessage(trx, organizationId, agentId, new Date());
  }

  async function create(label: string, createArgs: ToolArgs): Promise<Outcome> {
    await lockAgent();
    const value = typeof createArgs.file_text === 'string' ? createArgs.file_text : '';
    const description = typeof createArgs.description === 'string' ? createArgs.description : null;
    const taken = await AgentBlock.query(trx).forOrg(organizationId).findOne({ agentId: snapshot.id, label });
    if (taken) throw new MemoryCommandError(`Error: a memory block already exists at ${MEMORY_ROOT}/${label}. Edit it with str_replace or insert, or pick another path.`);
    if (value.length > DEFAULT_BLOCK_LIMIT) {
      throw new MemoryCommandError(`Error: file_text is ${value.length} characters, over a new block's limit of ${DEFAULT_BLOCK_LIMIT}.`);
    }
    const agent = await Agent.query(trx).forOrg(organizationId).findById(snapshot.id).select('projectId');
    const positions = await AgentBlock.query(trx).forOrg(organizationId).where({ agentId: snapshot.id }).max('position as last').first();
    const block = await Block.query(trx).insert({
      id: newId('block'),
      organizationId,
      projectId: agent?.projectId ?? null,
      label,
      value,
      limit: DEFAULT_BLOCK_LIMIT,
      description,
      readOnly: false,
      metadata: {},
      tags: [],
    });
    const last = (positions as unknown as { last: number | null } | undefined)?.last;
    await AgentBlock.query(trx).insert({ agentId: snapshot.id, blockId: block.id, organizationId, label, position: (last ?? -1) + 1 });
    return changed(`Created the memory block ${MEMORY_ROOT}/${label} (${value.length} of ${DEFAULT_BLOCK_LIMIT} characters). It is now in your core memory.`);
  }

  async function detach(label: string): Promise<Outcome> {
    await lockAgent();
    const block = await attached(label);
    if (block.readOnly) return error(`Error: ${MEMORY_ROOT}/${label} is read-only and cannot be deleted.`);
    await AgentBlock.query(trx).forOrg(organizationId).where({ agentId: snapshot.id, blockId: block.id }).delete();
    return changed(`Deleted ${MEMORY_ROOT}/${label} from your memory: it is no longer in your core memory.`);
  }

  async function rename(from: string, to: string): Promise<Outcome> {
    await lockAgent();
    const block = await attached(from);
    if (block.readOnly) return error(`Error: ${MEMORY_ROOT}/${from} is read-only and cannot be renamed.`);
    if (from === to) return error(`Error: old_path and new_path are the same (${MEMORY_ROOT}/${from}).`);
    const taken = await AgentBlock.query(trx).forOrg(organizationId).findOne({ agentId: snapshot.id, label: to });
    if (taken) return error(`Error: a memory block already exists at ${MEMORY_ROOT}/${to}. Delete it first or pick another path.`);
    // A shared block has one label for every agent that has it: renaming it here would rename it under the others.
    const sharers = await AgentBlock.query(trx).forOrg(organizationId).where({ blockId: block.id }).whereNot({ agentId: snapshot.id }).resultSize();
    if (sharers > 0) {
      return error(`Error: ${MEMORY_ROOT}/${from} is shared with ${sharers} other agent${sharers === 1 ? '' : 's'}, so it cannot be renamed. Create a new block and delete this one instead.`);
    }
    await AgentBlock.query(trx).forOrg(organizationId).where({ agentId: snapshot.id, blockId: block.id }).patch({ label: to });
    await Block.query(trx).forOrg(organizationId).findById(block.id).patch({ label: to });
    return changed(`Renamed ${MEMORY_ROOT}/${from} to ${MEMORY_ROOT}/${to}.`);
  }

  async function describeBlock(label: string, description: string): Promise<Outcome> {
    const block = await attached(label);
    if (block.readOnly) return error(`Error: ${MEMORY_ROOT}/${label} is read-only; its description cannot be changed.`);
    await Block.query(trx).forOrg(organizationId).findById(block.id).patch({ description });
    await recompileSharers(block.id);
    return changed(`Updated the description of ${MEMORY_ROOT}/${label}.`);
  }
}

/** The blocks as the run's conversation sees them: its copies of the blocks it isolates, the agent's otherwise. */
const blocksSeenBy = (trx: Knex.Transaction, snapshot: AgentSnapshot) => memoryBlocksOf(trx, snapshot.organizationId, snapshot.id, snapshot.conversationId ?? null);

async function listing(trx: Knex.Transaction, snapshot: AgentSnapshot): Promise<string> {
  const blocks = await blocksSeenBy(trx, snapshot);
  if (blocks.length === 0) return 'You have no memory blocks.';
  const lines = blocks.map(
    (block) =>
      `${MEMORY_ROOT}/${block.label} (${block.value.length}/${block.limit} characters${block.readOnly ? ', read-only' : ''})` +
      (block.description ? `: ${block.description}` : ''),
  );
  return `Your memory blocks:\n${lines.join('\n')}`;
}

async function view(trx: Knex.Transaction, snapshot: AgentSnapshot, label: string | null): Promise<Outcome> {
  if (label === null) return { status: 'success', funcResponse: await listing(trx, snapshot), memoryChanged: false };
  const block = (await blocksSeenBy(trx, snapshot)).find((candidate) => candidate.label === label);
  if (!block) return error(`Error: there is no memory block at ${MEMORY_ROOT}/${label}. ${await listing(trx, snapshot)}`);
  const header = `${MEMORY_ROOT}/${label} (${block.value.length}/${block.limit} characters${block.readOnly ? ', read-only' : ''})${block.description ? `: ${block.description}` : ''}`;
  return {
    status: 'success',
    funcResponse: `${header}\nLine numbers are for reference only; do not include them in edits.\n${numbered(block.value)}`,
    memoryChanged: false,
  };
}
