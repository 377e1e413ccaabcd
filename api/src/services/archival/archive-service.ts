import { Agent, Archive, ArchiveAgent, Passage, recompileSystemMessage, type Database, type EmbeddingConfig, type SecretBox, VISIBLE_AGENT } from '@engram/db';
import { LOCAL_EMBEDDING_CONFIG, LOCAL_EMBEDDING_HANDLE, type PassageStore, type RankedPassage } from '@engram/integrations/archival';
import type { Knex } from 'knex';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { findAgent, loadAgentViews, type AgentInclude, type AgentView } from '../agents/agent-views.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import type { ModelService } from '../models/model-service.js';
import { insertPassages, recompileArchiveAgents, searchBounds, type ArchivalPassageInput } from './archival-support.js';
import { withProviderCalls } from '../providers/model-call-failure.js';

export type CreateArchiveInput = {
  name: string;
  description?: string | null | undefined;
  /** An embedding model handle; `engram/hashed-ngram-256` names the built-in local embedder. */
  embedding?: string | null | undefined;
  embedding_config?: EmbeddingConfig | null | undefined;
};

export type UpdateArchiveInput = { name?: string | null | undefined; description?: string | null | undefined };

export type ArchiveFilter = { name?: string | undefined; agentId?: string | undefined };

/** `POST /passages/search`. */
export type PassageSearchInput = {
  query?: string | null | undefined;
  agent_id?: string | null | undefined;
  archive_id?: string | null | undefined;
  tags?: string[] | null | undefined;
  tag_match_mode: 'any' | 'all';
  start_date?: string | null | undefined;
  end_date?: string | null | undefined;
  limit: number;
};

export type ArchiveServiceDeps = {
  db: Database;
  secrets: SecretBox;
  passages: PassageStore;
  models: Pick<ModelService, 'resolveEmbeddingConfig'>;
};

export async function findArchive(db: Knex, organizationId: string, archiveId: string): Promise<Archive> {
  const archive = await Archive.query(db).forOrg(organizationId).findById(archiveId);
  if (!archive) throw new NotFoundError('Archive');
  return archive;
}

