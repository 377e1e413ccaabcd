import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isTemplateAgentText } from '@engram/core/templates/snapshot';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import type { MigrationView } from '../../services/templates/types.js';
import { queryBoolean } from '../../contracts/shared/query.js';
import { errorResponses } from './shared/error-responses.js';
import {
  CreateAgentsResponse,
  MigrationResponse,
  SuccessResponse,
  TemplateResponse,
  TemplateVersionResponse,
  templateToWire,
} from '../../contracts/v1/templates.js';

const TemplateParams = z.object({ template: z.string().min(1) });

const AgentFile = z.record(z.string(), z.unknown());

const CreateTemplateBody = z.discriminatedUnion('type', [
  z.object({ type: z.literal('agent'), agent_id: z.string().min(1), name: z.string().optional() }),
  z.object({ type: z.literal('agent_file'), agent_file: AgentFile, name: z.string().optional(), update_existing_tools: z.boolean().optional() }),
]);

const UpdateTemplateBody = z.object({
  agent_file_json: AgentFile,
  save_existing_changes: z.boolean().optional(),
  update_existing_tools: z.boolean().optional(),
});

const ReconciliationStrategy = z.enum(['reconcile-all', 'preserve-deleted']);

const MigrationOptionsFields = {
  block_reconciliation_strategy: ReconciliationStrategy.optional(),
  preserve_core_memories_on_migration: z.boolean().optional(),
  preserve_environment_variables_on_migration: z.boolean().optional(),
  preserve_sources_on_migration: z.boolean().optional(),
  /** Values of the version's memory variables for the agents that have none of their own. */
  memory_variables: z.record(z.string(), z.string()).optional(),
};

const SaveTemplateBody = z.object({ message: z.string().optional(), migrate_agents: z.boolean().optional(), ...MigrationOptionsFields }).nullish();

const RollbackBody = z.object({ version: z.string().min(1) });

const AgentText = (message: string) => z.string().refine(isTemplateAgentText, message);

const CreateAgentsBody = z
  .object({
    agent_name: AgentText('Agent name can only contain alphanumeric characters, spaces, dashes, and underscores').optional(),
    tags: z.array(AgentText('Tags can only contain alphanumeric characters, spaces, dashes, and underscores')).optional(),
    identity_ids: z.array(z.string()).optional(),
    memory_variables: z.record(z.string(), z.string()).optional(),
    tool_variables: z.record(z.string(), z.string()).optional(),
    initial_message_sequence: z
      .array(
        z.object({
          role: z.enum(['user', 'system', 'assistant']),
          content: z.string(),
          name: z.string().nullish(),
          otid: z.string().nullish(),
          sender_id: z.string().nullish(),
          batch_item_id: z.string().nullish(),
          group_id: z.string().nullish(),
        }),
      )
      .optional(),
  })
  .nullish();

const ListQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1, 'Limit must be between 1 and 100').max(100, 'Limit must be between 1 and 100').default(20),
  name: z.string().optional(),
  search: z.string().optional(),
  project_id: z.string().optional(),
});

const DeleteQuery = z.object({ force: queryBoolean.default(false) });

export function migrationToWire(view: MigrationView): z.infer<typeof MigrationResponse> {
  return {
    workflow_id: view.workflowId,
    status: view.migration.status,
    template_version: view.templateVersion,
    total: view.total,
    migrated: view.migrated,
    failed: view.failed,
    untouched: view.untouched,
    started_at: view.migration.startedAt.toISOString(),
    completed_at: view.migration.completedAt?.toISOString() ?? null,
  };
}

function migrationOptions(body: {
  block_reconciliation_strategy?: 'reconcile-all' | 'preserve-deleted' | undefined;
  preserve_core_memories_on_migration?: boolean | undefined;
  memory_variables?: Record<string, string> | undefined;
}) {
  return {
    strategy: body.block_reconciliation_strategy ?? ('preserve-deleted' as const),
    preserveCoreMemories: body.preserve_core_memories_on_migration ?? false,
    memoryVariables: body.memory_variables ?? {},
  };
}

/**
 * The Cloud API's templates (`client.templates`): a template is addressed by name, a version by `name:3`,
 * `name:latest` (the newest saved) or `name:dev` (the working state).
 */
