import type Provider from 'oidc-provider';
import {
  AGENT_ACCESS_SCOPES,
  newOAuthConnectionId,
  OAuthConnection,
  OrganizationMember,
  type AgentAccessScope,
  type Database,
} from '@engram/db';
import { badRequest, NotFoundError } from '../../errors.js';
import type { OAuthAppService } from './oauth-apps.js';

/** What the consent screen shows: the app, what it asks for, and where the user may grant it. */
export type AuthorizationRequestView = {
  app: { name: string; description: string; logoUrl: string | null; clientId: string };
  scopes: AgentAccessScope[];
  organizations: Array<{ id: string; name: string }>;
};

export type AuthorizationDecision = { approve: true; organizationId: string } | { approve: false };

const epochSeconds = () => Math.floor(Date.now() / 1000);

/** The scopes of a request, in the spec's order; the provider has already refused any other. */
function requestedScopes(scope: unknown): AgentAccessScope[] {
  const asked = new Set(typeof scope === 'string' ? scope.split(' ') : []);
  return AGENT_ACCESS_SCOPES.filter((known) => asked.has(known));
}

/** A device's user code as people type it: case and separators do not matter (the library's own rule). */
export function normalizeUserCode(input: string): string {
  return input.toUpperCase().replace(/\W/g, '');
}

/**
 * The user's side of an authorization: the console's consent screen (authorization code flow) and
 * device verification page (device flow). Approving creates a provider grant for the user, the
 * chosen organization and the requested scopes, and the connection that lists it.
 */
export function createOAuthAuthorizationService(deps: { db: Database; provider: Provider; apps: Pick<OAuthAppService, 'findByClientId'> }) {
  const { db, provider, apps } = deps;

  async function organizationsOf(userId: string): Promise<Array<{ id: string; name: string }>> {
    return OrganizationMember.query(db)
      .join('organizations', 'organizations.id', 'organization_members.organization_id')
      .where('organization_members.user_id', userId)
      .orderBy('organizations.name')
      .select('organizations.id', 'organizations.name')
      .castTo<Array<{ id: string; name: string }>>();
  }

  async function describe(userId: string, clientId: string, scope: unknown): Promise<AuthorizationRequestView> {
    const app = await apps.findByClientId(clientId);
    if (!app) throw new NotFoundError('OAuth app');
    return {
      app: { name: app.name, description: app.description, logoUrl: app.logoUrl, clientId: app.clientId },
      scopes: requestedScopes(scope),
      organizations: await organizationsOf(userId),
    };
  }

  /** Grants the app the scopes for the user in one of their organizations; returns the grant id. */
  async function grant(userId: string, organizationId: string, clientId: string, scopes: AgentAccessScope[]): Promise<string> {
    const member = await OrganizationMember.query(db).forOrg(organizationId).findOne({ userId });
    if (!member) throw new NotFoundError('Organization');
    const providerGrant = new provider.Grant({ accountId: userId, clientId });
    if (scopes.length > 0) providerGrant.addOIDCScope(scopes.join(' '));
    const grantId = await providerGrant.save();
    await OAuthConnection.query(db).insert({
      id: newOAuthConnectionId(),
      organizationId,
      userId,
      clientId,
      grantId,
      scopes,
      expiresAt: new Date(Date.now() + providerGrant.expiration * 1000),
    });
    return grantId;
  }

  async function pendingInteraction(interactionId: string) {
    const interaction = await provider.Interaction.find(interactionId);
    if (!interaction) throw new NotFoundError('Authorization request');
    return interaction;
  }

  async function pendingDeviceCode(userCode: string) {
    const code = await provider.DeviceCode.findByUserCode(normalizeUserCode(userCode), { ignoreExpiration: true });
    if (!code) throw badRequest('invalidUserCode', 'This code is not valid; check it against the one your device shows');
    if (code.isExpired) throw badRequest('userCodeExpired', 'This code has expired; start again on your device');
    if (code.accountId || code.error) throw badRequest('userCodeAlreadyUsed', 'This code has already been used');
    return { code, clientId: String(code.clientId) };
  }

  return {
    /** The consent screen of an authorization request the provider handed to the console. */
    async authorizationRequest(userId: string, interactionId: string): Promise<AuthorizationRequestView> {
      const interaction = await pendingInteraction(interactionId);
      return describe(userId, String(interaction.params.client_id), interaction.params.scope);
    },

    /** Records the user's answer; the browser then goes back to the provider, which redirects to the app. */
    async decideAuthorization(userId: string, interactionId: string, decision: AuthorizationDecision): Promise<{ redirectTo: string }> {
      const interaction = await pendingInteraction(interactionId);
      if (decision.approve) {
        const clientId = String(interaction.params.client_id);
        const grantId = await grant(userId, decision.organizationId, clientId, requestedScopes(interaction.params.scope));
        interaction.result = { login: { accountId: userId }, consent: { grantId } };
      } else {
        interaction.result = { error: 'access_denied', error_description: 'The user denied the authorization request' };
      }
      await interaction.save(interaction.exp - epochSeconds());
      return { redirectTo: interaction.returnTo };
    },

    /** What the device verification page shows for a user code. */
    async deviceRequest(userId: string, userCode: string): Promise<AuthorizationRequestView> {
      const { code, clientId } = await pendingDeviceCode(userCode);
      return describe(userId, clientId, code.params?.scope);
    },

    /** Approves or denies a device; its next poll gets the tokens, or `access_denied`. */
    async decideDevice(userId: string, userCode: string, decision: AuthorizationDecision): Promise<void> {
      const { code, clientId } = await pendingDeviceCode(userCode);
      if (decision.approve) {
        const scopes = requestedScopes(code.params?.scope);
        const grantId = await grant(userId, decision.organizationId, clientId, scopes);
        Object.assign(code, { accountId: userId, grantId, scope: scopes.join(' '), authTime: epochSeconds() });
      } else {
        Object.assign(code, { error: 'access_denied', errorDescription: 'The user denied the device' });
      }
      await code.save();
    },
  };
}

export type OAuthAuthorizationService = ReturnType<typeof createOAuthAuthorizationService>;
