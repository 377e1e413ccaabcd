import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { memoryVariablesOf } from '@engram/core/templates/snapshot';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import {
  AgentStateSchema,
  AgentTemplateSchema,
  DeployedTemplateSchema,
  EditWorkingStateBody,
  MemoryVariableSchema,
  MigrationOptionsBody,
  MigrationRequirementsSchema,
  MigrationSchema,
  SlugParams,
  TemplateName,
  TemplateParams,
  TemplateVersionSchema,
  migrationToConsoleWire,
  stateToWire,
  templateToWire,
  versionToWire,
} from './agent-templates-schema.js';
import { iso, PageQuery, success, Success } from './schemas.js';

/** The console's agent templates: list, editor (the working version), versions, deploy, migrations. */
export function agentTemplateRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['console: agent templates'];

    app.get(
      '/agent-templates',
      {
        schema: {
          tags,
          querystring: PageQuery.extend({ projectId: z.string().optional() }),
          response: { 200: z.object({ agentTemplates: z.array(AgentTemplateSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const { query } = request;
        const page = await services.templates.list(requireContext(request), query);
        return { agentTemplates: page.templates.map(templateToWire), hasNextPage: page.hasNextPage };
      },
    );

    app.post(
      '/agent-templates',
      {
        schema: {
          tags,
          body: z.object({ name: TemplateName, agentId: z.string(), description: z.string().optional(), projectId: z.string().optional() }),
          response: { 201: AgentTemplateSchema },
        },
      },
      async (request, reply) => {
        const { body } = request;
        const view = await services.templates.create(
          requireContext(request),
          {
            source: { type: 'agent', agentId: body.agentId },
            name: body.name,
            description: body.description,
            projectId: body.projectId,
            saveFirstVersion: false,
          },
          'console',
        );
        return reply.code(201).send(templateToWire(view));
      },
    );

    app.get(
      '/agent-templates/migrations',
      {
        schema: {
          tags,
          querystring: z.object({ templateId: z.string().optional(), offset: z.coerce.number().int().min(0).default(0) }),
          response: { 200: z.object({ migrations: z.array(MigrationSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.templates.listMigrations(requireContext(request), request.query);
        return { migrations: page.migrations.map(migrationToConsoleWire), hasNextPage: page.hasNextPage };
      },
    );

    app.post(
      '/agent-templates/migrations/:workflowId/abort',
      { schema: { tags, params: z.object({ workflowId: z.string() }), response: { 200: MigrationSchema } } },
      async (request) => migrationToConsoleWire(await services.templates.abortMigration(requireContext(request), request.params.workflowId)),
    );

    app.get(
      '/agent-templates/:agentTemplateId',
      { schema: { tags, params: TemplateParams, response: { 200: AgentTemplateSchema } } },
      async (request) => templateToWire(await services.templates.get(requireContext(request), request.params.agentTemplateId)),
    );

    app.patch(
      '/agent-templates/:agentTemplateId',
      { schema: { tags, params: TemplateParams, body: EditWorkingStateBody, response: { 200: AgentTemplateSchema } } },
      async (request) => {
        const { body } = request;
        const view = await services.templates.updateWorkingState(requireContext(request), request.params.agentTemplateId, (current) => ({
          ...(body.systemPrompt !== undefined ? { system: body.systemPrompt } : {}),
          ...(body.blocks !== undefined ? { blocks: body.blocks } : {}),
          ...(body.memoryVariables !== undefined ? { memoryVariables: body.memoryVariables } : {}),
          ...(body.toolVariables !== undefined ? { toolVariables: body.toolVariables } : {}),
          ...(body.toolIds !== undefined ? { toolIds: body.toolIds } : {}),
          ...(body.toolRules !== undefined ? { toolRules: body.toolRules } : {}),
          ...(body.tags !== undefined ? { tags: body.tags } : {}),
          ...(body.identityIds !== undefined ? { identityIds: body.identityIds } : {}),
          ...(body.temperature !== undefined ? { llmConfig: { ...current.llmConfig, temperature: body.temperature } } : {}),
        }));
        return templateToWire(view);
      },
    );

    app.patch(
      '/agent-templates/:agentTemplateId/name',
      { schema: { tags, params: TemplateParams, body: z.object({ name: TemplateName }), response: { 200: AgentTemplateSchema } } },
      async (request) =>
        templateToWire(await services.templates.rename(requireContext(request), request.params.agentTemplateId, request.body.name, 'console')),
    );

    app.post(
      '/agent-templates/:agentTemplateId/fork',
      { schema: { tags, params: TemplateParams, body: z.object({ name: TemplateName.optional() }), response: { 201: AgentTemplateSchema } } },
      async (request, reply) =>
        reply
          .code(201)
          .send(templateToWire(await services.templates.fork(requireContext(request), request.params.agentTemplateId, request.body.name, 'console'))),
    );

    app.delete(
      '/agent-templates/:agentTemplateId',
      { schema: { tags, params: TemplateParams, querystring: z.object({ force: z.enum(['true', 'false']).optional() }), response: { 200: Success } } },
      async (request) => {
        const ctx = requireContext(request);
        const { template } = await services.templates.get(ctx, request.params.agentTemplateId);
        await services.templates.delete(ctx, template.name, request.query.force === 'true');
        return success;
      },
    );

    app.get(
      '/agent-templates/:agentTemplateId/versions',
      {
        schema: {
          tags,
          params: TemplateParams,
          querystring: PageQuery.omit({ search: true }),
          response: { 200: z.object({ versions: z.array(TemplateVersionSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.templates.listVersions(requireContext(request), request.params.agentTemplateId, request.query);
        return { versions: page.versions.map(versionToWire), hasNextPage: page.hasNextPage };
      },
    );

    app.post(
      '/agent-templates/:agentTemplateId/versions',
      {
        schema: {
          tags,
          params: TemplateParams,
          body: z.object({ message: z.string().optional(), migrate: MigrationOptionsBody.optional() }),
          response: { 201: z.object({ version: TemplateVersionSchema, migration: MigrationSchema.nullable() }) },
        },
      },
      async (request, reply) => {
        const ctx = requireContext(request);
        const { template } = await services.templates.get(ctx, request.params.agentTemplateId);
        const { migrate } = request.body;
        const saved = await services.templates.save(ctx, template.name, {
          message: request.body.message,
          migrateAgents: migrate
            ? { strategy: migrate.blockReconciliationStrategy, preserveCoreMemories: migrate.preserveCoreMemories, memoryVariables: migrate.memoryVariables }
            : undefined,
        });
        const migration = saved.migration ? migrationToConsoleWire(await services.templates.getMigration(ctx, saved.migration.id)) : null;
        return reply.code(201).send({ version: versionToWire(saved.version), migration });
      },
    );

    app.get(
      '/deployed-agent-templates/:deployedAgentTemplateId',
      { schema: { tags, params: z.object({ deployedAgentTemplateId: z.string() }), response: { 200: DeployedTemplateSchema } } },
      async (request) => {
        const { template, version } = await services.templates.getVersion(requireContext(request), request.params.deployedAgentTemplateId);
        return {
          id: version.id,
          fullVersion: `${template.name}:${version.version}`,
          agentTemplateId: template.id,
          templateName: template.name,
          projectId: template.projectId,
          createdAt: iso(version.createdAt),
        };
      },
    );

    app.get(
      '/templates/:templateId/agents/:entityId',
      {
        schema: {
          tags,
          summary: "A template's agent entity, by the entity id agents made from it carry",
          params: z.object({ templateId: z.string(), entityId: z.string() }),
          // `{error}` when the template has no such entity (spec 000 §8); another organization's template is the guard's `{message}`.
          response: { 200: AgentTemplateSchema, 404: z.union([z.object({ error: z.string() }), z.object({ message: z.string() })]) },
        },
      },
      async (request, reply) => {
        const view = await services.templates.findEntity(requireContext(request), request.params.templateId, request.params.entityId);
        if (!view) return reply.code(404).send({ error: 'Template agent not found' });
        return templateToWire(view);
      },
    );

    app.get(
      '/agent-templates-memory-variables',
      {
        schema: {
          tags,
          querystring: z.object({ templateVersion: z.string() }),
          response: { 200: z.object({ memoryVariables: z.array(MemoryVariableSchema) }) },
        },
      },
      async (request) => {
        const ref = await services.templates.resolveVersion(requireContext(request), request.query.templateVersion);
        return { memoryVariables: memoryVariablesOf(ref.snapshot) };
      },
    );

    app.get(
      '/template-versions/:slug',
      { schema: { tags, params: SlugParams, response: { 200: z.object({ templateName: z.string(), version: z.string(), agentState: AgentStateSchema }) } } },
      async (request) => {
        const ref = await services.templates.resolveVersion(requireContext(request), request.params.slug);
        return { templateName: ref.template.name, version: ref.version ? String(ref.version.version) : 'dev', agentState: stateToWire(ref.snapshot) };
      },
    );

    app.post(
      '/template-versions/:slug/agents',
      {
        schema: {
          tags,
          params: SlugParams,
          body: z.object({
            count: z.number().int().min(1).max(100).default(1),
            name: z.string().optional(),
            tags: z.array(z.string()).optional(),
            memoryVariables: z.record(z.string(), z.string()).optional(),
          }),
          response: { 201: z.object({ agentIds: z.array(z.string()), deploymentId: z.string() }) },
        },
      },
      async (request, reply) => {
        const { body } = request;
        const created = await services.templates.createAgents(
          requireContext(request),
          request.params.slug,
          { agentName: body.name, tags: body.tags, memoryVariables: body.memoryVariables },
          body.count,
        );
        return reply.code(201).send(created);
      },
    );

    app.post(
      '/template-versions/:slug/migrate',
      { schema: { tags, params: SlugParams, body: MigrationOptionsBody, response: { 201: MigrationSchema } } },
      async (request, reply) => {
        const { body } = request;
        const migration = await services.templates.migrate(requireContext(request), request.params.slug, {
          strategy: body.blockReconciliationStrategy,
          preserveCoreMemories: body.preserveCoreMemories,
          memoryVariables: body.memoryVariables,
        });
        return reply.code(201).send(migrationToConsoleWire(migration));
      },
    );

    app.get(
      '/template-versions/:slug/migration-requirements',
      {
        schema: {
          tags,
          summary: "What migrating the template's agents to this version needs: the variables some agents have no value for",
          params: SlugParams,
          response: { 200: MigrationRequirementsSchema },
        },
      },
      async (request) => {
        const needs = await services.templates.migrationRequirements(requireContext(request), request.params.slug, {});
        return { agents: needs.agents, missingMemoryVariables: needs.missing };
      },
    );
  };
}
