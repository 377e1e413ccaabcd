import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppServices } from '../../services/index.js';
import { requireAccount } from '../../http/auth.js';
import { CloudAccessCodeBody, CloudAccessSchema } from './cloud-access-schema.js';

/** `POST /cloud-access-code`: a signed-in user's code gives their active organization access to the platform. */
export function cloudAccessRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/cloud-access-code',
      {
        schema: {
          tags: ['console: user'],
          summary: 'Gives the active organization access with one of the platform\'s codes (invalidCode otherwise; any code while access is open)',
          body: CloudAccessCodeBody,
          response: { 200: CloudAccessSchema },
        },
      },
      async (request) => {
        const user = await services.accounts.get(requireAccount(request).userId);
        const organizationId = request.access?.organizationId ?? null;
        await services.cloudAccess.redeem(user, organizationId, request.body.code);
        return { hasCloudAccess: await services.cloudAccess.hasAccess(user, organizationId) };
      },
    );
  };
}
