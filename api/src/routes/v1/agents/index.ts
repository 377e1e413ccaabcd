import type { FastifyPluginAsync } from 'fastify';
import type { AppServices } from '../../../services/index.js';
import { agentFileRoutes } from './agent-files.js';
import { agentCrudRoutes } from './agents.js';
import { contextWindowRoutes } from './context.js';
import { coreMemoryRoutes } from './core-memory.js';
import { agentFolderRoutes } from './folders.js';
import { agentToolRoutes } from './tools.js';
import { agentScheduleRoutes } from './schedule.js';
import { agentMcpServerRoutes } from './mcp-servers.js';
import { agentSecretRoutes } from './secrets.js';

/** `/agents` and what hangs off one agent, except its messages (see messages.ts). */
export function agentRoutes(services: AppServices): FastifyPluginAsync {
  return async (app) => {
    await app.register(agentCrudRoutes(services));
    await app.register(coreMemoryRoutes(services));
    await app.register(agentToolRoutes(services));
    await app.register(contextWindowRoutes(services));
    await app.register(agentFileRoutes(services));
    await app.register(agentFolderRoutes(services));
    await app.register(agentScheduleRoutes(services));
    await app.register(agentMcpServerRoutes(services));
    await app.register(agentSecretRoutes(services));
  };
}
