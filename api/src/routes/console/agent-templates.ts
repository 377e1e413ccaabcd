import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { memoryVariablesOf, type TemplateSnapshot } from '@engram/core/templates/snapshot';
import type { AgentTemplateVersion } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import type { MigrationView, TemplateView } from '../../services/templates/types.js';
import { iso, PageQuery, success, Success } from './schemas.js';

const TemplateBlockSchema = z.object({
  label: z.string().min(1, 'Label is required'),
  value: z.string(),
  limit: z.number().int().min(1, 'Limit must be at least 1'),
  description: z.string().nullable(),
  readOnly: z.boolean(),
  preserveOnMigration: z.boolean(),
  blockTemplateId: z.string().nullable(),
});

const MemoryVariableSchema = z.object({ key: z.string().min(1), defaultValue: z.string().nullable(), type: z.literal('string') });

/** The working (or a saved) state of a template, as the editor shows and edits it. */
const AgentStateSchema = z.object({
  model: z.string(),
  systemPrompt: z.string(),
  toolIds: z.array(z.string()),
  sourceIds: z.array(z.string()),
  tags: z.array(z.string()),
  identityIds: z.array(z.string()),
  agentType: z.string(),
  memoryVariables: z.array(MemoryVariableSchema),
  blocks: z.array(TemplateBlockSchema),
  properties: z.object({ temperature: z.number().nullable(), contextWindow: z.number(), maxTokens: z.number().nullable() }),
});

const AgentTemplateSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  projectId: z.string(),
  latestDeployedVersion: z.string(),
  latestDeployedId: z.string().nullable(),
  hasUnsavedChanges: z.boolean(),
  updatedAt: z.string(),
  agentState: AgentStateSchema,
});

const TemplateVersionSchema = z.object({
  id: z.string(),
  version: z.string(),
  agentTemplateId: z.string(),
  message: z.string().nullable(),
  createdAt: z.string(),
  agentState: AgentStateSchema,
});

const MigrationSchema = z.object({
  workflowId: z.string(),
  status: z.enum(['running', 'completed', 'aborted', 'failed']),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  templateVersion: z.string(),
  total: z.number(),
  migrated: z.number(),
  failed: z.number(),
  untouched: z.number(),
  failures: z.array(z.object({ agentId: z.string(), reason: z.string() })),
});

/** Spec 000 §5: 3 to 50 characters, letters, digits, underscore, dash (the service words the messages). */
const TemplateName = z.string();

const TemplateParams = z.object({ agentTemplateId: z.string() });
const SlugParams = z.object({ slug: z.string() });

const EditWorkingStateBody = z.object({
  systemPrompt: z.string().optional(),
  blocks: z.array(TemplateBlockSchema).optional(),
  memoryVariables: z.array(MemoryVariableSchema).optional(),
  toolIds: z.array(z.string()).optional(),
  tags: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(2).optional(),
});

const MigrationOptionsBody = z.object({
  blockReconciliationStrategy: z.enum(['reconcile-all', 'preserve-deleted']).default('preserve-deleted'),
  preserveCoreMemories: z.boolean().default(false),
});

function stateToWire(snapshot: TemplateSnapshot): z.infer<typeof AgentStateSchema> {
  const { llmConfig } = snapshot;
  return {
    model: typeof llmConfig.handle === 'string' ? llmConfig.handle : llmConfig.model,
    systemPrompt: snapshot.system,
    toolIds: snapshot.toolIds,
    sourceIds: snapshot.sourceIds,
    tags: snapshot.tags,
    identityIds: snapshot.identityIds,
    agentType: snapshot.agentType,
    memoryVariables: memoryVariablesOf(snapshot),
    blocks: snapshot.blocks,
    properties: {
      temperature: llmConfig.temperature ?? null,
      contextWindow: llmConfig.context_window,
      maxTokens: typeof llmConfig.max_tokens === 'number' ? llmConfig.max_tokens : null,
    },
  };
}

function templateToWire(view: TemplateView): z.infer<typeof AgentTemplateSchema> {
  const { template } = view;
  return {
    id: template.id,
    name: template.name,
    description: template.description,
    projectId: template.projectId,
    latestDeployedVersion: String(template.latestVersion),
    latestDeployedId: null,
    hasUnsavedChanges: view.hasUnsavedChanges,
    updatedAt: iso(template.updatedAt),
    agentState: stateToWire(template.workingSnapshot),
  };
}

function versionToWire(version: AgentTemplateVersion): z.infer<typeof TemplateVersionSchema> {
  return {
    id: version.id,
    version: String(version.version),
    agentTemplateId: version.templateId,
    message: version.message,
    createdAt: iso(version.createdAt),
    agentState: stateToWire(version.snapshot),
  };
}

export function migrationToConsoleWire(view: MigrationView): z.infer<typeof MigrationSchema> {
  return {
    workflowId: view.workflowId,
    status: view.migration.status,
    startedAt: iso(view.migration.startedAt),
    completedAt: view.migration.completedAt ? iso(view.migration.completedAt) : null,
    templateVersion: view.templateVersion,
    total: view.total,
    migrated: view.migrated,
    failed: view.failed,
    untouched: view.untouched,
    failures: view.failures,
  };
}

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
          { source: { type: 'agent', agentId: body.agentId }, name: body.name, description: body.description, projectId: body.projectId },
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
        const ctx = requireContext(request);
        const { body } = request;
        const current = (await services.templates.get(ctx, request.params.agentTemplateId)).template.workingSnapshot;
        const view = await services.templates.updateWorkingState(ctx, request.params.agentTemplateId, {
          ...(body.systemPrompt !== undefined ? { system: body.systemPrompt } : {}),
          ...(body.blocks !== undefined ? { blocks: body.blocks } : {}),
          ...(body.memoryVariables !== undefined ? { memoryVariables: body.memoryVariables } : {}),
          ...(body.toolIds !== undefined ? { toolIds: body.toolIds } : {}),
          ...(body.tags !== undefined ? { tags: body.tags } : {}),
          ...(body.temperature !== undefined ? { llmConfig: { ...current.llmConfig, temperature: body.temperature } } : {}),
        });
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
          migrateAgents: migrate ? { strategy: migrate.blockReconciliationStrategy, preserveCoreMemories: migrate.preserveCoreMemories } : undefined,
        });
        const migration = saved.migration ? migrationToConsoleWire(await services.templates.getMigration(ctx, saved.migration.id)) : null;
        return reply.code(201).send({ version: versionToWire(saved.version), migration });
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
        });
        return reply.code(201).send(migrationToConsoleWire(migration));
      },
    );
  };
}
