import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { queryList } from '../shared/query.js';
import { errorResponses } from './shared/error-responses.js';

const DeploymentParams = z.object({ deployment_id: z.string() });

const DeploymentEntity = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  entity_id: z.string().nullable(),
  project_id: z.string().nullable(),
});

const DeploymentResult = z.object({
  entities: z.array(DeploymentEntity),
  total_count: z.number(),
  deployment_id: z.string(),
  message: z.string().nullable(),
});

const DeleteDeploymentResult = z.object({
  deleted_blocks: z.number(),
  deleted_agents: z.number(),
  deleted_groups: z.number(),
  message: z.string(),
});

/** `/_internal_templates`: what a deployment (one call creating agents from a template) made, and removing it. */
export function internalTemplateRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/_internal_templates/deployment/:deployment_id',
      {
        schema: {
          hide: true,
          params: DeploymentParams,
          querystring: z.object({ entity_types: queryList(z.string()) }),
          response: { 200: DeploymentResult, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { deployment, agents } = await services.templates.deploymentAgents(requireContext(request), request.params.deployment_id);
        const wanted = request.query.entity_types;
        const entities = !wanted?.length || wanted.includes('agent') ? agents : [];
        return {
          entities: entities.map((agent) => ({
            id: agent.id,
            type: 'agent',
            name: agent.name,
            description: agent.description,
            entity_id: null,
            project_id: agent.projectId,
          })),
          total_count: entities.length,
          deployment_id: deployment.id,
          message: null,
        };
      },
    );

    app.delete(
      '/_internal_templates/deployment/:deployment_id',
      {
        schema: { hide: true, params: DeploymentParams, response: { 200: DeleteDeploymentResult, ...errorResponses(404, 422) } },
      },
      async (request) => {
        const deleted = await services.templates.deleteDeployment(requireContext(request), request.params.deployment_id);
        return {
          deleted_blocks: deleted.deletedBlocks,
          deleted_agents: deleted.deletedAgents,
          deleted_groups: 0,
          message: `Deleted ${deleted.deletedAgents} agent${deleted.deletedAgents === 1 ? '' : 's'} of deployment ${request.params.deployment_id}`,
        };
      },
    );
  };
}
