import { compileSystemPrompt, fileViewLimitsOf, type AgentType, type PromptDirectories, type ToolRule } from '@engram/core';
import type { Knex } from 'knex';
import { Agent } from '../models/agent.js';
import type { Block } from '../models/block.js';
import { Conversation } from '../models/conversation.js';
import { conversationMemoryBlocks, memoryBlocksOf } from './memory-blocks.js';
import { Message } from '../models/message.js';
import { ArchiveAgent } from '../models/archive.js';
import { Passage } from '../models/passage.js';
import { FileAgent, Source } from '../models/source.js';
import { Tool } from '../models/tool.js';

/**
 * Rebuilds an agent's stored system messages (message 0 of its context and of each of its conversations') from
 * its current memory, tools and rules: a block edited in one conversation is in the next prompt of every other,
 * unless it is one the conversation isolates (its own copy, in its prompt only).
 * Called after memory edits, by the API and by the agent loop alike. `dryRun` compiles without writing (the prompt
 * of `conversationId` when given, else the agent's own).
 *
 * Recompiles of one agent are serialized by a transaction-scoped advisory lock, taken before the memory is read:
 * two conversations editing memory at once each compile after the other's edit committed, so neither writes a
 * prompt that misses the other's edit. (Block values themselves are edited under the block's row lock.)
 */
export async function recompileSystemMessage(
  db: Knex,
  organizationId: string,
  agentId: string,
  now: Date,
  options: { dryRun?: boolean; conversationId?: string } = {},
): Promise<string | undefined> {
  if (!options.dryRun) await db.raw('select pg_advisory_xact_lock(hashtext(?))', [`recompile:${agentId}`]);
  const agent = await Agent.query(db).forOrg(organizationId).findById(agentId);
  const systemMessageId = agent?.messageIds[0];
  if (!agent || !systemMessageId) return undefined;
  // Sequential on purpose: inside a transaction these share one connection.
  const blocks = await memoryBlocksOf(db, organizationId, agentId, null);
  const tools = await Tool.query(db)
    .forOrg(organizationId)
    .join('agent_tools', 'agent_tools.tool_id', 'tools.id')
    .where('agent_tools.agent_id', agentId)
    .select('tools.name');
  const recallMessageCount = await Message.query(db).forOrg(organizationId).where({ agentId }).resultSize();
  const archivalPassages = Passage.query(db)
    .forOrg(organizationId)
    .whereIn('passages.archive_id', ArchiveAgent.query(db).select('archive_id').where('agent_id', agentId));
  const archivalPassageCount = await archivalPassages.clone().resultSize();
  const archivalTags = archivalPassageCount === 0 ? [] : await archivalTagsOf(archivalPassages);
  const directories = await directoriesOf(db, organizationId, agent);
  const compile = (blocks: Block[]) => compileSystemPrompt({
    system: agent.system,
    agentType: agent.agentType as AgentType,
    blocks: blocks.map((block) => ({
      id: block.id,
      label: block.label,
      value: block.value,
      limit: block.limit,
      description: block.description,
      readOnly: block.readOnly,
    })),
    toolRules: agent.toolRules as ToolRule[],
    toolNames: tools.map((tool) => tool.name),
    agentId,
    timezone: agent.timezone,
    recallMessageCount,
    archivalPassageCount,
    archivalTags,
    directories,
    now,
  });
  if (options.dryRun && options.conversationId) return compile(await memoryBlocksOf(db, organizationId, agentId, options.conversationId));
  const compiled = compile(blocks);
  if (options.dryRun) return compiled;
  const conversations = await Conversation.query(db).forOrg(organizationId).where({ agentId }).whereNull('deletedAt').select('id', 'messageIds');
  // A conversation with isolated blocks gets a prompt of its own; every other one shares the agent's.
  const isolated = await conversationMemoryBlocks(db, organizationId, agentId, blocks);
  const sharing = conversations.filter((conversation) => !isolated.has(conversation.id));
  const systemMessageIds = [systemMessageId, ...sharing.flatMap((conversation) => conversation.messageIds.slice(0, 1))];
  await Message.query(db)
    .forOrg(organizationId)
    .whereIn('id', systemMessageIds)
    .patch({ content: [{ type: 'text', text: compiled }] });
  for (const conversation of conversations) {
    const own = isolated.get(conversation.id);
    const ownSystemMessageId = conversation.messageIds[0];
    if (!own || !ownSystemMessageId) continue;
    await Message.query(db).forOrg(organizationId).findById(ownSystemMessageId).patch({ content: [{ type: 'text', text: compile(own) }] });
  }
  return compiled;
}

/** The prompt lists at most this many archival tags, alphabetically. */
const ARCHIVAL_TAGS_SHOWN = 50;

async function archivalTagsOf(passages: ReturnType<typeof Passage.query>): Promise<string[]> {
  const rows = (await passages
    .clone()
    .distinct(Passage.raw('unnest(passages.tags) as tag'))
    .orderBy('tag')
    .limit(ARCHIVAL_TAGS_SHOWN)) as unknown as Array<{ tag: string }>;
  return rows.map((row) => row.tag);
}

/** The agent's attached folders, by name, each with the agent's view of its files. */
async function directoriesOf(db: Knex, organizationId: string, agent: Agent): Promise<PromptDirectories> {
  const folders = await Source.query(db)
    .forOrg(organizationId)
    .join('sources_agents', 'sources_agents.source_id', 'sources.id')
    .where('sources_agents.agent_id', agent.id)
    .orderBy('sources.name')
    .select('sources.id', 'sources.name', 'sources.description', 'sources.instructions');
  const files =
    folders.length === 0
      ? []
      : await FileAgent.query(db)
          .forOrg(organizationId)
          .where({ agentId: agent.id })
          .orderBy('fileName')
          .select('sourceId', 'fileName', 'isOpen', 'visibleContent');
  const { maxFilesOpen } = fileViewLimitsOf({
    maxFilesOpen: agent.maxFilesOpen,
    perFileViewWindowCharLimit: agent.perFileViewWindowCharLimit,
    contextWindow: agent.llmConfig?.context_window,
  });
  return {
    maxFilesOpen,
    folders: folders.map((folder) => ({
      name: folder.name,
      description: folder.description,
      instructions: folder.instructions,
      files: files
        .filter((file) => file.sourceId === folder.id)
        .map((file) => ({ name: file.fileName, isOpen: file.isOpen, visibleContent: file.visibleContent })),
    })),
  };
}
