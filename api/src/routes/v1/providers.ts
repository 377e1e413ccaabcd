import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { providerToWire } from '../../services/providers/provider-wire.js';
import { pageOf, pageQuery } from '../../contracts/shared/paging.js';
import { ProviderType } from '../../contracts/v1/models.js';
import { ProviderResponse } from '../../contracts/v1/providers.js';
import { ConfirmationResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';

const ProviderParams = z.object({ provider_id: z.string() });

const connectionFields = {
  provider_type: ProviderType,
  api_key: z.string().min(1),
  base_url: z.url().nullish(),
  access_key: z.string().nullish(),
  region: z.string().nullish(),
  api_version: z.string().nullish(),
};

const CreateProviderBody = z.strictObject({
  // The name is the prefix of model handles (`name/model`), so it cannot contain a slash.
  name: z.string().min(1).regex(/^[^/]+$/, 'A provider name cannot contain "/"'),
  ...connectionFields,
});

const CheckProviderBody = z.strictObject(connectionFields);

const UpdateProviderBody = z.strictObject({
  api_key: z.string().min(1).optional(),
  base_url: z.url().nullish(),
  access_key: z.string().nullish(),
  region: z.string().nullish(),
  api_version: z.string().nullish(),
});

const ListProvidersQuery = z.object({ name: z.string().optional(), provider_type: z.string().optional(), ...pageQuery(50) });

const validKey = (providerType: string) => ({ message: `Valid api key for provider_type=${providerType}` });

export function providerRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/providers/',
      {
        schema: {
          tags: ['providers'],
          summary: "The organization's own (BYOK) providers",
          querystring: ListProvidersQuery,
          response: { 200: z.array(ProviderResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const views = await services.providers.list(
          requireContext(request),
          { name: query.name, providerType: query.provider_type },
          pageOf(query, 'desc'),
        );
        return views.map(providerToWire);
      },
    );

    app.post(
      '/providers/',
      {
        schema: {
          tags: ['providers'],
          summary: 'Add a provider with your own key',
          body: CreateProviderBody,
          response: { 200: ProviderResponse, ...errorResponses(409, 422) },
        },
      },
      async (request) => providerToWire(await services.providers.create(requireContext(request), request.body)),
    );

    app.post(
      '/providers/check',
      {
        schema: {
          tags: ['providers'],
          summary: 'Check an API key against its provider',
          body: CheckProviderBody,
          response: { 200: ConfirmationResponse, ...errorResponses(422) },
        },
      },
      async (request) => {
        await services.providers.check(requireContext(request), request.body);
        return validKey(request.body.provider_type);
      },
    );

    app.get(
      '/providers/:provider_id',
      {
        schema: {
          tags: ['providers'],
          summary: 'Get a provider',
          params: ProviderParams,
          response: { 200: ProviderResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => providerToWire(await services.providers.get(requireContext(request), request.params.provider_id)),
    );

    app.patch(
      '/providers/:provider_id',
      {
        schema: {
          tags: ['providers'],
          summary: 'Update a provider',
          params: ProviderParams,
          body: UpdateProviderBody,
          response: { 200: ProviderResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) =>
        providerToWire(await services.providers.update(requireContext(request), request.params.provider_id, request.body)),
    );

    app.delete(
      '/providers/:provider_id',
      {
        schema: {
          tags: ['providers'],
          summary: 'Delete a provider',
          params: ProviderParams,
          response: { 200: ConfirmationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.providers.delete(requireContext(request), request.params.provider_id);
        return { message: `Provider id=${request.params.provider_id} successfully deleted` };
      },
    );

    app.post(
      '/providers/:provider_id/check',
      {
        schema: {
          tags: ['providers'],
          summary: "Check a stored provider's key",
          params: ProviderParams,
          response: { 200: ConfirmationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const view = await services.providers.checkStored(requireContext(request), request.params.provider_id);
        return validKey(view.provider.providerType);
      },
    );
  };
}
