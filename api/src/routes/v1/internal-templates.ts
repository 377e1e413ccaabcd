import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { agentToWire, blockToWire } from '../../services/agents/agent-wire.js';
import { queryList } from '../../contracts/shared/query.js';
import { AgentResponse } from '../../contracts/v1/agents.js';
import { CreateAgentBody } from './agents/agents.js';
import { BLOCK_TEXT_STRIPPED_OF_NUL, CreateBlockBody } from './blocks.js';
import { BlockResponse } from '../../contracts/v1/blocks.js';
import { errorResponses } from './shared/error-responses.js';

/** What every entity a template deployment creates names: its template, the template it derives from, the deployment, its entity. */
const templateEntityFields = {
  template_id: z.string().min(1),
  base_template_id: z.string().min(1),
  deployment_id: z.string().min(1),
  entity_id: z.string().min(1),
};

const TemplateAgentBody = CreateAgentBody.omit({ from_template: true, template: true }).extend(templateEntityFields);

const TemplateBlockBody = CreateBlockBody.extend(templateEntityFields);

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

/**
 * `/_internal_templates`: the entities of a template deployment made one by one by an orchestrator (agents and
 * blocks carrying their template, deployment and entity ids), what a deployment made, and removing it.
 */
export function internalTemplateRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/_internal_templates/agents',
      {
        schema: {
          hide: true,
          body: TemplateAgentBody,
          response: { 200: AgentResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const { template_id, base_template_id, deployment_id, entity_id, memory_variables, ...body } = request.body;
        const created = await services.agents.create(requireContext(request), {
          ...body,
          templateOrigin: {
            templateId: template_id,
            baseTemplateId: base_template_id,
            templateVersionId: null,
            deploymentId: deployment_id,
            entityId: entity_id,
            memoryVariables: memory_variables ?? {},
          },
        });
        return agentToWire(created);
      },
    );

    app.post(
      '/_internal_templates/blocks',
      {
        config: { nulStrippedBodyFields: BLOCK_TEXT_STRIPPED_OF_NUL },
        schema: { hide: true, body: TemplateBlockBody, response: { 200: BlockResponse, ...errorResponses(404, 422) } },
      },
      async (request) => blockToWire(await services.blocks.create(requireContext(request), request.body)),
    );

    app.post(
      '/_internal_templates/blocks/batch',
      { schema: { hide: true, body: z.array(TemplateBlockBody), response: { 200: z.array(BlockResponse), ...errorResponses(404, 422) } } },
      async (request) => (await services.blocks.createMany(requireContext(request), request.body)).map(blockToWire),
    );

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
