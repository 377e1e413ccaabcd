import type { Agent } from '@engram/console-kit';
import { keysetQuery, segment, v1Json, type KeysetPage } from '../v1-request.js';
import type { IdentityProperty, IdentityType } from './identity-types.js';

export type { IdentityProperty, IdentityType };

/** A wire `Identity`: who an agent acts for (a user or an organization of yours), with properties agents can read. */
export type Identity = {
  id: string;
  identifier_key: string;
  name: string;
  identity_type: IdentityType;
  project_id: string | null;
  agent_ids: string[];
  block_ids: string[];
  properties: IdentityProperty[];
};

export type IdentityFields = { identifier_key: string; name: string; identity_type: IdentityType };

const identityPath = (identityId: string, suffix = '') => `/identities/${segment(identityId)}${suffix}`;

export function listIdentities(projectId: string, page: KeysetPage) {
  return v1Json<Identity[]>('/identities/', { query: { project_id: projectId, ...keysetQuery(page) } });
}

export function createIdentity(fields: IdentityFields & { project_id: string; properties: IdentityProperty[]; agent_ids: string[] }) {
  return v1Json<Identity>('/identities/', { method: 'POST', json: fields });
}

export function updateIdentity(identityId: string, fields: IdentityFields) {
  return v1Json<Identity>(identityPath(identityId), { method: 'PATCH', json: fields });
}

/** Replaces every property (a PATCH would merge them by key, keeping the ones removed). */
export function replaceIdentityProperties(identityId: string, properties: IdentityProperty[]) {
  return v1Json<Identity>(identityPath(identityId, '/properties'), { method: 'PUT', json: properties });
}

/** Deletes the identity; its agents and blocks stay. */
export function deleteIdentity(identityId: string) {
  return v1Json<null>(identityPath(identityId), { method: 'DELETE' });
}

export function listIdentityAgents(identityId: string) {
  return v1Json<Agent[]>(identityPath(identityId, '/agents'), { query: { limit: 100 } });
}

export function attachIdentity(agentId: string, identityId: string) {
  return v1Json<unknown>(`/agents/${segment(agentId)}/identities/attach/${segment(identityId)}`, { method: 'PATCH' });
}

export function detachIdentity(agentId: string, identityId: string) {
  return v1Json<unknown>(`/agents/${segment(agentId)}/identities/detach/${segment(identityId)}`, { method: 'PATCH' });
}
