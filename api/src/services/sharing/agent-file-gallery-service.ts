import { Organization, PublishedAgentFile, newId, type AgentFileAccessLevel, type Database } from '@engram/db';
import { UniqueViolationError } from 'objection';
import { ConsoleError, NotFoundError, UnauthorizedError } from '../../errors.js';
import type { Access } from '../../http/permissions.js';
import type { RequestContext } from '../../http/request-context.js';
import type { AgentFileService } from '../agent-files/agent-file-service.js';
import { assertOrganizationInGoodStanding } from './visitors.js';

/** Agent files listed per page (spec 000 §9). */
export const AGENT_FILES_PER_PAGE = 25;

export type AgentFileSort = 'downloads' | 'votes';

export type PublishInput = { agentId: string; name: string; description: string; summary: string; accessLevel: AgentFileAccessLevel };

export type PublishedView = { file: PublishedAgentFile; author: string; isOwner: boolean; myVote: 1 | -1 | null };

/** Levels anyone may read a file at; `unlisted` is read by its link but never listed. */
const READABLE_BY_ANYONE: AgentFileAccessLevel[] = ['public', 'unlisted'];

/**
 * Published agent files (spec 000 §3, §7): an agent exported (without its messages) as it was when published,
 * with a name, description and summary, shown to whom its access level says. The publishing organization sees
 * its own at every level; `none` and `organization` are its alone, `logged-in` any signed-in user's, `public`
 * everyone's (and listed), `unlisted` everyone's by its id.
 */
export function createAgentFileGalleryService(deps: { db: Database; agentFiles: Pick<AgentFileService, 'exportAgent'> }) {
  const { db } = deps;

  function mayRead(file: PublishedAgentFile, viewer: Access | null): boolean {
    if (viewer?.organizationId === file.organizationId) return true;
    if (READABLE_BY_ANYONE.includes(file.accessLevel)) return true;
    return file.accessLevel === 'logged-in' && viewer !== null;
  }

  async function view(file: PublishedAgentFile, viewer: Access | null): Promise<PublishedView> {
    const organization = await Organization.query(db).findById(file.organizationId);
    const vote = viewer ? await db('agent_file_votes').where({ agent_file_id: file.id, user_id: viewer.userId }).first('vote') : undefined;
    return { file, author: organization?.name ?? '', isOwner: viewer?.organizationId === file.organizationId, myVote: (vote?.vote as 1 | -1 | undefined) ?? null };
  }

  async function readable(id: string, viewer: Access | null): Promise<PublishedAgentFile> {
    const file = await PublishedAgentFile.query(db).findById(id);
    if (!file || !mayRead(file, viewer)) throw new NotFoundError('Agent file');
    if (viewer?.organizationId !== file.organizationId) await assertOrganizationInGoodStanding(db, file.organizationId, 'Agent file');
    return file;
  }

  return {
    async publish(ctx: RequestContext, input: PublishInput): Promise<PublishedView> {
      const content = await deps.agentFiles.exportAgent(ctx, input.agentId, { scrubMessages: true, legacyFormat: false });
      try {
        const file = await PublishedAgentFile.query(db)
        .insert({
          id: newId('publishedAgentFile'),
          organizationId: ctx.organizationId,
          agentId: input.agentId,
          publishedBy: ctx.userId,
          name: input.name,
          description: input.description,
          summary: input.summary,
          accessLevel: input.accessLevel,
          content: content as unknown as Record<string, unknown>,
        })
        .returning('*');
        return view(file, null).then((shown) => ({ ...shown, isOwner: true }));
      } catch (error) {
        if (error instanceof UniqueViolationError) throw new ConsoleError('conflict', 'conflict', 'An agent file with this name is already published by your organization');
        throw error;
      }
    },

    /** Listed files, 25 a page: public ones, logged-in ones for signed-in users, and every one of the viewer's organization. */
    async list(viewer: Access | null, query: { search?: string | undefined; sortBy: AgentFileSort; offset: number }) {
      const rows = PublishedAgentFile.query(db).where((visible) => {
        visible.where('accessLevel', 'public');
        if (viewer) visible.orWhere('accessLevel', 'logged-in');
        if (viewer?.organizationId) visible.orWhere('organizationId', viewer.organizationId);
      });
      // A banned organization's files leave the gallery with it, as its shared chats do.
      rows.whereNotIn('organizationId', Organization.query(db).whereNotNull('bannedAt').select('id'));
      if (query.search) {
        const pattern = `%${query.search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
        rows.where((matching) => {
          void matching.whereILike('name', pattern).orWhereILike('summary', pattern);
        });
      }
      if (query.sortBy === 'votes') rows.orderByRaw('upvotes - downvotes desc');
      else rows.orderBy('downloadCount', 'desc');
      const page = await rows.orderBy('publishedAt', 'desc').orderBy('id').offset(query.offset).limit(AGENT_FILES_PER_PAGE + 1);
      const views = await Promise.all(page.slice(0, AGENT_FILES_PER_PAGE).map((file) => view(file, viewer)));
      return { files: views, hasNextPage: page.length > AGENT_FILES_PER_PAGE };
    },

    async get(viewer: Access | null, id: string): Promise<PublishedView> {
      return view(await readable(id, viewer), viewer);
    },

    /** The file as published, counting the download. */
    async download(viewer: Access | null, id: string): Promise<PublishedAgentFile> {
      const file = await readable(id, viewer);
      await PublishedAgentFile.query(db).findById(file.id).increment('downloadCount', 1);
      return file;
    },

    async setAccessLevel(ctx: RequestContext, id: string, accessLevel: AgentFileAccessLevel): Promise<PublishedView> {
      const file = await PublishedAgentFile.query(db).forOrg(ctx.organizationId).findById(id);
      if (!file) throw new NotFoundError('Agent file');
      return view(await file.$query(db).patchAndFetch({ accessLevel }), null).then((shown) => ({ ...shown, isOwner: true }));
    },

    /** One vote per user and file: voting again the same way changes nothing, the other way turns the vote. */
    async vote(viewer: Access | null, id: string, vote: 'up' | 'down'): Promise<PublishedView> {
      if (!viewer) throw new UnauthorizedError();
      const file = await readable(id, viewer);
      await db.transaction(async (trx) => {
        await trx('published_agent_files').where({ id: file.id }).forUpdate().first('id');
        await trx('agent_file_votes')
          .insert({ agent_file_id: file.id, user_id: viewer.userId, vote: vote === 'up' ? 1 : -1 })
          .onConflict(['agent_file_id', 'user_id'])
          .merge(['vote', 'updated_at']);
        await trx('published_agent_files')
          .where({ id: file.id })
          .update({
            upvotes: trx('agent_file_votes').where({ agent_file_id: file.id, vote: 1 }).count(),
            downvotes: trx('agent_file_votes').where({ agent_file_id: file.id, vote: -1 }).count(),
          });
      });
      return view(await PublishedAgentFile.query(db).findById(file.id).throwIfNotFound(), viewer);
    },
  };
}

export type AgentFileGalleryService = ReturnType<typeof createAgentFileGalleryService>;
