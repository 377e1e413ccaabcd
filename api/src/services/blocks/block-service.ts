import { DEFAULT_BLOCK_LIMIT } from '@engram/core';
import { Agent, AgentBlock, Block, IdentityBlock, newId, recompileSystemMessage, type Database, type SecretBox, VISIBLE_AGENT, VISIBLE_BLOCK } from '@engram/db';
import type { Knex } from 'knex';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { blockLimitError } from './block-limit.js';
import { loadAgentViews, type AgentInclude, type AgentView } from '../agents/agent-views.js';
import type { BlockPatch } from './types.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import { findIdentity } from '../identities/identity-views.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import type { TierLimitGuard } from '../tenancy/tier-limits.js';
import { substringPattern } from './substring-pattern.js';

/** The template bookkeeping fields a block carries; Engram stores them for clients but gives them no meaning. */
type TemplateFields = {
  is_template?: boolean | undefined;
  template_name?: string | null | undefined;
  template_id?: string | null | undefined;
  base_template_id?: string | null | undefined;
  deployment_id?: string | null | undefined;
  entity_id?: string | null | undefined;
};

export type CreateBlockInput = TemplateFields & {
  label: string;
  value: string;
  limit?: number | undefined;
  description?: string | null | undefined;
  read_only?: boolean | undefined;
  hidden?: boolean | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  tags?: string[] | null | undefined;
  preserve_on_migration?: boolean | null | undefined;
  project_id?: string | null | undefined;
};

export type UpdateBlockInput = BlockPatch & TemplateFields & { project_id?: string | null | undefined };

export type BlockFilter = {
  label?: string | undefined;
  /** As in the reference server: false (the default) lists only blocks that are not templates. */
  templatesOnly: boolean;
  templateName?: string | undefined;
  identityId?: string | undefined;
  identifierKeys?: string[] | undefined;
  projectId?: string | undefined;
  tags?: string[] | undefined;
  matchAllTags?: boolean | undefined;
  labelSearch?: string | undefined;
  descriptionSearch?: string | undefined;
  valueSearch?: string | undefined;
  connectedAgentsCountGt?: number | undefined;
  connectedAgentsCountLt?: number | undefined;
  /** Any of these counts. */
  connectedAgentsCountEq?: number[] | undefined;
};

export type BlockServiceDeps = {
  db: Database;
  secrets: SecretBox;
  organizations: Pick<OrganizationService, 'resolveProject'>;
  /** The tier's block limit (non-template blocks), enforced while billing is on. */
  limits: Pick<TierLimitGuard, 'assertWithinLimit'>;
};

/** PostgreSQL's SQLSTATE for a unique constraint violation. */
const UNIQUE_VIOLATION = '23505';

const CONNECTED_AGENTS = `(select count(*) from agent_blocks join agents on agents.id = agent_blocks.agent_id where agent_blocks.block_id = blocks.id and ${VISIBLE_AGENT})`;

async function findBlock(db: Knex, organizationId: string, blockId: string): Promise<Block> {
  const block = await Block.query(db).forOrg(organizationId).findById(blockId);
  if (!block) throw new NotFoundError('Block');
  return block;
}

/** A shared block is in several agents' system prompts, and each of them must show its current value. */
async function recompileAgents(trx: Knex, organizationId: string, agentIds: string[]): Promise<void> {
  const now = new Date();
  for (const agentId of agentIds) await recompileSystemMessage(trx, organizationId, agentId, now);
}

async function agentIdsUsing(trx: Knex, organizationId: string, blockId: string): Promise<string[]> {
  return (await AgentBlock.query(trx).forOrg(organizationId).where({ blockId })).map((row) => row.agentId);
}

function templatePatch(input: TemplateFields) {
  return {
    ...(input.is_template !== undefined ? { isTemplate: input.is_template } : {}),
    ...(input.template_name !== undefined ? { templateName: input.template_name } : {}),
    ...(input.template_id !== undefined ? { templateId: input.template_id } : {}),
    ...(input.base_template_id !== undefined ? { baseTemplateId: input.base_template_id } : {}),
    ...(input.deployment_id !== undefined ? { deploymentId: input.deployment_id } : {}),
    ...(input.entity_id !== undefined ? { entityId: input.entity_id } : {}),
  };
}

