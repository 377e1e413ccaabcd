import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { openSse } from '../../http/sse.js';
import type { AppServices } from '../../services/index.js';
import { streamRunOutput } from '../../services/runs/run-output.js';
import { LettaMessageResponse } from '../../contracts/v1/messages.js';
import { eventStreamResponse } from '../v1/shared/common-responses.js';
import { TemplateParams } from './agent-templates-schema.js';
import {
  LaunchLinkMetadataSchema,
  LaunchLinkSchema,
  SharedChatConfigurationSchema,
  SharedChatSchema,
  ShareAccessLevelSchema,
  launchLinkToWire,
  launchMetadataToWire,
  sharedChatConfigurationToWire,
  sharedChatToWire,
  visitorOf,
} from './sharing-schema.js';

export type SharingRouteOptions = { pingIntervalMs: number; pollIntervalMs: number };

const AgentInProjectParams = z.object({ projectId: z.string(), agentId: z.string() });
const ChatParams = z.object({ chatId: z.string() });
const LaunchParams = z.object({ launchId: z.string() });

/**
 * Shared chats and launch links (spec 000 §7). Their configuration is the organization's; the chat and launch
 * routes themselves are public, and each admits its visitor by the access level read on that very request.
 */
export function sharingRoutes(services: AppServices, options: SharingRouteOptions): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['console: sharing'];

    app.get(
      '/projects/:projectId/agents/:agentId/shared-chat/configuration',
      { schema: { tags, summary: "The agent's shared chat and who may open it (restricted until changed)", params: AgentInProjectParams, response: { 200: SharedChatConfigurationSchema } } },
      async (request) => sharedChatConfigurationToWire(await services.sharedChats.getConfiguration(requireContext(request), request.params.projectId, request.params.agentId)),
    );

    app.put(
      '/projects/:projectId/agents/:agentId/shared-chat/configuration',
      {
        schema: {
          tags,
          summary: 'Who may open the shared chat, from the next request on',
          params: AgentInProjectParams,
          body: z.object({ accessLevel: ShareAccessLevelSchema }),
          response: { 200: SharedChatConfigurationSchema },
        },
      },
      async (request) =>
        sharedChatConfigurationToWire(
          await services.sharedChats.setConfiguration(requireContext(request), request.params.projectId, request.params.agentId, request.body.accessLevel),
        ),
    );

    app.get(
      '/chat/:chatId',
      { schema: { tags, summary: 'A shared chat, for a visitor its access level admits', params: ChatParams, response: { 200: SharedChatSchema } } },
      async (request, reply) => {
        const { visitor } = visitorOf(request, reply, { issue: true });
        return sharedChatToWire(await services.sharedChats.open(request.params.chatId, visitor));
      },
    );

    app.get(
      '/chat/:chatId/messages',
      { schema: { tags, summary: "The visitor's own conversation through the chat, oldest first", params: ChatParams, response: { 200: z.array(LettaMessageResponse) } } },
      async (request, reply) => {
        const { visitor } = visitorOf(request, reply, { issue: false });
        return services.sharedChats.listMessages(request.params.chatId, visitor, request.id);
      },
    );

    app.post(
      '/chat/:chatId/messages/stream',
      {
        schema: {
          tags,
          summary: "Send a message in the visitor's conversation and stream the answer as SSE",
          params: ChatParams,
          body: z.object({ message: z.string().trim().min(1, 'Message is required').max(10_000, 'Message must be at most 10000 characters long') }),
          response: { 200: eventStreamResponse("The run's messages and its stop reason and usage, as they happen") },
        },
      },
      async (request, reply) => {
        const { visitor, setCookie } = visitorOf(request, reply, { issue: true });
        const { ctx, run, runRequest } = await services.sharedChats.sendMessage(request.params.chatId, visitor, request.body.message, request.id);
        const channel = openSse(request, reply, { 'x-run-id': run.id, ...(setCookie ? { 'set-cookie': setCookie } : {}) });
        const items = services.runLog.follow({
          organizationId: ctx.organizationId,
          runId: run.id,
          after: 0,
          signal: channel.signal,
          pollIntervalMs: options.pollIntervalMs,
          batchSize: 500,
          includeDeltas: runRequest.streamTokens,
        });
        await streamRunOutput(channel, items, { runId: run.id, includeTypes: null, includePings: true, pingIntervalMs: options.pingIntervalMs, startingAfter: 0 });
        return reply;
      },
    );

    app.get(
      '/agent-templates/:agentTemplateId/launch-link',
      { schema: { tags, summary: "The template's launch link", params: TemplateParams, response: { 200: LaunchLinkSchema } } },
      async (request) => launchLinkToWire(await services.launchLinks.get(requireContext(request), request.params.agentTemplateId)),
    );

    app.post(
      '/agent-templates/:agentTemplateId/launch-link',
      {
        schema: {
          tags,
          summary: 'Make the template a launch link (its existing one is answered as it is)',
          params: TemplateParams,
          body: z.object({ accessLevel: ShareAccessLevelSchema.optional() }).nullish(),
          response: { 200: LaunchLinkSchema, 201: LaunchLinkSchema },
        },
      },
      async (request, reply) => {
        const { link, created } = await services.launchLinks.create(requireContext(request), request.params.agentTemplateId, request.body?.accessLevel);
        return reply.code(created ? 201 : 200).send(launchLinkToWire(link));
      },
    );

    app.put(
      '/agent-templates/:agentTemplateId/launch-link',
      {
        schema: {
          tags,
          summary: 'Who may launch the link, from the next request on',
          params: TemplateParams,
          body: z.object({ accessLevel: ShareAccessLevelSchema }),
          response: { 200: LaunchLinkSchema },
        },
      },
      async (request) => launchLinkToWire(await services.launchLinks.setAccessLevel(requireContext(request), request.params.agentTemplateId, request.body.accessLevel)),
    );

    app.get(
      '/launch-link-metadata/:launchId',
      { schema: { tags, summary: "A launch link's template name, description and memory variables", params: LaunchParams, response: { 200: LaunchLinkMetadataSchema } } },
      async (request, reply) => launchMetadataToWire(await services.launchLinks.metadata(request.params.launchId, visitorOf(request, reply, { issue: false }).visitor)),
    );

    app.post(
      '/launch-links/:launchId/share-chat',
      {
        schema: {
          tags,
          summary: "Launch: the visitor's own agent from the template (the same one on a second launch) and its shared chat",
          params: LaunchParams,
          body: z.object({ memoryVariables: z.record(z.string(), z.string()).default({}) }),
          response: { 200: z.object({ chatId: z.string(), agentId: z.string().nullable() }) },
        },
      },
      async (request, reply) => {
        const { visitor } = visitorOf(request, reply, { issue: true });
        const chat = await services.launchLinks.launch(request.params.launchId, visitor, request.body.memoryVariables, request.id);
        return { chatId: chat.id, agentId: visitor.access?.organizationId === chat.organizationId ? chat.agentId : null };
      },
    );
  };
}
