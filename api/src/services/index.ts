import type { Database } from '@engram/db';
import type { Client } from '@temporalio/client';
import { createApiKeyService } from './tenancy/api-keys.js';
import { createOrganizationService } from './tenancy/organizations.js';

export type ServiceDeps = { db: Database; temporal: Client; taskQueue: string };

/** Services are shared by the `/v1` and console routes; built once per process. */
export function createServices(deps: ServiceDeps) {
  const apiKeys = createApiKeyService({ db: deps.db });
  const organizations = createOrganizationService({ db: deps.db, apiKeys });
  return { apiKeys, organizations };
}

export type AppServices = ReturnType<typeof createServices>;
