import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import {
  EnvironmentVariableName,
  EnvironmentVariableValue,
  LocalSandboxSettingsSchema,
  sandboxTypeOf,
} from '../../services/sandbox/sandbox-settings.js';
import { sandboxConfigToWire, sandboxVariableToWire } from '../../services/sandbox/sandbox-wire.js';
import { SandboxConfigResponse, SandboxVariableResponse } from '../../contracts/v1/sandbox-config.js';
import { cursorId } from '../../contracts/shared/input-limits.js';
import { NoContentResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';

const ConfigParams = z.object({ sandbox_config_id: z.string() });
const VariableParams = z.object({ env_var_id: z.string() });

const SettingsObject = z.record(z.string(), z.unknown());

/** `SandboxConfigCreate`: a local, E2B or Modal config, told apart by its keys. */
const CreateConfigBody = z.strictObject({ config: SettingsObject });
/** `SandboxConfigUpdate`: the settings to change, checked against the config's type. */
const UpdateConfigBody = z.strictObject({ config: SettingsObject.default({}) });

const pageOfAfter = { after: cursorId.optional(), limit: z.coerce.number().int().min(1).max(1000).default(1000) };
const ListConfigsQuery = z.object({ ...pageOfAfter, sandbox_type: z.enum(['local', 'e2b', 'modal']).optional() });
const ListVariablesQuery = z.object(pageOfAfter);

const CreateVariableBody = z.strictObject({
  key: EnvironmentVariableName,
  value: EnvironmentVariableValue,
  description: z.string().nullish(),
});
const UpdateVariableBody = z.strictObject({
  key: EnvironmentVariableName.optional(),
  value: EnvironmentVariableValue.optional(),
  description: z.string().nullish(),
});

export function sandboxConfigRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const configs = services.sandboxConfigs;

    app.post(
      '/sandbox-config/',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: 'Create (or replace) the sandbox config of a type',
          body: CreateConfigBody,
          response: { 200: SandboxConfigResponse, ...errorResponses(422) },
        },
      },
      async (request) => {
        const { config } = request.body;
        return sandboxConfigToWire(await configs.createOrReplace(requireContext(request), sandboxTypeOf(config), config));
      },
    );

    app.get(
      '/sandbox-config/',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: "The organization's sandbox configs",
          querystring: ListConfigsQuery,
          response: { 200: z.array(SandboxConfigResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const list = await configs.list(requireContext(request), { sandboxType: query.sandbox_type }, { after: query.after, limit: query.limit, order: 'asc' });
        return list.map(sandboxConfigToWire);
      },
    );

    app.post(
      '/sandbox-config/e2b/default',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: 'The E2B sandbox config, created with defaults if missing',
          response: { 200: SandboxConfigResponse },
        },
      },
      async (request) => sandboxConfigToWire(await configs.getOrCreateDefault(requireContext(request), 'e2b')),
    );

    app.post(
      '/sandbox-config/local/default',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: 'The local sandbox config, created with defaults if missing',
          response: { 200: SandboxConfigResponse },
        },
      },
      async (request) => sandboxConfigToWire(await configs.getOrCreateDefault(requireContext(request), 'local')),
    );

    app.post(
      '/sandbox-config/local',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: 'Create (or replace) the local sandbox config',
          body: LocalSandboxSettingsSchema,
          response: { 200: SandboxConfigResponse, ...errorResponses(422) },
        },
      },
      async (request) => sandboxConfigToWire(await configs.createOrReplace(requireContext(request), 'local', request.body)),
    );

    app.post(
      '/sandbox-config/local/recreate-venv',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: "Rebuild the local sandbox's venv with its pip requirements",
          response: { 200: SandboxConfigResponse },
        },
      },
      async (request) => sandboxConfigToWire(await configs.recreateLocalVenv(requireContext(request))),
    );

    app.patch(
      '/sandbox-config/:sandbox_config_id',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: 'Update a sandbox config',
          params: ConfigParams,
          body: UpdateConfigBody,
          response: { 200: SandboxConfigResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) =>
        sandboxConfigToWire(await configs.update(requireContext(request), request.params.sandbox_config_id, request.body.config)),
    );

    app.delete(
      '/sandbox-config/:sandbox_config_id',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: 'Delete a sandbox config and its variables',
          params: ConfigParams,
          response: { 204: NoContentResponse, ...errorResponses(404, 422) },
        },
      },
      async (request, reply) => {
        await configs.delete(requireContext(request), request.params.sandbox_config_id);
        return reply.code(204).send();
      },
    );

    app.post(
      '/sandbox-config/:sandbox_config_id/environment-variable',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: 'Add an environment variable to a sandbox config (stored encrypted, shown masked)',
          params: ConfigParams,
          body: CreateVariableBody,
          response: { 200: SandboxVariableResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) =>
        sandboxVariableToWire(await configs.createVariable(requireContext(request), request.params.sandbox_config_id, request.body)),
    );

    app.get(
      '/sandbox-config/:sandbox_config_id/environment-variable',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: "A sandbox config's environment variables",
          params: ConfigParams,
          querystring: ListVariablesQuery,
          response: { 200: z.array(SandboxVariableResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const variables = await configs.listVariables(requireContext(request), request.params.sandbox_config_id, {
          after: query.after,
          limit: query.limit,
          order: 'asc',
        });
        return variables.map(sandboxVariableToWire);
      },
    );

    app.patch(
      '/sandbox-config/environment-variable/:env_var_id',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: 'Update a sandbox environment variable',
          params: VariableParams,
          body: UpdateVariableBody,
          response: { 200: SandboxVariableResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => sandboxVariableToWire(await configs.updateVariable(requireContext(request), request.params.env_var_id, request.body)),
    );

    app.delete(
      '/sandbox-config/environment-variable/:env_var_id',
      {
        schema: {
          tags: ['sandbox-config'],
          summary: 'Delete a sandbox environment variable',
          params: VariableParams,
          response: { 204: NoContentResponse, ...errorResponses(404, 422) },
        },
      },
      async (request, reply) => {
        await configs.deleteVariable(requireContext(request), request.params.env_var_id);
        return reply.code(204).send();
      },
    );
  };
}
