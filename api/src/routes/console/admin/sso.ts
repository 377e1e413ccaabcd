import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../../../services/index.js';

/** Before sign-in: whether an email's domain signs in through single sign-on (`invalidSSO` when it does not). */
export function ssoRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/verify-sso-email',
      {
        schema: {
          tags: ['console: sso'],
          body: z.object({ email: z.email() }),
          response: { 200: z.object({ domain: z.string(), workOSOrganizationId: z.string() }) },
        },
      },
      async (request) => {
        const configuration = await services.adminOrganizations.ssoConfigurationForEmail(request.body.email);
        return { domain: configuration.domain, workOSOrganizationId: configuration.workosOrganizationId };
      },
    );
  };
}
