import type { FastifyPluginAsync } from 'fastify';
import type { AppServices } from '../../../services/index.js';
import { adminBillingRoutes } from './billing.js';
import { adminBillingSettingsRoutes } from './billing-settings.js';
import { adminModelRoutes } from './models.js';
import { adminOAuthAppRoutes } from './oauth-apps.js';
import { adminOrganizationRoutes } from './organizations.js';
import { adminPlatformRoutes } from './platform.js';
import { adminUserRoutes } from './users.js';
import { ssoRoutes } from './sso.js';

/** Spec 000 §7 Admin: every `/api/admin/*` call, for platform admins only (`http/permissions.ts`), and the SSO email check. */
export function adminRoutes(services: AppServices): FastifyPluginAsync {
  return async (app) => {
    await app.register(adminOrganizationRoutes(services));
    await app.register(adminUserRoutes(services));
    await app.register(adminModelRoutes(services));
    await app.register(adminPlatformRoutes(services));
    await app.register(adminOAuthAppRoutes(services));
    await app.register(adminBillingRoutes(services));
    await app.register(adminBillingSettingsRoutes(services));
    await app.register(ssoRoutes(services));
  };
}
