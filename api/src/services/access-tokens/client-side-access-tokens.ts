import { createHash, randomBytes } from 'node:crypto';
import {
  Agent,
  ClientSideAccessToken,
  newClientSideAccessTokenId,
  type AgentAccessGrant,
  type AgentAccessScope,
  type Database,
  type Role,
  type UserPermission,
} from '@engram/db';
import { NotFoundError, UnprocessableError } from '../../errors.js';
import type { Delegation } from './delegation.js';

/** Spec 001 §9: a token lives five minutes unless its creator says otherwise. */
export const DEFAULT_CLIENT_SIDE_TOKEN_LIFETIME_MS = 5 * 60 * 1000;

const EXPIRED_TOKEN_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * A token reads `<id>.<secret>`: the id is what lists show and what deletes accept (only a hash of the
 * whole token is stored, so the secret is shown once, on creation).
 */
const SECRET_SEPARATOR = '.';

export type ClientSideTokenPage = { tokens: ClientSideAccessToken[]; hasNextPage: boolean };

/** Who a client-side token acts as: its creator in the token's organization, within its policy and origin. */
export type ClientSideTokenPrincipal = {
  organizationId: string;
  userId: string;
  role: Role;
  customPermissions: string[];
  isPlatformAdmin: boolean;
  delegation: Delegation;
  /** The only origin a browser may use the token from. */
  origin: string;
};

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The token's id, from either the whole token or the id alone. */
const tokenIdOf = (tokenOrId: string) => tokenOrId.split(SECRET_SEPARATOR)[0] ?? tokenOrId;

export function createClientSideAccessTokenService(deps: { db: Database; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /** Issues a token for agents of the organization; the clear token exists only in this return value. */
    async create(
      actor: { organizationId: string; userId: string },
      input: { hostname: string; policy: AgentAccessGrant[]; expiresAt?: Date | undefined },
    ): Promise<{ token: string; record: ClientSideAccessToken }> {
      const expiresAt = input.expiresAt ?? new Date(now().getTime() + DEFAULT_CLIENT_SIDE_TOKEN_LIFETIME_MS);
      if (expiresAt.getTime() <= now().getTime()) throw new UnprocessableError(['body', 'expires_at'], 'The expiration date must be in the future');
      const agentIds = [...new Set(input.policy.map((grant) => grant.id))];
      const found = await Agent.query(db).forOrg(actor.organizationId).whereIn('id', agentIds).select('id');
      if (found.length !== agentIds.length) throw new NotFoundError('Agent');

      // Expired tokens are of no use to anyone; a day after expiry they are forgotten.
      await ClientSideAccessToken.query(db)
        .forOrg(actor.organizationId)
        .where('expiresAt', '<', new Date(now().getTime() - EXPIRED_TOKEN_RETENTION_MS))
        .delete();
      const id = newClientSideAccessTokenId();
      const token = `${id}${SECRET_SEPARATOR}${randomBytes(32).toString('base64url')}`;
      const record = await ClientSideAccessToken.query(db)
        .insert({
          id,
          organizationId: actor.organizationId,
          userId: actor.userId,
          tokenHash: hashToken(token),
          hostname: input.hostname,
          origin: new URL(input.hostname).origin,
          policy: input.policy.map((grant) => ({ id: grant.id, type: 'agent', access: [...new Set(grant.access)] })),
          expiresAt,
        })
        .returning('*');
      return { token, record };
    },

    /** Live tokens of the organization, newest first; `agentId` keeps those whose policy names the agent. */
    async list(organizationId: string, page: { agentId?: string | undefined; offset: number; limit: number }): Promise<ClientSideTokenPage> {
      const query = ClientSideAccessToken.query(db)
        .forOrg(organizationId)
        .where('expiresAt', '>', now())
        .orderBy('createdAt', 'desc')
        .orderBy('id');
      if (page.agentId) query.whereRaw('policy @> ?::jsonb', [JSON.stringify([{ id: page.agentId }])]);
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { tokens: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    /** Deletes by the whole token or by its id (the part lists show). */
    async delete(organizationId: string, tokenOrId: string): Promise<void> {
      const deleted = await ClientSideAccessToken.query(db).forOrg(organizationId).deleteById(tokenIdOf(tokenOrId));
      if (deleted === 0) throw new NotFoundError('Client side access token');
    },

    /** The token's principal while it is live and its creator is still a member; null otherwise. */
    async authenticate(token: string): Promise<ClientSideTokenPrincipal | null> {
      if (!token.startsWith('client_token-') || !token.includes(SECRET_SEPARATOR)) return null;
      const found = await db('client_side_access_tokens')
        .join('organization_members', (join) =>
          join
            .on('organization_members.organization_id', 'client_side_access_tokens.organization_id')
            .andOn('organization_members.user_id', 'client_side_access_tokens.user_id'),
        )
        .join('users', 'users.id', 'client_side_access_tokens.user_id')
        .where('client_side_access_tokens.token_hash', hashToken(token))
        .where('client_side_access_tokens.expires_at', '>', now())
        .first<
          | {
              organizationId: string;
              userId: string;
              origin: string;
              policy: AgentAccessGrant[];
              role: Role;
              customPermissions: string[];
              permissions: UserPermission[];
            }
          | undefined
        >(
          'client_side_access_tokens.organization_id',
          'client_side_access_tokens.user_id',
          'client_side_access_tokens.origin',
          'client_side_access_tokens.policy',
          'organization_members.role',
          'organization_members.custom_permissions',
          'users.permissions',
        );
      if (!found) return null;
      return {
        organizationId: found.organizationId,
        userId: found.userId,
        role: found.role,
        customPermissions: found.customPermissions,
        isPlatformAdmin: found.permissions.includes('platform_admin'),
        delegation: {
          kind: 'agents',
          agents: new Map(found.policy.map((grant) => [grant.id, new Set<AgentAccessScope>(grant.access)])),
        },
        origin: found.origin,
      };
    },

    /** Whether a browser at `origin` holds a live token: only such origins get CORS preflights answered. */
    async isTokenOrigin(origin: string): Promise<boolean> {
      const found = await db('client_side_access_tokens').where({ origin }).where('expires_at', '>', now()).first(db.raw('1 as found'));
      return Boolean(found);
    },
  };
}

export type ClientSideAccessTokenService = ReturnType<typeof createClientSideAccessTokenService>;
