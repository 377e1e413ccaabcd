import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { UnprocessableError } from '../../../errors.js';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { toolToWire } from '../../../services/agents/agent-wire.js';
import { AgentParams } from './agents.js';
import { pageOf, pageQuery } from '../../../contracts/shared/paging.js';
import { queryBoolean } from '../../../contracts/shared/query.js';
import { NullResponse } from '../shared/common-responses.js';
import { errorResponses } from '../shared/error-responses.js';
import { ToolExecutionResult, ToolResponse } from '../../../contracts/v1/tools.js';

const ToolIdParams = AgentParams.extend({ tool_id: z.string() });
const ToolNameParams = AgentParams.extend({ tool_name: z.string() });

/**
 * The body is the current form, the query parameter the deprecated one. The 1.x npm client sends the body
 * field as `body_requires_approval` (its generated parameter name), so that spelling is accepted too.
 */
const ApprovalBody = z.strictObject({ requires_approval: z.boolean().optional(), body_requires_approval: z.boolean().optional() }).nullish();
const ApprovalQuery = z.object({ requires_approval: queryBoolean.optional() });

const RunAgentToolBody = z.object({ args: z.record(z.string(), z.unknown()).optional() }).nullish();

/** 1.0 clients get `null` from these PATCHes, not the agent (runtime-api §1.6). */
const NO_CONTENT_FOR_1_0_CLIENTS = null;

export function agentToolRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:agent_id/tools/',
      {
        schema: {
          tags: ['agents'],
          summary: "An agent's tools",
          params: AgentParams,
          querystring: z.object(pageQuery(10)),
          response: { 200: z.array(ToolResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const tools = await services.agentTools.listTools(requireContext(request), request.params.agent_id, pageOf(query, 'desc'));
        return tools.map(toolToWire);
      },
    );

    app.patch(
      '/agents/:agent_id/tools/attach/:tool_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Attach a tool to an agent',
          params: ToolIdParams,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.agentTools.attachTool(requireContext(request), request.params.agent_id, request.params.tool_id);
        return NO_CONTENT_FOR_1_0_CLIENTS;
      },
    );

    app.patch(
      '/agents/:agent_id/tools/detach/:tool_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Detach a tool from an agent',
          params: ToolIdParams,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.agentTools.detachTool(requireContext(request), request.params.agent_id, request.params.tool_id);
        return NO_CONTENT_FOR_1_0_CLIENTS;
      },
    );

    app.post(
      '/agents/:agent_id/tools/:tool_name/run',
      {
        schema: {
          tags: ['agents'],
          summary: "Run one of an agent's tools with arguments, as the agent would (outside any turn)",
          params: ToolNameParams,
          body: RunAgentToolBody,
          response: { 200: ToolExecutionResult, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { agent_id: agentId, tool_name: toolName } = request.params;
        return services.agentToolRuns.run(requireContext(request), agentId, toolName, request.body?.args ?? {});
      },
    );

    app.patch(
      '/agents/:agent_id/tools/approval/:tool_name',
      {
        schema: {
          tags: ['agents'],
          summary: 'Require (or stop requiring) approval before an agent calls a tool',
          params: ToolNameParams,
          querystring: ApprovalQuery,
          body: ApprovalBody,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const requiresApproval = request.body?.requires_approval ?? request.body?.body_requires_approval ?? request.query.requires_approval;
        if (requiresApproval === undefined) {
          throw new UnprocessableError(['body', 'requires_approval'], 'requires_approval is required, in the body or the query');
        }
        const { agent_id: agentId, tool_name: toolName } = request.params;
        await services.agentTools.setToolApproval(requireContext(request), agentId, toolName, requiresApproval);
        return NO_CONTENT_FOR_1_0_CLIENTS;
      },
    );
  };
}
