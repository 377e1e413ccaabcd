import { User, type Database, type SecretBox } from '@engram/db';
import { createConnectedAppService } from './connected-apps.js';
import { createOAuthAccessTokenAuthenticator } from './oauth-access-tokens.js';
import { createOAuthAppService } from './oauth-apps.js';
import { createOAuthAuthorizationService } from './oauth-authorizations.js';
import { createOAuthProvider } from './oauth-provider.js';
import { createProviderAdapterFactory } from './provider-adapter.js';

export type OAuthServiceDeps = {
  db: Database;
  secrets: SecretBox;
  /** The provider's issuer identifier: the public URL of `/oauth`. */
  issuer: string;
  onServerError?(error: Error): void;
};

/** Engram as an OAuth provider: its apps, the protocol (oidc-provider), users' authorizations and connections. */
export function createOAuthServices(deps: OAuthServiceDeps) {
  const { db } = deps;
  const oauthApps = createOAuthAppService({ db, secrets: deps.secrets });
  const oauthProvider = createOAuthProvider({
    issuer: deps.issuer,
    adapter: createProviderAdapterFactory({ db, findClient: (clientId) => oauthApps.clientMetadata(clientId) }),
    accountExists: async (userId) => (await User.query(db).findById(userId)) !== undefined,
    onServerError: deps.onServerError,
  });
  return {
    oauthApps,
    oauthProvider,
    oauthAuthorizations: createOAuthAuthorizationService({ db, provider: oauthProvider, apps: oauthApps }),
    oauthAccessTokens: createOAuthAccessTokenAuthenticator({ db, provider: oauthProvider }),
    connectedApps: createConnectedAppService({ db }),
  };
}
