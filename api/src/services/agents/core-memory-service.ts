import { AgentBlock, Block, recompileSystemMessage, type Database, type SecretBox } from '@engram/db';
import type { Knex } from 'knex';
import { UniqueViolationError } from 'objection';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { blockLimitError } from '../blocks/block-limit.js';
import type { BlockPatch } from '../blocks/types.js';
import { EVERY_RELATIONSHIP, blocksByAgent, findAgent, loadAgentView, type AgentView } from './agent-views.js';
import { pageInMemory, type PageRequest } from '../shared/paging.js';

export type CoreMemoryServiceDeps = { db: Database; secrets: SecretBox };

export function createCoreMemoryService(deps: CoreMemoryServiceDeps) {
  const { db } = deps;

  async function agentBlocks(trx: Knex, ctx: RequestContext, agentId: string): Promise<Block[]> {
    await findAgent(trx, ctx.organizationId, agentId);
    return (await blocksByAgent(trx, ctx.organizationId, [agentId])).get(agentId) ?? [];
  }

  async function blockLabelled(trx: Knex, ctx: RequestContext, agentId: string, label: string): Promise<Block> {
    const block = (await agentBlocks(trx, ctx, agentId)).find((candidate) => candidate.label === label);
    if (!block) throw new NotFoundError(`Block with label '${label}'`);
    return block;
  }

  /** A shared block is in several agents' system prompts, and each of them must show the new value. */
  async function recompileAgentsUsing(trx: Knex, ctx: RequestContext, blockId: string): Promise<void> {
    const users = await AgentBlock.query(trx).forOrg(ctx.organizationId).where({ blockId });
    const now = new Date();
    for (const { agentId } of users) await recompileSystemMessage(trx, ctx.organizationId, agentId, now);
  }

  async function withAgentView(ctx: RequestContext, agentId: string): Promise<AgentView> {
    return loadAgentView(db, deps.secrets, ctx.organizationId, agentId, EVERY_RELATIONSHIP);
  }

  return {
    async listBlocks(ctx: RequestContext, agentId: string, page?: PageRequest): Promise<Block[]> {
      const blocks = await agentBlocks(db, ctx, agentId);
      return page ? pageInMemory(blocks, page) : blocks;
    },

    async getBlock(ctx: RequestContext, agentId: string, label: string): Promise<Block> {
      return blockLabelled(db, ctx, agentId, label);
    },

    async updateBlock(ctx: RequestContext, agentId: string, label: string, patch: BlockPatch): Promise<Block> {
      return db.transaction(async (trx) => {
        const block = await blockLabelled(trx, ctx, agentId, label);
        const value = patch.value != null ? patch.value.replaceAll('\u0000', '') : block.value;
        const limit = patch.limit ?? block.limit;
        if (value.length > limit) {
          throw blockLimitError(['body', patch.value != null ? 'value' : 'limit'], value.length, limit);
        }
        const previousLabel = block.label;
        const newLabel = patch.label ?? previousLabel;
        const updated = await block.$query(trx).patchAndFetch({
          value,
          limit,
          label: newLabel,
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.read_only !== undefined ? { readOnly: patch.read_only } : {}),
          ...(patch.hidden !== undefined ? { hidden: patch.hidden } : {}),
          ...(patch.metadata !== undefined ? { metadata: patch.metadata ?? {} } : {}),
          ...(patch.tags != null ? { tags: patch.tags } : {}),
          ...(patch.preserve_on_migration != null ? { preserveOnMigration: patch.preserve_on_migration } : {}),
          lastUpdatedById: ctx.userId,
        });
        if (newLabel !== previousLabel) {
          try {
            await AgentBlock.query(trx).forOrg(ctx.organizationId).where({ blockId: block.id }).patch({ label: newLabel });
          } catch (error) {
            if (error instanceof UniqueViolationError) throw new ConflictError(`An agent using this block already has a block labelled '${newLabel}'`);
            throw error;
          }
        }
        await recompileAgentsUsing(trx, ctx, block.id);
        return updated;
      });
    },

    /** Attaching the same block twice changes nothing; a different block under a taken label is a conflict. */
    async attachBlock(ctx: RequestContext, agentId: string, blockId: string): Promise<AgentView> {
      await db.transaction(async (trx) => {
        const blocks = await agentBlocks(trx, ctx, agentId);
        const block = await Block.query(trx).forOrg(ctx.organizationId).findById(blockId);
        if (!block) throw new NotFoundError('Block');
        if (blocks.some((attached) => attached.id === blockId)) return;
        if (blocks.some((attached) => attached.label === block.label)) {
          throw new ConflictError(`The agent already has a block labelled '${block.label}'`);
        }
        const positions = (await AgentBlock.query(trx).forOrg(ctx.organizationId).where({ agentId })).map((row) => row.position);
        await AgentBlock.query(trx).insert({
          agentId,
          blockId,
          organizationId: ctx.organizationId,
          label: block.label,
          position: Math.max(-1, ...positions) + 1,
        });
        await recompileSystemMessage(trx, ctx.organizationId, agentId, new Date());
      });
      return withAgentView(ctx, agentId);
    },

    /** Detaching leaves the block itself in place, for the agents and lists that still use it. */
    async detachBlock(ctx: RequestContext, agentId: string, blockId: string): Promise<AgentView> {
      await db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        const block = await Block.query(trx).forOrg(ctx.organizationId).findById(blockId);
        if (!block) throw new NotFoundError('Block');
        const detached = await AgentBlock.query(trx).forOrg(ctx.organizationId).where({ agentId, blockId }).delete();
        if (detached > 0) await recompileSystemMessage(trx, ctx.organizationId, agentId, new Date());
      });
      return withAgentView(ctx, agentId);
    },
  };
}

export type CoreMemoryService = ReturnType<typeof createCoreMemoryService>;
