import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import type { UnreachableProvider } from '../../services/models/model-service.js';
import { embeddingModelToWire, modelToWire } from '../../services/models/model-wire.js';
import { queryList } from '../../contracts/shared/query.js';
import { EmbeddingModelResponse, ModelResponse, ProviderCategory } from '../../contracts/v1/models.js';
import { errorResponses } from './shared/error-responses.js';

const ListModelsQuery = z.object({
  provider_category: queryList(ProviderCategory),
  provider_name: z.string().optional(),
  provider_type: z.string().optional(),
});

/** An unreachable provider is the operator's problem, not the caller's: the list still answers. */
function logUnreachable(log: FastifyBaseLogger, unreachable: UnreachableProvider[]): void {
  for (const provider of unreachable) log.warn({ provider: provider.name, reason: provider.message }, 'provider left out of the model list');
}

export function modelRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/models/',
      {
        schema: {
          tags: ['models'],
          summary: 'The LLMs every configured provider serves',
          querystring: ListModelsQuery,
          response: { 200: z.array(ModelResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const { models, unreachable } = await services.models.listModels(requireContext(request), {
          providerCategories: query.provider_category,
          providerName: query.provider_name,
          providerType: query.provider_type,
        });
        logUnreachable(request.log, unreachable);
        return models.map(modelToWire);
      },
    );

    app.get(
      '/models/embedding',
      {
        schema: {
          tags: ['models'],
          summary: 'The embedding models every configured provider serves',
          response: { 200: z.array(EmbeddingModelResponse) },
        },
      },
      async (request) => {
        const { models, unreachable } = await services.models.listEmbeddingModels(requireContext(request));
        logUnreachable(request.log, unreachable);
        return models.map(embeddingModelToWire);
      },
    );
  };
}
