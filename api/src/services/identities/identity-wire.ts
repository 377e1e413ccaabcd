import type { IdentityWire } from '../../contracts/v1/identities.js';
import type { IdentityView } from './identity-views.js';

/** The wire `Identity` of the public API. */
export function identityToWire(view: IdentityView): IdentityWire {
  const { identity } = view;
  return {
    id: identity.id,
    identifier_key: identity.identifierKey,
    name: identity.name,
    identity_type: identity.identityType,
    project_id: identity.projectId,
    organization_id: identity.organizationId,
    agent_ids: view.agentIds,
    block_ids: view.blockIds,
    properties: identity.properties,
  };
}