/** The row of a new block; a value over its limit is refused, named at `loc`. */
function newBlockRow(ctx: RequestContext, input: CreateBlockInput, projectId: string, loc: Array<string | number>) {
  const value = input.value.replaceAll('\u0000', '');
  const limit = input.limit ?? DEFAULT_BLOCK_LIMIT;
  if (value.length > limit) throw blockLimitError([...loc, 'value'], value.length, limit);
  return {
    id: newId('block'),
    organizationId: ctx.organizationId,
    projectId,
    label: input.label,
    value,
    limit,
    description: input.description ?? null,
    readOnly: input.read_only ?? false,
    hidden: input.hidden ?? null,
    metadata: input.metadata ?? {},
    tags: input.tags ?? [],
    preserveOnMigration: input.preserve_on_migration ?? false,
    isTemplate: input.is_template ?? false,
    templateName: input.template_name ?? null,
    templateId: input.template_id ?? null,
    baseTemplateId: input.base_template_id ?? null,
    deploymentId: input.deployment_id ?? null,
    entityId: input.entity_id ?? null,
    createdById: ctx.userId,
    lastUpdatedById: ctx.userId,
  };
}

/** Standalone memory blocks: `/v1/blocks` and `/v1/_internal_blocks`. One row may be in many agents' core memory. */
export function createBlockService(deps: BlockServiceDeps) {
  const { db } = deps;

  function filtered(ctx: RequestContext, filter: BlockFilter) {
    const query = Block.query(db).forOrg(ctx.organizationId).whereRaw(VISIBLE_BLOCK).where('blocks.is_template', filter.templatesOnly);
    if (filter.label !== undefined) query.where('blocks.label', filter.label);
    if (filter.templateName !== undefined) query.where('blocks.template_name', filter.templateName);
    if (filter.projectId !== undefined) query.where('blocks.project_id', filter.projectId);
    if (filter.identityId !== undefined) {
      query.whereExists(
        IdentityBlock.query(db).whereColumn('identity_blocks.block_id', 'blocks.id').where('identity_blocks.identity_id', filter.identityId),
      );
    }
    if (filter.identifierKeys && filter.identifierKeys.length > 0) {
      query.whereExists(
        IdentityBlock.query(db)
          .join('identities', 'identities.id', 'identity_blocks.identity_id')
          .whereColumn('identity_blocks.block_id', 'blocks.id')
          .whereIn('identities.identifier_key', filter.identifierKeys),
      );
    }
    if (filter.tags && filter.tags.length > 0) {
      query.whereRaw(`blocks.tags ${filter.matchAllTags ? '@>' : '&&'} ?::text[]`, [filter.tags]);
    }
    if (filter.labelSearch) query.where('blocks.label', 'ilike', substringPattern(filter.labelSearch));
    if (filter.descriptionSearch) query.where('blocks.description', 'ilike', substringPattern(filter.descriptionSearch));
    if (filter.valueSearch) query.where('blocks.value', 'ilike', substringPattern(filter.valueSearch));
    if (filter.connectedAgentsCountGt !== undefined) query.whereRaw(`${CONNECTED_AGENTS} > ?`, [filter.connectedAgentsCountGt]);
    if (filter.connectedAgentsCountLt !== undefined) query.whereRaw(`${CONNECTED_AGENTS} < ?`, [filter.connectedAgentsCountLt]);
    if (filter.connectedAgentsCountEq && filter.connectedAgentsCountEq.length > 0) {
      query.whereRaw(`${CONNECTED_AGENTS} = any(?::int[])`, [filter.connectedAgentsCountEq]);
    }
    return query;
  }

  /** An explicit project id, else the request's project header, else the organization's default project. */
  async function projectFor(ctx: RequestContext, projectId: string | null | undefined): Promise<string> {
    return deps.organizations.resolveProject(ctx.organizationId, projectId ? { id: projectId } : ctx.project);
  }

  return {
    async list(ctx: RequestContext, filter: BlockFilter, page: PageRequest): Promise<Block[]> {
      return keysetPage(filtered(ctx, filter), page, { table: 'blocks' });
    },

    /** Every block of the organization, templates included, as the reference server counts them. */
    async count(ctx: RequestContext): Promise<number> {
      return Block.query(db).forOrg(ctx.organizationId).whereRaw(VISIBLE_BLOCK).resultSize();
    },

    async create(ctx: RequestContext, input: CreateBlockInput): Promise<Block> {
      const row = newBlockRow(ctx, input, await projectFor(ctx, input.project_id), ['body']);
      return db.transaction(async (trx) => {
        if (!input.is_template) await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'blocks');
        return Block.query(trx).insert(row);
      });
    },

    /** Several blocks at once, all or none (`/_internal_templates/blocks/batch`); a bad one is named by its index. */
    async createMany(ctx: RequestContext, inputs: CreateBlockInput[]): Promise<Block[]> {
      const rows: Array<ReturnType<typeof newBlockRow>> = [];
      for (const [index, input] of inputs.entries()) rows.push(newBlockRow(ctx, input, await projectFor(ctx, input.project_id), ['body', index]));
      if (rows.length === 0) return [];
      return db.transaction(async (trx) => {
        const counted = rows.filter((row) => !row.isTemplate).length;
        if (counted > 0) await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'blocks', counted);
        return Block.query(trx).insert(rows);
      });
    },

    async get(ctx: RequestContext, blockId: string): Promise<Block> {
      return findBlock(db, ctx.organizationId, blockId);
    },

    /** The API may edit read-only blocks (only the agent's own tools may not); every agent using the block sees the edit. */
    async update(ctx: RequestContext, blockId: string, patch: UpdateBlockInput): Promise<Block> {
      const projectId = patch.project_id ? await projectFor(ctx, patch.project_id) : undefined;
      return db.transaction(async (trx) => {
        const block = await findBlock(trx, ctx.organizationId, blockId);
        const value = patch.value != null ? patch.value.replaceAll('\u0000', '') : block.value;
        const limit = patch.limit ?? block.limit;
        if (value.length > limit) throw blockLimitError(['body', patch.value != null ? 'value' : 'limit'], value.length, limit);
        // Read before patchAndFetch, which writes the new values into `block` itself.
        const previousLabel = block.label;
        const label = patch.label ?? previousLabel;
        const updated = await block.$query(trx).patchAndFetch({
          value,
          limit,
          label,
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.read_only !== undefined ? { readOnly: patch.read_only } : {}),
          ...(patch.hidden !== undefined ? { hidden: patch.hidden } : {}),
          ...(patch.metadata !== undefined ? { metadata: patch.metadata ?? {} } : {}),
          ...(patch.tags != null ? { tags: patch.tags } : {}),
          ...(patch.preserve_on_migration != null ? { preserveOnMigration: patch.preserve_on_migration } : {}),
          ...(projectId !== undefined ? { projectId } : {}),
          ...templatePatch(patch),
          lastUpdatedById: ctx.userId,
        });
        if (label !== previousLabel) {
          // Through knex, not the model: the model's update hook would set an updated_at that agent_blocks lacks.
          try {
            await trx('agent_blocks').where({ organization_id: ctx.organizationId, block_id: block.id }).update({ label });
          } catch (error) {
            if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
              throw new ConflictError(`An agent using this block already has a block labelled '${label}'`);
            }
            throw error;
          }
        }
        await recompileAgents(trx, ctx.organizationId, await agentIdsUsing(trx, ctx.organizationId, block.id));
        return updated;
      });
    },

    /** The block leaves the core memory of every agent that had it. */
    async delete(ctx: RequestContext, blockId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findBlock(trx, ctx.organizationId, blockId);
        const agentIds = await agentIdsUsing(trx, ctx.organizationId, blockId);
        await Block.query(trx).forOrg(ctx.organizationId).deleteById(blockId);
        await recompileAgents(trx, ctx.organizationId, agentIds);
      });
    },

    async listAgents(ctx: RequestContext, blockId: string, page: PageRequest, included: ReadonlySet<AgentInclude>): Promise<AgentView[]> {
      await findBlock(db, ctx.organizationId, blockId);
      const query = Agent.query(db)
        .forOrg(ctx.organizationId)
        .whereRaw(VISIBLE_AGENT)
        .whereExists(AgentBlock.query(db).whereColumn('agent_blocks.agent_id', 'agents.id').where('agent_blocks.block_id', blockId));
      const agents = await keysetPage(query, page, { table: 'agents' });
      return loadAgentViews(db, deps.secrets, ctx.organizationId, agents, included);
    },

    /** Attaching twice changes nothing. */
    async attachIdentity(ctx: RequestContext, blockId: string, identityId: string): Promise<Block> {
      const block = await findBlock(db, ctx.organizationId, blockId);
      await findIdentity(db, ctx.organizationId, identityId);
      await IdentityBlock.query(db)
        .insert({ identityId, blockId, organizationId: ctx.organizationId })
        .onConflict(['identityId', 'blockId'])
        .ignore();
      return block;
    },

    async detachIdentity(ctx: RequestContext, blockId: string, identityId: string): Promise<Block> {
      const block = await findBlock(db, ctx.organizationId, blockId);
      await findIdentity(db, ctx.organizationId, identityId);
      await IdentityBlock.query(db).forOrg(ctx.organizationId).where({ identityId, blockId }).delete();
      return block;
    },
  };
}

export type BlockService = ReturnType<typeof createBlockService>;