export function templateRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['templates'];

    app.get(
      '/templates',
      {
        schema: {
          tags,
          summary: "List the organization's templates",
          querystring: ListQuery,
          response: { 200: z.object({ templates: z.array(TemplateResponse), has_next_page: z.boolean() }), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const page = await services.templates.list(requireContext(request), {
          search: query.name ?? query.search,
          projectId: query.project_id,
          offset: query.offset,
          limit: query.limit,
        });
        return { templates: page.templates.map(templateToWire), has_next_page: page.hasNextPage };
      },
    );

    app.post(
      '/templates',
      {
        schema: {
          tags,
          summary: 'Create a template from an agent or an agent file (saved as version 1)',
          body: CreateTemplateBody,
          response: { 200: TemplateResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const { body } = request;
        const source =
          body.type === 'agent'
            ? { type: 'agent' as const, agentId: body.agent_id }
            : { type: 'agent_file' as const, agentFile: body.agent_file, updateExistingTools: body.update_existing_tools ?? false };
        return templateToWire(await services.templates.create(requireContext(request), { source, name: body.name, saveFirstVersion: true }, 'v1'));
      },
    );

    app.patch(
      '/templates/:template',
      {
        schema: {
          tags,
          summary: "Replace a template's working version from an agent file",
          params: TemplateParams,
          body: UpdateTemplateBody,
          response: { 200: SuccessResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { body } = request;
        await services.templates.updateFromAgentFile(requireContext(request), request.params.template, {
          agentFile: body.agent_file_json,
          saveExistingChanges: body.save_existing_changes ?? false,
          updateExistingTools: body.update_existing_tools ?? false,
        });
        return { success: true, message: `Template '${request.params.template}' updated` };
      },
    );

    app.delete(
      '/templates/:template',
      {
        schema: {
          tags,
          summary: 'Delete a template with all its versions (refused while agents come from it, unless force=true)',
          params: TemplateParams,
          querystring: DeleteQuery,
          response: { 200: z.object({ success: z.boolean() }), ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        await services.templates.delete(requireContext(request), request.params.template, request.query.force);
        return { success: true };
      },
    );

    app.post(
      '/templates/:template/save',
      {
        schema: {
          tags,
          summary: 'Save the working version as a new version, optionally migrating the agents of the template to it',
          params: TemplateParams,
          body: SaveTemplateBody,
          response: { 200: TemplateResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const saved = await services.templates.save(requireContext(request), request.params.template, {
          message: body.message,
          migrateAgents: body.migrate_agents ? migrationOptions(body) : undefined,
        });
        return templateToWire(saved.view);
      },
    );

    app.post(
      '/templates/:template/rollback',
      {
        schema: {
          tags,
          summary: 'Make a saved version the working version again (unsaved changes are saved first)',
          params: TemplateParams,
          body: RollbackBody,
          response: { 200: SuccessResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const version = await services.templates.rollback(requireContext(request), request.params.template, request.body.version);
        return { success: true, message: `Rolled back to version ${version}` };
      },
    );

    app.get(
      '/templates/:template/versions',
      {
        schema: {
          tags,
          summary: "A template's saved versions, newest first",
          params: TemplateParams,
          querystring: ListQuery.pick({ offset: true, limit: true }),
          response: { 200: z.object({ versions: z.array(TemplateVersionResponse), has_next_page: z.boolean() }), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const template = await services.templates.getByName(ctx, request.params.template);
        const page = await services.templates.listVersions(ctx, template.template.id, request.query);
        return {
          versions: page.versions.map((version) => ({
            version: String(version.version),
            created_at: version.createdAt.toISOString(),
            ...(version.message !== null ? { message: version.message } : {}),
            is_latest: version.version === page.template.latestVersion,
          })),
          has_next_page: page.hasNextPage,
        };
      },
    );

    app.get(
      '/templates/:template/snapshot',
      {
        schema: {
          tags,
          summary: 'The agent state a template version (`name:3`, `name:latest`, `name:dev`) builds',
          params: TemplateParams,
          response: { 200: z.record(z.string(), z.unknown()), ...errorResponses(404) },
        },
      },
      async (request) => (await services.templates.resolveVersion(requireContext(request), request.params.template)).snapshot,
    );

    app.post(
      '/templates/:template/fork',
      {
        schema: {
          tags,
          summary: 'Copy a template (its working version) under a new name',
          params: TemplateParams,
          body: z.object({ name: z.string().optional() }).nullish(),
          response: { 200: TemplateResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const source = await services.templates.getByName(ctx, request.params.template);
        return templateToWire(await services.templates.fork(ctx, source.template.id, request.body?.name, 'v1'));
      },
    );

    app.patch(
      '/templates/:template/name',
      {
        schema: {
          tags,
          summary: 'Rename a template',
          params: TemplateParams,
          body: z.object({ new_name: z.string() }),
          response: { 200: TemplateResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const template = await services.templates.getByName(ctx, request.params.template);
        return templateToWire(await services.templates.rename(ctx, template.template.id, request.body.new_name, 'v1'));
      },
    );

    app.patch(
      '/templates/:template/description',
      {
        schema: {
          tags,
          summary: "Set a template's description",
          params: TemplateParams,
          body: z.object({ description: z.string().nullable() }),
          response: { 200: TemplateResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const template = await services.templates.getByName(ctx, request.params.template);
        return templateToWire(await services.templates.setDescription(ctx, template.template.id, request.body.description));
      },
    );

    app.post(
      '/templates/:template/agents',
      {
        schema: {
          tags,
          summary: 'Create an agent from a template version, filling its memory variables',
          params: TemplateParams,
          body: CreateAgentsBody,
          response: { 200: CreateAgentsResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const created = await services.templates.createAgents(requireContext(request), request.params.template, {
          agentName: body.agent_name,
          tags: body.tags,
          identityIds: body.identity_ids,
          memoryVariables: body.memory_variables,
          toolVariables: body.tool_variables,
          initialMessageSequence: body.initial_message_sequence,
        });
        return { agent_ids: created.agentIds, deployment_id: created.deploymentId, group_id: null };
      },
    );

    app.post(
      '/templates/:template/migrate',
      {
        schema: {
          tags,
          summary: "Migrate every agent of the template to this saved version (a workflow; see the migration's progress)",
          params: TemplateParams,
          body: z.object(MigrationOptionsFields).nullish(),
          response: { 200: MigrationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) =>
        migrationToWire(await services.templates.migrate(requireContext(request), request.params.template, migrationOptions(request.body ?? {}))),
    );
  };
}
