import { randomUUID } from 'node:crypto';
import { TenantModel } from './base-model.js';

/** The agent access scopes of spec 000 §6: what a delegated token may do with an agent. */
export const AGENT_ACCESS_SCOPES = ['read_messages', 'write_messages', 'read_agent', 'write_agent'] as const;

export type AgentAccessScope = (typeof AGENT_ACCESS_SCOPES)[number];

/** One entry of a client-side token's policy: an agent and what the token may do with it. */
export type AgentAccessGrant = { id: string; type: 'agent'; access: AgentAccessScope[] };

/** `client_token-<uuid4>`: the public part of a client-side access token, by which it is listed and deleted. */
export function newClientSideAccessTokenId(): string {
  return `client_token-${randomUUID()}`;
}

export class ClientSideAccessToken extends TenantModel {
  static override tableName = 'client_side_access_tokens';
  static override jsonAttributes = ['policy'];
  declare id: string;
  declare userId: string;
  declare tokenHash: string;
  declare hostname: string;
  declare origin: string;
  declare policy: AgentAccessGrant[];
  declare expiresAt: Date;
}