/** `/v1/archives`, agent attach/detach, and `/v1/passages/search` across the organization's archives. */
export function createArchiveService(deps: ArchiveServiceDeps) {
  const { db, passages } = deps;

  async function embeddingConfigFor(ctx: RequestContext, input: CreateArchiveInput): Promise<EmbeddingConfig> {
    if (input.embedding_config) return input.embedding_config;
    if (!input.embedding || input.embedding === LOCAL_EMBEDDING_HANDLE) return LOCAL_EMBEDDING_CONFIG;
    return deps.models.resolveEmbeddingConfig(ctx, input.embedding);
  }

  return {
    async list(ctx: RequestContext, filter: ArchiveFilter, page: PageRequest): Promise<Archive[]> {
      const query = Archive.query(db).forOrg(ctx.organizationId);
      if (filter.name !== undefined) query.where('archives.name', filter.name);
      if (filter.agentId !== undefined) {
        query.whereExists(ArchiveAgent.query(db).whereColumn('archives_agents.archive_id', 'archives.id').where('archives_agents.agent_id', filter.agentId));
      }
      return keysetPage(query, page, { table: 'archives' });
    },

    async get(ctx: RequestContext, archiveId: string): Promise<Archive> {
      return findArchive(db, ctx.organizationId, archiveId);
    },

    async create(ctx: RequestContext, input: CreateArchiveInput): Promise<Archive> {
      return Archive.query(db)
        .insert({
          id: Archive.newId(),
          organizationId: ctx.organizationId,
          name: input.name,
          description: input.description ?? null,
          embeddingConfig: await embeddingConfigFor(ctx, input),
          vectorDbProvider: 'native',
          metadata: {},
          createdById: ctx.userId,
          lastUpdatedById: ctx.userId,
        })
        .returning('*');
    },

    async update(ctx: RequestContext, archiveId: string, input: UpdateArchiveInput): Promise<Archive> {
      const archive = await findArchive(db, ctx.organizationId, archiveId);
      return archive.$query(db).patchAndFetch({
        ...(input.name ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        lastUpdatedById: ctx.userId,
      });
    },

    /** Deletes the archive with its passages; the agents that used it no longer count them in their prompts. */
    async delete(ctx: RequestContext, archiveId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findArchive(trx, ctx.organizationId, archiveId);
        const users = await ArchiveAgent.query(trx).forOrg(ctx.organizationId).where({ archiveId });
        await Archive.query(trx).forOrg(ctx.organizationId).deleteById(archiveId);
        const now = new Date();
        for (const { agentId } of users) await recompileSystemMessage(trx, ctx.organizationId, agentId, now);
      });
    },

    async listAgents(ctx: RequestContext, archiveId: string, page: PageRequest, included: ReadonlySet<AgentInclude>): Promise<AgentView[]> {
      await findArchive(db, ctx.organizationId, archiveId);
      const query = Agent.query(db)
        .forOrg(ctx.organizationId)
        .whereRaw(VISIBLE_AGENT)
        .whereExists(ArchiveAgent.query(db).whereColumn('archives_agents.agent_id', 'agents.id').where('archives_agents.archive_id', archiveId));
      return loadAgentViews(db, deps.secrets, ctx.organizationId, await keysetPage(query, page, { table: 'agents' }), included);
    },

    /** Attaching twice changes nothing. The agent's searches cover every archive attached to it. */
    async attach(ctx: RequestContext, agentId: string, archiveId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        await findArchive(trx, ctx.organizationId, archiveId);
        await ArchiveAgent.query(trx).insert({ archiveId, agentId, organizationId: ctx.organizationId, isOwner: false }).onConflict(['archiveId', 'agentId']).ignore();
        await recompileSystemMessage(trx, ctx.organizationId, agentId, new Date());
      });
    },

    async detach(ctx: RequestContext, agentId: string, archiveId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        await findArchive(trx, ctx.organizationId, archiveId);
        await ArchiveAgent.query(trx).forOrg(ctx.organizationId).where({ archiveId, agentId }).delete();
        await recompileSystemMessage(trx, ctx.organizationId, agentId, new Date());
      });
    },

    /** `locOf` says where passage `index` is in the request body, for validation errors. */
    async createPassages(
      ctx: RequestContext,
      archiveId: string,
      inputs: ArchivalPassageInput[],
      locOf: (index: number) => Array<string | number>,
    ): Promise<Passage[]> {
      const archive = await findArchive(db, ctx.organizationId, archiveId);
      return insertPassages({ db, passages }, ctx, archive, inputs, locOf);
    },

    async deletePassage(ctx: RequestContext, archiveId: string, passageId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findArchive(trx, ctx.organizationId, archiveId);
        const deleted = await Passage.query(trx).forOrg(ctx.organizationId).where({ id: passageId, archiveId }).delete();
        if (deleted === 0) throw new NotFoundError('Passage');
        await recompileArchiveAgents(trx, ctx.organizationId, archiveId);
      });
    },

    /**
     * `POST /passages/search`: hybrid search over one archive, an agent's archives (the agent wins when both
     * are given), or every archive of the organization. Without a query, the newest passages that pass the filters.
     */
    async search(ctx: RequestContext, input: PassageSearchInput): Promise<RankedPassage[]> {
      let archives: Archive[];
      if (input.agent_id) {
        await findAgent(db, ctx.organizationId, input.agent_id);
        archives = await Archive.query(db)
          .forOrg(ctx.organizationId)
          .whereExists(ArchiveAgent.query(db).whereColumn('archives_agents.archive_id', 'archives.id').where('archives_agents.agent_id', input.agent_id));
      } else if (input.archive_id) {
        archives = [await findArchive(db, ctx.organizationId, input.archive_id)];
      } else {
        archives = await Archive.query(db).forOrg(ctx.organizationId);
      }
      const { start, end } = searchBounds({ start: input.start_date, end: input.end_date }, 'UTC', {
        start: ['body', 'start_date'],
        end: ['body', 'end_date'],
      });
      const filter = { tags: input.tags, tagMatchMode: input.tag_match_mode, start, end };
      if (input.query) {
        const query = input.query;
        return withProviderCalls(() =>
          passages.search({ organizationId: ctx.organizationId, archives, query, mode: 'hybrid', limit: input.limit, ...filter }),
        );
      }
      const newest = await passages.newest({ organizationId: ctx.organizationId, archives, limit: input.limit, ...filter });
      return newest.map((passage) => ({ id: passage.id, passage, ftsRank: null, vectorRank: null, rrfScore: 0, similarity: null }));
    },
  };
}

export type ArchiveService = ReturnType<typeof createArchiveService>;
