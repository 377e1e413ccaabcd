import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { agentToWire, blockToWire } from '../../services/agents/agent-wire.js';
import { identityToWire } from '../../services/identities/identity-wire.js';
import { AgentParams, IncludeQuery } from './agents/agents.js';
import { pageOf, pageQuery } from '../../contracts/shared/paging.js';
import { IdentityProperty, IdentityResponse, IdentityType } from '../../contracts/v1/identities.js';
import { AgentResponse } from '../../contracts/v1/agents.js';
import { BlockResponse } from '../../contracts/v1/blocks.js';
import { CountResponse, NullResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';

const IdentityParams = z.object({ identity_id: z.string() });
const AgentIdentityParams = AgentParams.extend({ identity_id: z.string() });

const linkFields = {
  agent_ids: z.array(z.string()).nullish(),
  block_ids: z.array(z.string()).nullish(),
  properties: z.array(IdentityProperty).nullish(),
};

const CreateIdentityBody = z.strictObject({
  identifier_key: z.string().min(1),
  name: z.string().min(1),
  identity_type: IdentityType,
  project_id: z.string().nullish(),
  ...linkFields,
});

const UpdateIdentityBody = z.strictObject({
  identifier_key: z.string().min(1).nullish(),
  name: z.string().min(1).nullish(),
  identity_type: IdentityType.nullish(),
  ...linkFields,
});

const ListIdentitiesQuery = z.object({
  name: z.string().optional(),
  project_id: z.string().optional(),
  identifier_key: z.string().optional(),
  identity_type: IdentityType.optional(),
  ...pageQuery(50),
});

const IdentityAgentsQuery = z.object({ ...IncludeQuery, ...pageQuery(50) });

/** 1.0 clients get `null` from the agent attach and detach PATCHes, not the agent (runtime-api §1.6). */
const NO_CONTENT_FOR_1_0_CLIENTS = null;

export function identityRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/identities/',
      {
        schema: {
          tags: ['identities'],
          summary: 'List identities',
          querystring: ListIdentitiesQuery,
          response: { 200: z.array(IdentityResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const views = await services.identities.list(
          requireContext(request),
          { name: query.name, projectId: query.project_id, identifierKey: query.identifier_key, identityType: query.identity_type },
          pageOf(query, 'desc'),
        );
        return views.map(identityToWire);
      },
    );

    app.post(
      '/identities/',
      {
        schema: {
          tags: ['identities'],
          summary: 'Create an identity',
          body: CreateIdentityBody,
          response: { 200: IdentityResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => identityToWire(await services.identities.create(requireContext(request), request.body)),
    );

    app.put(
      '/identities/',
      {
        schema: {
          tags: ['identities'],
          summary: 'Create or replace the identity with this identifier_key',
          body: CreateIdentityBody,
          response: { 200: IdentityResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => identityToWire(await services.identities.upsert(requireContext(request), request.body)),
    );

    app.get(
      '/identities/count',
      { schema: { tags: ['identities'], summary: "Count the organization's identities", response: { 200: CountResponse } } },
      async (request) => services.identities.count(requireContext(request)),
    );

    app.get(
      '/identities/:identity_id',
      {
        schema: {
          tags: ['identities'],
          summary: 'Get an identity',
          params: IdentityParams,
          response: { 200: IdentityResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => identityToWire(await services.identities.get(requireContext(request), request.params.identity_id)),
    );

    app.patch(
      '/identities/:identity_id',
      {
        schema: {
          tags: ['identities'],
          summary: 'Update an identity: properties merge by key, agent and block ids are added',
          params: IdentityParams,
          body: UpdateIdentityBody,
          response: { 200: IdentityResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => identityToWire(await services.identities.update(requireContext(request), request.params.identity_id, request.body)),
    );

    app.delete(
      '/identities/:identity_id',
      {
        schema: {
          tags: ['identities'],
          summary: 'Delete an identity (its agents and blocks stay)',
          params: IdentityParams,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.identities.delete(requireContext(request), request.params.identity_id);
        return null;
      },
    );

    app.put(
      '/identities/:identity_id/properties',
      {
        schema: {
          tags: ['identities'],
          summary: "Replace an identity's properties",
          params: IdentityParams,
          body: z.array(IdentityProperty),
          response: { 200: IdentityResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) =>
        identityToWire(await services.identities.replaceProperties(requireContext(request), request.params.identity_id, request.body)),
    );

    app.get(
      '/identities/:identity_id/agents',
      {
        schema: {
          tags: ['identities'],
          summary: 'The agents of an identity',
          params: IdentityParams,
          querystring: IdentityAgentsQuery,
          response: { 200: z.array(AgentResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const views = await services.identities.listAgents(
          requireContext(request),
          request.params.identity_id,
          pageOf(query, 'desc'),
          new Set(query.include ?? []),
        );
        return views.map(agentToWire);
      },
    );

    app.get(
      '/identities/:identity_id/blocks',
      {
        schema: {
          tags: ['identities'],
          summary: 'The memory blocks of an identity',
          params: IdentityParams,
          querystring: z.object(pageQuery(50)),
          response: { 200: z.array(BlockResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const blocks = await services.identities.listBlocks(requireContext(request), request.params.identity_id, pageOf(query, 'desc'));
        return blocks.map(blockToWire);
      },
    );

    app.patch(
      '/agents/:agent_id/identities/attach/:identity_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Attach an identity to an agent',
          params: AgentIdentityParams,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.identities.attachAgent(requireContext(request), request.params.agent_id, request.params.identity_id);
        return NO_CONTENT_FOR_1_0_CLIENTS;
      },
    );

    app.patch(
      '/agents/:agent_id/identities/detach/:identity_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Detach an identity from an agent',
          params: AgentIdentityParams,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.identities.detachAgent(requireContext(request), request.params.agent_id, request.params.identity_id);
        return NO_CONTENT_FOR_1_0_CLIENTS;
      },
    );
  };
}
