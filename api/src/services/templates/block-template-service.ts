import type { TemplateBlock, TemplateSnapshot } from '@engram/core/templates/snapshot';
import { AgentTemplate, BlockTemplate, newId, type Database } from '@engram/db';
import { ConsoleError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import type { TemplateService } from './template-service.js';

export type BlockTemplateFields = {
  label: string;
  value: string;
  limit: number;
  description: string | null;
  readOnly: boolean;
  preserveOnMigration: boolean;
};

export type CreateBlockTemplateInput = BlockTemplateFields & { projectId?: string | undefined };

export type BlockTemplateServiceDeps = {
  db: Database;
  templates: Pick<TemplateService, 'editWorkingState'>;
  organizations: Pick<OrganizationService, 'resolveProject'>;
};

const conflict = (message: string) => new ConsoleError('conflict', 'conflict', message);

function blockOf(blockTemplate: BlockTemplate): TemplateBlock {
  return {
    label: blockTemplate.label,
    value: blockTemplate.value,
    limit: blockTemplate.limit,
    description: blockTemplate.description,
    readOnly: blockTemplate.readOnly,
    preserveOnMigration: blockTemplate.preserveOnMigration,
    blockTemplateId: blockTemplate.id,
  };
}

/** Refuses a label the template's blocks already use, other than the block of `except` (the block template being renamed). */
function assertLabelFree(snapshot: TemplateSnapshot, label: string, except: string | null): void {
  if (snapshot.blocks.some((block) => block.label === label && (except === null || block.blockTemplateId !== except))) {
    throw conflict(`The template already has a block labelled '${label}'`);
  }
}

/**
 * Block templates: core memory blocks defined once and attached to agent templates. Attaching one puts its block
 * into the template's working state (linked by `blockTemplateId`), so the next saved version, the agents made
 * from it and the migrations to it carry the block; a block marked `preserveOnMigration` keeps each agent's own
 * value when its agents are migrated. Changing a block template changes the working state of every template it
 * is attached to; saved versions keep what they were saved with.
 */
export function createBlockTemplateService(deps: BlockTemplateServiceDeps) {
  const { db } = deps;

  async function find(ctx: RequestContext, id: string): Promise<BlockTemplate> {
    const blockTemplate = await BlockTemplate.query(db).forOrg(ctx.organizationId).findById(id);
    if (!blockTemplate) throw new NotFoundError('Block template');
    return blockTemplate;
  }

  async function findTemplate(ctx: RequestContext, templateId: string): Promise<AgentTemplate> {
    const template = await AgentTemplate.query(db).forOrg(ctx.organizationId).findById(templateId);
    if (!template) throw new NotFoundError('Template');
    return template;
  }

  /** The templates whose working state has the block template attached. */
  async function attachedTo(ctx: RequestContext, id: string): Promise<AgentTemplate[]> {
    return AgentTemplate.query(db)
      .forOrg(ctx.organizationId)
      .whereRaw(`working_snapshot->'blocks' @> ?::jsonb`, [JSON.stringify([{ blockTemplateId: id }])])
      .orderBy('id');
  }

  async function attach(ctx: RequestContext, templateId: string, blockTemplate: BlockTemplate): Promise<void> {
    await findTemplate(ctx, templateId);
    await deps.templates.editWorkingState(ctx, templateId, (working) => {
      if (working.blocks.some((block) => block.blockTemplateId === blockTemplate.id)) {
        throw conflict(`Block template '${blockTemplate.label}' is already attached to this template`);
      }
      assertLabelFree(working, blockTemplate.label, null);
      return { ...working, blocks: [...working.blocks, blockOf(blockTemplate)] };
    });
  }

  async function create(ctx: RequestContext, input: CreateBlockTemplateInput): Promise<BlockTemplate> {
    const projectId = await deps.organizations.resolveProject(ctx.organizationId, input.projectId ? { id: input.projectId } : ctx.project);
    return BlockTemplate.query(db)
      .insert({
        id: newId('blockTemplate'),
        organizationId: ctx.organizationId,
        projectId,
        label: input.label,
        value: input.value,
        limit: input.limit,
        description: input.description,
        readOnly: input.readOnly,
        preserveOnMigration: input.preserveOnMigration,
      })
      .returning('*');
  }

  return {
    get: find,
    create,

    async list(
      ctx: RequestContext,
      query: { search?: string | undefined; projectId?: string | undefined; offset: number; limit: number },
    ): Promise<{ blockTemplates: BlockTemplate[]; hasNextPage: boolean }> {
      const rows = BlockTemplate.query(db).forOrg(ctx.organizationId);
      if (query.projectId) rows.where({ projectId: query.projectId });
      if (query.search) rows.where('label', 'ilike', `%${query.search.replace(/[\\%_]/g, '\\$&')}%`);
      const page = await rows.orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id' }]).offset(query.offset).limit(query.limit + 1);
      return { blockTemplates: page.slice(0, query.limit), hasNextPage: page.length > query.limit };
    },

    /** Changes a block template and, with it, the block in every template it is attached to. */
    async update(ctx: RequestContext, id: string, patch: Partial<BlockTemplateFields>): Promise<BlockTemplate> {
      const current = await find(ctx, id);
      const templates = await attachedTo(ctx, id);
      if (patch.label !== undefined && patch.label !== current.label) {
        for (const template of templates) assertLabelFree(template.workingSnapshot, patch.label, id);
      }
      const updated = await current.$query(db).patchAndFetch(patch);
      for (const template of templates) {
        await deps.templates.editWorkingState(ctx, template.id, (working) => ({
          ...working,
          blocks: working.blocks.map((block) => (block.blockTemplateId === id ? blockOf(updated) : block)),
        }));
      }
      return updated;
    },

    /** Refused while the block template is attached to a template: detach it there first. */
    async delete(ctx: RequestContext, id: string): Promise<void> {
      const blockTemplate = await find(ctx, id);
      const templates = await attachedTo(ctx, id);
      if (templates.length > 0) {
        throw conflict(
          `Block template '${blockTemplate.label}' is attached to ${templates.length} template${templates.length === 1 ? '' : 's'} (${templates
            .map((template) => template.name)
            .join(', ')}); detach it first`,
        );
      }
      await blockTemplate.$query(db).delete();
    },

    async attach(ctx: RequestContext, templateId: string, blockTemplateId: string): Promise<void> {
      await attach(ctx, templateId, await find(ctx, blockTemplateId));
    },

    /** A new block template, attached to the template at once (refused as a whole when the label is taken there). */
    async createAndAttach(ctx: RequestContext, templateId: string, input: CreateBlockTemplateInput): Promise<BlockTemplate> {
      const template = await findTemplate(ctx, templateId);
      assertLabelFree(template.workingSnapshot, input.label, null);
      const blockTemplate = await create(ctx, { ...input, projectId: input.projectId ?? template.projectId });
      await attach(ctx, templateId, blockTemplate);
      return blockTemplate;
    },

    /** Takes the block template's block out of the template's working state. */
    async detach(ctx: RequestContext, templateId: string, blockTemplateId: string): Promise<void> {
      const template = await findTemplate(ctx, templateId);
      await find(ctx, blockTemplateId);
      if (!template.workingSnapshot.blocks.some((block) => block.blockTemplateId === blockTemplateId)) {
        throw new NotFoundError('Block template attachment');
      }
      await deps.templates.editWorkingState(ctx, templateId, (working) => ({
        ...working,
        blocks: working.blocks.filter((block) => block.blockTemplateId !== blockTemplateId),
      }));
    },

    /** The block templates attached to a template's working state, in the order of its blocks. */
    async listForTemplate(ctx: RequestContext, templateId: string): Promise<BlockTemplate[]> {
      const template = await findTemplate(ctx, templateId);
      const ids = template.workingSnapshot.blocks.flatMap((block) => (block.blockTemplateId ? [block.blockTemplateId] : []));
      if (ids.length === 0) return [];
      const found = await BlockTemplate.query(db).forOrg(ctx.organizationId).whereIn('id', ids);
      return ids.flatMap((id) => found.filter((blockTemplate) => blockTemplate.id === id));
    },
  };
}

export type BlockTemplateService = ReturnType<typeof createBlockTemplateService>;
