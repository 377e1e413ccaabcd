import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { agentToWire } from '../../../services/agents/agent-wire.js';
import { agentFileToWire, folderToWire, sourceToWire } from '../../../services/folders/folder-wire.js';
import { AgentParams } from './agents.js';
import { pageOf, pageQuery } from '../../../contracts/shared/paging.js';
import { queryBoolean } from '../../../contracts/shared/query.js';
import { AgentFilesPageResponse, FolderResponse, SourceResponse } from '../../../contracts/v1/folders.js';
import { ConfirmationResponse } from '../shared/common-responses.js';
import { errorResponses } from '../shared/error-responses.js';
import { AgentResponse } from '../../../contracts/v1/agents.js';

const FolderParams = AgentParams.extend({ folder_id: z.string() });
const SourceParams = AgentParams.extend({ source_id: z.string() });
const FileParams = AgentParams.extend({ file_id: z.string() });

const ListFilesQuery = z.object({
  ...pageQuery(100),
  /** Deprecated spelling of `after`. */
  cursor: z.string().optional(),
  is_open: queryBoolean.optional(),
  order_by: z.literal('created_at').optional(),
});


/**
 * The folders an agent uses (`/folders`, and `/sources` as the deprecated spelling) and its view of their
 * files. Attach and detach answer with the whole agent, as the reference server does for callers that want it.
 */
export function agentFolderRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    for (const [segment, Params, key, toWire, Listed] of [
      ['folders', FolderParams, 'folder_id', folderToWire, FolderResponse],
      ['sources', SourceParams, 'source_id', sourceToWire, SourceResponse],
    ] as const) {
      const folderIdOf = (params: Record<string, string>) => params[key]!;

      app.patch(
        `/agents/:agent_id/${segment}/attach/:${key}`,
        {
          schema: {
            tags: ['agents'],
            summary: 'Attach a folder to an agent, with its files and the file tools',
            params: Params,
            response: { 200: AgentResponse, ...errorResponses(404, 422) },
          },
        },
        async (request) => {
          const params = request.params as Record<string, string>;
          return agentToWire(await services.agentFolders.attachFolder(requireContext(request), params.agent_id!, folderIdOf(params)));
        },
      );

      app.patch(
        `/agents/:agent_id/${segment}/detach/:${key}`,
        { schema: { tags: ['agents'], summary: 'Detach a folder from an agent', params: Params, response: { 200: AgentResponse, ...errorResponses(404, 422) } } },
        async (request) => {
          const params = request.params as Record<string, string>;
          return agentToWire(await services.agentFolders.detachFolder(requireContext(request), params.agent_id!, folderIdOf(params)));
        },
      );

      app.get(
        `/agents/:agent_id/${segment}/`,
        {
          schema: {
            tags: ['agents'],
            summary: 'The folders an agent uses',
            params: AgentParams,
            querystring: z.object(pageQuery(100)),
            response: { 200: z.array(Listed), ...errorResponses(404, 422) },
          },
        },
        async (request) => {
          const { query } = request;
          const folders = await services.agentFolders.listFolders(requireContext(request), request.params.agent_id, pageOf(query, 'desc'));
          return folders.map(toWire);
        },
      );
    }

    app.get(
      '/agents/:agent_id/files/',
      {
        schema: {
          tags: ['agents'],
          summary: "The files of an agent's folders, open or closed",
          params: AgentParams,
          querystring: ListFilesQuery,
          response: { 200: AgentFilesPageResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const page = await services.agentFolders.listFiles(requireContext(request), request.params.agent_id, {
          before: query.before,
          after: query.after ?? query.cursor,
          limit: query.limit,
          order: query.order ?? 'desc',
          isOpen: query.is_open,
        });
        return { files: page.files.map(agentFileToWire), next_cursor: page.nextCursor, has_more: page.hasMore };
      },
    );

    app.patch(
      '/agents/:agent_id/files/close-all',
      {
        schema: {
          tags: ['agents'],
          summary: "Close all of an agent's open files",
          params: AgentParams,
          response: { 200: z.array(z.string()), ...errorResponses(404, 422) },
        },
      },
      async (request) => services.agentFolders.closeAllFiles(requireContext(request), request.params.agent_id),
    );

    app.patch(
      '/agents/:agent_id/files/:file_id/open',
      {
        schema: {
          tags: ['agents'],
          summary: 'Open a file for an agent; answers with the files closed to make room',
          params: FileParams,
          response: { 200: z.array(z.string()), ...errorResponses(404, 422) },
        },
      },
      async (request) => services.agentFolders.openFile(requireContext(request), request.params.agent_id, request.params.file_id),
    );

    app.patch(
      '/agents/:agent_id/files/:file_id/close',
      {
        schema: {
          tags: ['agents'],
          summary: 'Close a file for an agent',
          params: FileParams,
          response: { 200: ConfirmationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { agent_id: agentId, file_id: fileId } = request.params;
        await services.agentFolders.closeFile(requireContext(request), agentId, fileId);
        return { message: `File id=${fileId} successfully closed` };
      },
    );
  };
}
