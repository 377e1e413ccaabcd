export { buildApp, type AppDeps } from './app.js';
export { parseApiConfig, ENGRAM_VERSION, type ApiConfig } from './config.js';
export { createServices, type AppServices, type ServiceDeps } from './services/index.js';
export type { BaseProvider } from './services/providers/types.js';
export * from './errors.js';
export { createApiKeyService } from './services/tenancy/api-keys.js';
export { createTierLimitGuard, TIER_LIMITS, type TierLimitGuard } from './services/tenancy/tier-limits.js';
export { createOrganizationService, type CreatedTenant } from './services/tenancy/organizations.js';
export { createNotificationHub, type NotificationHub } from './services/runs/notification-hub.js';
