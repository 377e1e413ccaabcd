import type Provider from 'oidc-provider';
import { AGENT_ACCESS_SCOPES, OAuthConnection, type AgentAccessScope, type Database, type Role, type UserPermission } from '@engram/db';
import type { Delegation } from '../access-tokens/delegation.js';

/** oidc-provider's opaque tokens: 256 random bits, base64url. */
const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** How stale `lastUsedAt` may get before a request writes it again. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Who an OAuth access token acts as: its user, in the organization it was granted for, within its scopes. */
export type OAuthPrincipal = {
  organizationId: string;
  userId: string;
  role: Role;
  customPermissions: string[];
  isPlatformAdmin: boolean;
  delegation: Delegation;
};

/** Accepts the provider's access tokens on `/v1` while their connection is live and their user still a member. */
export function createOAuthAccessTokenAuthenticator(deps: { db: Database; provider: Provider }) {
  const { db, provider } = deps;
  return {
    async authenticate(token: string): Promise<OAuthPrincipal | null> {
      if (!OPAQUE_TOKEN.test(token)) return null;
      const accessToken = await provider.AccessToken.find(token);
      if (!accessToken?.grantId || !accessToken.accountId) return null;
      const found = await db('oauth_connections')
        .join('organization_members', (join) =>
          join
            .on('organization_members.organization_id', 'oauth_connections.organization_id')
            .andOn('organization_members.user_id', 'oauth_connections.user_id'),
        )
        .join('users', 'users.id', 'oauth_connections.user_id')
        .where('oauth_connections.grant_id', accessToken.grantId)
        .where('oauth_connections.user_id', accessToken.accountId)
        .where('oauth_connections.client_id', accessToken.clientId)
        .whereNull('oauth_connections.revoked_at')
        .first<
          | { id: string; organizationId: string; userId: string; lastUsedAt: Date | null; role: Role; customPermissions: string[]; permissions: UserPermission[] }
          | undefined
        >(
          'oauth_connections.id',
          'oauth_connections.organization_id',
          'oauth_connections.user_id',
          'oauth_connections.last_used_at',
          'organization_members.role',
          'organization_members.custom_permissions',
          'users.permissions',
        );
      if (!found) return null;
      if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
        await OAuthConnection.query(db).forOrg(found.organizationId).findById(found.id).patch({ lastUsedAt: new Date() });
      }
      const granted = accessToken.scopes;
      return {
        organizationId: found.organizationId,
        userId: found.userId,
        role: found.role,
        customPermissions: found.customPermissions,
        isPlatformAdmin: found.permissions.includes('platform_admin'),
        delegation: { kind: 'scopes', scopes: new Set<AgentAccessScope>(AGENT_ACCESS_SCOPES.filter((scope) => granted.has(scope))) },
      };
    },
  };
}
