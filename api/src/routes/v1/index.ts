import type { FastifyPluginAsync } from 'fastify';
import cookie from '@fastify/cookie';
import { registerApiKeyAuth } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { healthRoutes } from './health.js';
import { messageRoutes } from './agents/messages.js';
import { messageHistoryRoutes } from './agents/message-history.js';
import { runRoutes } from './runs.js';
import { runTraceRoutes } from './run-trace.js';
import { agentRoutes } from './agents/index.js';
import { modelRoutes } from './models.js';
import { providerRoutes } from './providers.js';
import { stepRoutes } from './steps.js';
import { stepTransactionRoutes } from './step-transactions.js';
import { blockRoutes } from './blocks.js';
import { internalBlockRoutes } from './internal-blocks.js';
import { internalRunRoutes } from './internal-runs.js';
import { identityRoutes } from './identities.js';
import { tagRoutes } from './tags.js';
import { toolRoutes } from './tools.js';
import { sandboxConfigRoutes } from './sandbox-config.js';
import { toolsMcpRoutes } from './tools-mcp.js';
import { mcpServerRoutes } from './mcp-servers.js';
import { archiveRoutes } from './archives.js';
import { passageRoutes } from './passages.js';
import { archivalMemoryRoutes } from './agents/archival-memory.js';
import { messageSearchRoutes } from './agents/message-search.js';
import { folderRoutes } from './folders.js';
import { sourceRoutes } from './sources.js';
import { clientSideAccessTokenRoutes } from './client-side-access-tokens.js';
import { templateRoutes } from './templates.js';
import { abTestRoutes } from './ab-tests.js';
import { internalTemplateRoutes } from './internal-templates.js';
import { adminRoutes } from './admin.js';
import { messageBatchRoutes } from './messages-batches.js';
import { chatCompletionRoutes } from './chat-completions.js';
import { groupRoutes } from './groups.js';
import { conversationRoutes } from './conversations.js';
import { topLevelMessageRoutes } from './messages.js';
import { metadataRoutes } from './metadata.js';
import { organizationRoutes } from './organizations.js';
import { internalSearchRoutes } from './internal-search.js';
import { importRoutes } from './imports.js';

/** The `/v1` agent API: every route below is authenticated by API key and scoped to its organization. */
export type V1Settings = { version: string; pingIntervalMs: number; pollIntervalMs: number; maxUploadBytes: number };

export function v1Routes(services: AppServices, deps: V1Settings): FastifyPluginAsync {
  return async (app) => {
    await app.register(cookie);
    registerApiKeyAuth(app, {
      bearerTokens: [services.apiKeys, services.clientSideAccessTokens, services.oauthAccessTokens],
      sessions: services.sessions,
      standing: services.standing,
    });
    await app.register(healthRoutes(deps));
    await app.register(adminRoutes(services));
    await app.register(importRoutes(services));
    await app.register(messageRoutes(services, deps));
    await app.register(messageHistoryRoutes(services));
    await app.register(runRoutes(services, deps));
    await app.register(runTraceRoutes(services));
    await app.register(agentRoutes(services));
    await app.register(modelRoutes(services));
    await app.register(providerRoutes(services));
    await app.register(stepRoutes(services));
    await app.register(stepTransactionRoutes(services));
    await app.register(blockRoutes(services));
    await app.register(internalBlockRoutes(services));
    await app.register(internalRunRoutes(services));
    await app.register(identityRoutes(services));
    await app.register(tagRoutes(services));
    await app.register(toolRoutes(services));
    await app.register(sandboxConfigRoutes(services));
    await app.register(toolsMcpRoutes(services));
    await app.register(mcpServerRoutes(services));
    await app.register(archiveRoutes(services));
    await app.register(passageRoutes(services));
    await app.register(archivalMemoryRoutes(services));
    await app.register(messageSearchRoutes(services));
    await app.register(folderRoutes(services, deps));
    await app.register(sourceRoutes(services, deps));
    await app.register(clientSideAccessTokenRoutes(services));
    await app.register(templateRoutes(services));
    await app.register(abTestRoutes(services));
    await app.register(internalTemplateRoutes(services));
    await app.register(messageBatchRoutes(services));
    await app.register(chatCompletionRoutes(services, deps));
    await app.register(groupRoutes(services, deps));
    await app.register(conversationRoutes(services, deps));
    await app.register(topLevelMessageRoutes(services));
    await app.register(metadataRoutes(services));
    await app.register(organizationRoutes(services));
    await app.register(internalSearchRoutes());
  };
}
