import type { CreatedTenant } from '@engram/api';
import type { ApiTarget } from './http.js';
import type { TestStack } from '../stack.js';

export type TestOrganization = { tenant: CreatedTenant; organizationId: string; target: ApiTarget };

/** A new organization on the stack, with its admin and an API key, and an `ApiTarget` acting as it. */
export async function createOrganization(stack: Pick<TestStack, 'baseUrl' | 'createTenant'>, name?: string): Promise<TestOrganization> {
  const tenant = await stack.createTenant(name);
  return { tenant, organizationId: tenant.organizationId, target: { baseUrl: stack.baseUrl, apiKey: tenant.apiKey.key } };
}
