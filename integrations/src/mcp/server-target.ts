import { McpServer, type Database, type SecretBox } from '@engram/db';
import type { EgressPolicy } from '../egress/index.js';
import type { McpServerTarget } from './connection-pool.js';
import type { McpStdioPolicy } from './stdio-sandbox.js';
import { createMcpOAuthProvider, type McpOAuthState, type OAuthClientInformationMixed, type OAuthTokens } from './oauth.js';
import type { McpTransportConfig } from './transport-config.js';

/** The credentials of a server, opened. */
export type McpServerSecrets = {
  authToken: string | null;
  customHeaders: Record<string, string>;
  env: Record<string, string>;
  oauthTokens: OAuthTokens | null;
  oauthClientInformation: OAuthClientInformationMixed | null;
};

function openJson<T>(secrets: SecretBox, sealed: string | null): T | null {
  return sealed === null ? null : (JSON.parse(secrets.decrypt(sealed)) as T);
}

export function openServerSecrets(server: McpServer, secrets: SecretBox): McpServerSecrets {
  return {
    authToken: server.authTokenEnc === null ? null : secrets.decrypt(server.authTokenEnc),
    customHeaders: openJson<Record<string, string>>(secrets, server.customHeadersEnc) ?? {},
    env: openJson<Record<string, string>>(secrets, server.envEnc) ?? {},
    oauthTokens: openJson<OAuthTokens>(secrets, server.oauthTokensEnc),
    oauthClientInformation: openJson<OAuthClientInformationMixed>(secrets, server.oauthClientInformationEnc),
  };
}

/**
 * The headers a remote server gets: custom headers, then the auth header. A bare token in
 * `Authorization` is sent as a bearer token, as users usually paste only the token.
 */
export function requestHeaders(authHeader: string | null, authToken: string | null, customHeaders: Record<string, string>): Record<string, string> {
  const headers = { ...customHeaders };
  if (authToken) {
    const name = authHeader || 'Authorization';
    headers[name] = name.toLowerCase() === 'authorization' && !/\s/.test(authToken.trim()) ? `Bearer ${authToken.trim()}` : authToken;
  }
  return headers;
}

export type ServerTargetDeps = {
  db: Database;
  secrets: SecretBox;
  egress: Pick<EgressPolicy, 'fetchFor'>;
  /** Who may run stdio servers, and the sandbox they run in. */
  stdio: Pick<McpStdioPolicy, 'launcherFor'>;
};

/**
 * Builds what the connection pool needs from a stored server. An OAuth-connected server gets an auth
 * provider that refreshes its access token and stores the refreshed tokens back, sealed.
 */
export function createServerTargets(deps: ServerTargetDeps) {
  const { db, secrets } = deps;

  function oauthProvider(server: McpServer, opened: McpServerSecrets) {
    const registered = opened.oauthClientInformation as { redirect_uris?: string[] } | null;
    return createMcpOAuthProvider({
      // Only used if the tokens can no longer be refreshed, and then never followed: the connection
      // fails as needing authorization, and the user connects the server again.
      redirectUrl: registered?.redirect_uris?.[0] ?? 'http://localhost/oauth/callback',
      stored: { tokens: opened.oauthTokens ?? undefined, clientInformation: opened.oauthClientInformation ?? undefined },
      save: async (update: McpOAuthState) => {
        const patch: Partial<McpServer> = {};
        if ('tokens' in update) patch.oauthTokensEnc = update.tokens ? secrets.encrypt(JSON.stringify(update.tokens)) : null;
        if ('clientInformation' in update) {
          patch.oauthClientInformationEnc = update.clientInformation ? secrets.encrypt(JSON.stringify(update.clientInformation)) : null;
        }
        if (Object.keys(patch).length > 0) await McpServer.query(db).forOrg(server.organizationId).findById(server.id).patch(patch);
      },
    });
  }

  return {
    targetFor(server: McpServer): McpServerTarget {
      const opened = openServerSecrets(server, secrets);
      let config: McpTransportConfig;
      if (server.serverType === 'stdio') {
        config = { type: 'stdio', command: server.command ?? '', args: server.args, env: opened.env, launch: deps.stdio.launcherFor(server.organizationId) };
      } else {
        config = {
          type: server.serverType,
          url: server.serverUrl ?? '',
          headers: requestHeaders(server.authHeader, opened.authToken, opened.customHeaders),
          ...(opened.oauthTokens ? { authProvider: oauthProvider(server, opened) } : {}),
          fetch: deps.egress.fetchFor({ organizationId: server.organizationId }),
        };
      }
      return { serverId: server.id, serverName: server.serverName, config, credentialVersion: server.oauthTokensEnc ?? '' };
    },
  };
}
