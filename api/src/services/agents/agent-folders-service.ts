import {
  FileAgent,
  Source,
  SourceAgent,
  SourceFile,
  attachFolderToAgent,
  closeAgentFile,
  closeAllAgentFiles,
  detachFolderFromAgent,
  openAgentFile,
  type Database,
  type SecretBox,
} from '@engram/db';
import type { Knex } from 'knex';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { findFolder } from '../folders/folder-service.js';
import type { AgentFileView } from '../folders/types.js';
import { EVERY_RELATIONSHIP, findAgent, loadAgentView, type AgentView } from './agent-views.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';

export type AgentFolderServiceDeps = { db: Database; secrets: SecretBox };

export type AgentFilePage = { files: AgentFileView[]; nextCursor: string | null; hasMore: boolean };

export type AgentFileListRequest = PageRequest & { isOpen?: boolean | undefined };

/**
 * Attaches several folders in one transaction, as agent create does with `folder_ids`. Each must be one of the
 * organization's folders (else 404), and the agent's system message must already exist.
 */
export async function attachFolders(trx: Knex, organizationId: string, agentId: string, folderIds: readonly string[], now: Date): Promise<void> {
  for (const folderId of new Set(folderIds)) {
    await findFolder(trx, organizationId, folderId);
    await attachFolderToAgent(trx, organizationId, agentId, folderId, now);
  }
}

/**
 * Makes the agent's attached folders exactly `folderIds`, as agent update does with `folder_ids`: the folders
 * missing from it are detached, then the new ones attached (so their files open into the room that left), all
 * in the caller's transaction. Every id must be one of the organization's folders, else 404 before anything
 * changes.
 */
export async function replaceFolders(
  trx: Knex,
  organizationId: string,
  agentId: string,
  folderIds: readonly string[],
  now: Date,
): Promise<void> {
  const wanted = new Set(folderIds);
  const known = await Source.query(trx).forOrg(organizationId).whereIn('id', [...wanted]).resultSize();
  if (known !== wanted.size) throw new NotFoundError('Folder');
  const attachedRows = await SourceAgent.query(trx).forOrg(organizationId).where({ agentId }).select('sourceId');
  const attached = new Set(attachedRows.map((row) => row.sourceId));
  for (const folderId of attached) {
    if (!wanted.has(folderId)) await detachFolderFromAgent(trx, organizationId, agentId, folderId, now);
  }
  for (const folderId of wanted) {
    if (!attached.has(folderId)) await attachFolderToAgent(trx, organizationId, agentId, folderId, now);
  }
}

/**
 * The agent side of folders: which folders an agent uses, and which of their files it keeps open. Opening
 * files changes what the agent's prompt shows, so every change here recompiles its system message.
 */
export function createAgentFolderService(deps: AgentFolderServiceDeps) {
  const { db, secrets } = deps;

  async function findAgentFile(trx: Knex, ctx: RequestContext, agentId: string, fileId: string): Promise<void> {
    const file = await SourceFile.query(trx).forOrg(ctx.organizationId).findById(fileId).select('id');
    if (!file) throw new NotFoundError('File');
    const attached = await FileAgent.query(trx).forOrg(ctx.organizationId).findOne({ agentId, fileId });
    if (!attached) throw new NotFoundError('File');
  }

  return {
    /** Attaches the folder (its files, the newest open up to the limit, and the file tools); answers with the agent. */
    async attachFolder(ctx: RequestContext, agentId: string, folderId: string): Promise<AgentView> {
      await db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        await attachFolders(trx, ctx.organizationId, agentId, [folderId], new Date());
      });
      return loadAgentView(db, secrets, ctx.organizationId, agentId, EVERY_RELATIONSHIP);
    },

    /** Detaches the folder and its files (and the file tools with the last folder); a folder not attached is no error. */
    async detachFolder(ctx: RequestContext, agentId: string, folderId: string): Promise<AgentView> {
      await db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        await findFolder(trx, ctx.organizationId, folderId);
        await detachFolderFromAgent(trx, ctx.organizationId, agentId, folderId, new Date());
      });
      return loadAgentView(db, secrets, ctx.organizationId, agentId, EVERY_RELATIONSHIP);
    },

    async listFolders(ctx: RequestContext, agentId: string, page: PageRequest): Promise<Source[]> {
      await findAgent(db, ctx.organizationId, agentId);
      const query = Source.query(db)
        .forOrg(ctx.organizationId)
        .join('sources_agents', 'sources_agents.source_id', 'sources.id')
        .where('sources_agents.agent_id', agentId)
        .select('sources.*');
      return keysetPage(query, page, { table: 'sources' });
    },

    async listFiles(ctx: RequestContext, agentId: string, request: AgentFileListRequest): Promise<AgentFilePage> {
      await findAgent(db, ctx.organizationId, agentId);
      const query = FileAgent.query(db)
        .forOrg(ctx.organizationId)
        .join('sources', 'sources.id', 'files_agents.source_id')
        .where('files_agents.agent_id', agentId)
        .modify((builder) => {
          if (request.isOpen !== undefined) builder.where('files_agents.is_open', request.isOpen);
        })
        .select('files_agents.*', 'sources.name as folder_name');
      // One row more than asked for says whether another page follows.
      const rows = (await keysetPage(query, { ...request, limit: request.limit + 1 }, { table: 'files_agents' })) as AgentFileView[];
      const backwards = request.before !== undefined && request.after === undefined;
      const hasMore = rows.length > request.limit;
      const files = hasMore ? (backwards ? rows.slice(1) : rows.slice(0, request.limit)) : rows;
      return { files, nextCursor: hasMore ? (files.at(-1)?.id ?? null) : null, hasMore };
    },

    /** Opens the file at its top; returns the names of the files closed to make room. */
    async openFile(ctx: RequestContext, agentId: string, fileId: string): Promise<string[]> {
      return db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        await findAgentFile(trx, ctx, agentId, fileId);
        const closed = await openAgentFile(trx, ctx.organizationId, agentId, fileId, new Date());
        if (!closed) throw new NotFoundError('File');
        return closed;
      });
    },

    async closeFile(ctx: RequestContext, agentId: string, fileId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        await findAgentFile(trx, ctx, agentId, fileId);
        await closeAgentFile(trx, ctx.organizationId, agentId, fileId, new Date());
      });
    },

    /** Closes every open file of the agent; returns their names. */
    async closeAllFiles(ctx: RequestContext, agentId: string): Promise<string[]> {
      return db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        return closeAllAgentFiles(trx, ctx.organizationId, agentId, new Date());
      });
    },
  };
}

export type AgentFolderService = ReturnType<typeof createAgentFolderService>;
