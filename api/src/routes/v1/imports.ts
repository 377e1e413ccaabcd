import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { errorResponses } from './shared/error-responses.js';
import { LettaImportParams, LettaImportResponse, ListLettaImportsQuery, StartLettaImportBody, lettaImportToWire } from '../../contracts/v1/imports.js';

/** Engram's own: migrating a whole organization from another server speaking the Letta API (console Settings → Import, `npm run import:letta`). */
export function importRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['imports'];

    app.post(
      '/imports/letta',
      {
        schema: {
          tags,
          summary: 'Start migrating everything a Letta-API server holds into this organization (or, with dryRun, report what would move)',
          body: StartLettaImportBody,
          response: { 201: LettaImportResponse, ...errorResponses(422) },
        },
      },
      async (request, reply) => reply.code(201).send(lettaImportToWire(await services.lettaImports.start(requireContext(request), request.body))),
    );

    app.get(
      '/imports/letta',
      { schema: { tags, summary: "The organization's migrations, newest first", querystring: ListLettaImportsQuery, response: { 200: z.array(LettaImportResponse) } } },
      async (request) => (await services.lettaImports.list(requireContext(request), request.query.limit)).map(lettaImportToWire),
    );

    app.get(
      '/imports/letta/:import_id',
      {
        schema: {
          tags,
          summary: "A migration's progress, plan and report",
          params: LettaImportParams,
          response: { 200: LettaImportResponse, ...errorResponses(404) },
        },
      },
      async (request) => lettaImportToWire(await services.lettaImports.get(requireContext(request), request.params.import_id)),
    );
  };
}
