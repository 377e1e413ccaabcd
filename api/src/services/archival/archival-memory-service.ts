import { ArchiveAgent, Passage, type Archive, type Database } from '@engram/db';
import { archiveForInsert, archivesOfAgent, PASSAGE_COLUMNS, type PassageStore, type RankedPassage } from '@engram/integrations/archival';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { findAgent } from '../agents/agent-views.js';
import { keysetPage } from '../shared/paging.js';
import { substringPattern } from '../blocks/substring-pattern.js';
import { insertPassages, recompileArchiveAgents, searchBounds, type ArchivalPassageInput } from './archival-support.js';
import { withProviderCalls } from '../providers/model-call-failure.js';

export type ArchivalListInput = {
  search?: string | undefined;
  /** Oldest first (the default), else newest first. */
  ascending: boolean;
  before?: string | undefined;
  after?: string | undefined;
  limit: number;
};

export type ArchivalSearchInput = {
  query: string;
  tags?: string[] | undefined;
  tag_match_mode: 'any' | 'all';
  top_k?: number | undefined;
  start_datetime?: string | undefined;
  end_datetime?: string | undefined;
};

/** What the archival memory tool returns when the model gives no `top_k` (the reference server's page size). */
const DEFAULT_TOP_K = 5;

export type ArchivalMemoryServiceDeps = { db: Database; passages: PassageStore };

/** An agent's archival memory: the passages of every archive attached to it (`/v1/agents/{id}/archival-memory`). */
export function createArchivalMemoryService(deps: ArchivalMemoryServiceDeps) {
  const { db, passages } = deps;

  const agentArchiveIds = (agentId: string) => ArchiveAgent.query(db).select('archive_id').where('agent_id', agentId);

  return {
    async list(ctx: RequestContext, agentId: string, input: ArchivalListInput): Promise<Passage[]> {
      await findAgent(db, ctx.organizationId, agentId);
      const query = Passage.query(db).forOrg(ctx.organizationId).whereIn('passages.archive_id', agentArchiveIds(agentId)).select(PASSAGE_COLUMNS);
      if (input.search) query.where('passages.text', 'ilike', substringPattern(input.search));
      return keysetPage(query, { before: input.before, after: input.after, limit: input.limit, order: input.ascending ? 'asc' : 'desc' }, { table: 'passages' });
    },

    /** One passage per call, into the agent's own archive (created on the first insert). */
    async insert(ctx: RequestContext, agentId: string, input: ArchivalPassageInput): Promise<Passage[]> {
      const agent = await findAgent(db, ctx.organizationId, agentId);
      const archive: Archive = await db.transaction((trx) => archiveForInsert(trx, agent));
      return insertPassages({ db, passages }, ctx, archive, [input], () => ['body']);
    },

    /** Hybrid search over the agent's archives; date bounds without an offset are in the agent's timezone. */
    async search(ctx: RequestContext, agentId: string, input: ArchivalSearchInput): Promise<{ ranked: RankedPassage[]; timezone: string }> {
      const agent = await findAgent(db, ctx.organizationId, agentId);
      const { start, end } = searchBounds({ start: input.start_datetime, end: input.end_datetime }, agent.timezone, {
        start: ['query', 'start_datetime'],
        end: ['query', 'end_datetime'],
      });
      const archives = await archivesOfAgent(db, ctx.organizationId, agentId);
      const ranked = await withProviderCalls(() =>
        passages.search({
          organizationId: ctx.organizationId,
          archives,
          query: input.query,
          mode: 'hybrid',
          limit: input.top_k ?? DEFAULT_TOP_K,
          tags: input.tags,
          tagMatchMode: input.tag_match_mode,
          start,
          end,
        }),
      );
      return { ranked, timezone: agent.timezone };
    },

    async delete(ctx: RequestContext, agentId: string, passageId: string): Promise<void> {
      await findAgent(db, ctx.organizationId, agentId);
      await db.transaction(async (trx) => {
        const passage = await Passage.query(trx)
          .forOrg(ctx.organizationId)
          .findById(passageId)
          .whereIn('passages.archive_id', agentArchiveIds(agentId))
          .select('passages.id', 'passages.archive_id');
        if (!passage?.archiveId) throw new NotFoundError('Passage');
        await Passage.query(trx).forOrg(ctx.organizationId).deleteById(passageId);
        await recompileArchiveAgents(trx, ctx.organizationId, passage.archiveId);
      });
    },
  };
}

export type ArchivalMemoryService = ReturnType<typeof createArchivalMemoryService>;
