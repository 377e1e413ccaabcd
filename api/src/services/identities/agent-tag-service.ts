import { VISIBLE_AGENT, type Database } from '@engram/db';
import type { RequestContext } from '../../http/request-context.js';
import type { SortOrder } from '../shared/paging.js';
import { substringPattern } from '../blocks/substring-pattern.js';

/** Tags page by the tag itself: `before`/`after` are tags, not ids. */
export type TagPageRequest = { before?: string | undefined; after?: string | undefined; limit: number; order: SortOrder };

export type AgentTagServiceDeps = { db: Database };

/** The tags in use on the organization's agents (`GET /v1/tags`), each once. */
export function createAgentTagService(deps: AgentTagServiceDeps) {
  const { db } = deps;

  return {
    /** `text` matches anywhere in the tag, case-insensitive. */
    async list(ctx: RequestContext, text: string | undefined, page: TagPageRequest): Promise<string[]> {
      const tagsInUse = db('agents').where('organization_id', ctx.organizationId).whereRaw(VISIBLE_AGENT).distinct(db.raw('unnest(tags) as tag'));
      const query = db.from(tagsInUse.as('agent_tags')).select('tag');
      if (text) query.where('tag', 'ilike', substringPattern(text));
      const laterInOrder = page.order === 'desc' ? '<' : '>';
      const earlierInOrder = page.order === 'desc' ? '>' : '<';
      if (page.after !== undefined) query.where('tag', laterInOrder, page.after);
      if (page.before !== undefined) query.where('tag', earlierInOrder, page.before);
      // With only `before`, the page is the `limit` tags just before the cursor, so read backwards from it.
      const backwards = page.before !== undefined && page.after === undefined;
      const direction = (page.order === 'desc') !== backwards ? 'desc' : 'asc';
      const rows: Array<{ tag: string }> = await query.orderBy('tag', direction).limit(page.limit);
      const tags = rows.map((row) => row.tag);
      return backwards ? tags.reverse() : tags;
    },
  };
}

export type AgentTagService = ReturnType<typeof createAgentTagService>;
