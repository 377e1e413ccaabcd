import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { errorResponses } from './shared/error-responses.js';

const AbTestParams = z.object({ ab_test_id: z.string() });

const AgentForUserBody = z.object({
  /** The end user's identity: the same identity always lands on the same arm, and gets the same agent back. */
  identity: z.string().min(1).max(500),
  memory_variables: z.record(z.string(), z.string()).optional(),
});

const AgentForUserResponse = z.object({
  agent_id: z.string(),
  ab_test_template_id: z.string(),
  /** False when the identity already had its agent. */
  created: z.boolean(),
});

/** The entry point of an A/B test: an end user's agent, from the arm their identity hashes to. */
export function abTestRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/ab-tests/:ab_test_id/agents',
      {
        schema: {
          tags: ['ab-tests'],
          summary: "Create (or return) an end user's agent from the arm their identity is assigned to",
          params: AbTestParams,
          body: AgentForUserBody,
          response: { 200: AgentForUserResponse, 201: AgentForUserResponse, ...errorResponses(400, 404, 422) },
        },
      },
      async (request, reply) => {
        const { assignment, created } = await services.abTests.agentFor(requireContext(request), request.params.ab_test_id, {
          identity: request.body.identity,
          memoryVariables: request.body.memory_variables ?? {},
        });
        return reply.code(created ? 201 : 200).send({ agent_id: assignment.agentId, ab_test_template_id: assignment.armId, created });
      },
    );
  };
}
