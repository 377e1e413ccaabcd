import cookie from '@fastify/cookie';
import type { FastifyPluginAsync } from 'fastify';
import { registerSessionAuth } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { adminRoutes } from './admin/index.js';
import { agentTemplateImportRoutes } from './agent-template-import.js';
import { agentTemplateRoutes } from './agent-templates.js';
import { apiKeyRoutes } from './api-keys.js';
import { billingRoutes } from './billing.js';
import { blockTemplateRoutes } from './block-templates.js';
import { cloudAccessRoutes } from './cloud-access.js';
import { connectedAppRoutes } from './connected-apps.js';
import { consoleSettingsRoutes, type ConsoleSettingsOptions } from './console-settings.js';
import { abTestRoutes } from './ab-tests.js';
import { datasetRoutes } from './datasets.js';
import { developmentOutboxRoutes } from './development-outbox.js';
import { developmentServerRoutes } from './development-servers.js';
import { environmentVariableRoutes } from './environment-variables.js';
import { inviteRoutes } from './invites.js';
import { memberRoutes } from './members.js';
import { oauthConsoleRoutes } from './oauth.js';
import { onboardingRoutes } from './onboarding.js';
import { organizationRoutes } from './organizations.js';
import { paymentRoutes } from './payments.js';
import { preferenceRoutes } from './preferences.js';
import { projectRoutes } from './projects.js';
import { simulatedAgentRoutes } from './simulated-agents.js';
import { sharingRoutes, type SharingRouteOptions } from './sharing.js';
import { agentFileGalleryRoutes } from './agent-file-gallery.js';
import { traceRoutes } from './traces.js';
import { observabilityRoutes } from './observability.js';
import { usageRoutes } from './usage.js';
import { userRoutes } from './user.js';
import { verificationRoutes } from './verification.js';

/**
 * The console API (spec 000's "api base"), mounted at `/api`: signed in by session cookie, errors
 * as `{message, errorCode}`, access per `http/permissions.ts`.
 */
export function consoleRoutes(services: AppServices, options: ConsoleSettingsOptions & SharingRouteOptions & { exposeDevelopmentOutbox: boolean }): FastifyPluginAsync {
  return async (app) => {
    await app.register(cookie);
    registerSessionAuth(app, { sessions: services.sessions, standing: services.standing });
    await app.register(userRoutes(services));
    await app.register(cloudAccessRoutes(services));
    await app.register(verificationRoutes(services));
    await app.register(onboardingRoutes(services));
    await app.register(organizationRoutes(services));
    await app.register(billingRoutes(services));
    await app.register(paymentRoutes(services));
    await app.register(memberRoutes(services));
    await app.register(inviteRoutes(services));
    await app.register(projectRoutes(services));
    await app.register(traceRoutes(services));
    await app.register(observabilityRoutes(services));
    await app.register(usageRoutes(services));
    await app.register(apiKeyRoutes(services));
    await app.register(agentTemplateRoutes(services));
    await app.register(agentTemplateImportRoutes(services));
    await app.register(blockTemplateRoutes(services));
    await app.register(simulatedAgentRoutes(services));
    await app.register(sharingRoutes(services, { pingIntervalMs: options.pingIntervalMs, pollIntervalMs: options.pollIntervalMs }));
    await app.register(agentFileGalleryRoutes(services));
    await app.register(datasetRoutes(services));
    await app.register(abTestRoutes(services));
    await app.register(environmentVariableRoutes(services));
    await app.register(developmentServerRoutes(services));
    await app.register(preferenceRoutes(services));
    await app.register(oauthConsoleRoutes(services));
    await app.register(connectedAppRoutes(services));
    await app.register(adminRoutes(services));
    await app.register(consoleSettingsRoutes({ temporalUi: options.temporalUi, billing: options.billing, webSearch: options.webSearch }));
    if (options.exposeDevelopmentOutbox) await app.register(developmentOutboxRoutes(services));
  };
}
