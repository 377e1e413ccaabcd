import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { classifyMcpFailure, McpServerError } from './errors.js';

export type { OAuthClientInformationMixed, OAuthTokens };

/** What an OAuth flow keeps between its steps; the caller stores it (sealed). */
export type McpOAuthState = {
  clientInformation?: OAuthClientInformationMixed | undefined;
  tokens?: OAuthTokens | undefined;
  codeVerifier?: string | undefined;
};

export type McpOAuthProviderOptions = {
  redirectUrl: string;
  /** The OAuth `state` sent with the authorization request. */
  state?: string;
  stored: McpOAuthState;
  /** Persists what the SDK learns (client registration, tokens, PKCE verifier) as it learns it. */
  save(update: McpOAuthState): Promise<void>;
};

function clientMetadata(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: 'Engram',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    // A public client: PKCE protects the code, and no client secret has to be kept.
    token_endpoint_auth_method: 'none',
  };
}

/**
 * An `OAuthClientProvider` over state the caller persists. `redirectToAuthorization` only records
 * the URL: the browser is sent there by whoever started the flow (the connect stream).
 */
export function createMcpOAuthProvider(options: McpOAuthProviderOptions): OAuthClientProvider & { authorizationUrl(): URL | undefined } {
  const stored: McpOAuthState = { ...options.stored };
  let authorizationUrl: URL | undefined;
  const save = async (update: McpOAuthState) => {
    Object.assign(stored, update);
    await options.save(update);
  };
  return {
    get redirectUrl() {
      return options.redirectUrl;
    },
    get clientMetadata() {
      return clientMetadata(options.redirectUrl);
    },
    ...(options.state ? { state: () => options.state as string } : {}),
    clientInformation: () => stored.clientInformation,
    saveClientInformation: (clientInformation) => save({ clientInformation }),
    tokens: () => stored.tokens,
    saveTokens: (tokens) => save({ tokens }),
    saveCodeVerifier: (codeVerifier) => save({ codeVerifier }),
    codeVerifier: () => {
      if (!stored.codeVerifier) throw new Error('No PKCE code verifier was saved for this authorization');
      return stored.codeVerifier;
    },
    redirectToAuthorization: (url) => {
      authorizationUrl = url;
    },
    invalidateCredentials: async (scope) => {
      if (scope === 'all' || scope === 'client') await save({ clientInformation: undefined });
      if (scope === 'all' || scope === 'tokens') await save({ tokens: undefined });
      if (scope === 'all' || scope === 'verifier') await save({ codeVerifier: undefined });
    },
    authorizationUrl: () => authorizationUrl,
  };
}

function oauthFailure(error: unknown, serverName: string): McpServerError {
  const classified = classifyMcpFailure(error, serverName);
  if (classified && classified.kind !== 'protocol') return classified;
  return new McpServerError('authorization_required', `OAuth with MCP server '${serverName}' failed: ${(error as Error).message}`);
}

/**
 * Begins the authorization-code flow: discovers the server's authorization server, registers Engram
 * as a client when needed, and returns the URL the user must visit. Saves the PKCE verifier and the
 * registration through `provider`. Discovery, registration and token requests go through `fetchFn`
 * (the egress policy's for the organization).
 */
export async function beginMcpAuthorization(
  provider: ReturnType<typeof createMcpOAuthProvider>,
  serverUrl: string,
  serverName: string,
  fetchFn: typeof fetch,
): Promise<URL> {
  let result: Awaited<ReturnType<typeof auth>>;
  try {
    result = await auth(provider, { serverUrl, fetchFn });
  } catch (error) {
    throw oauthFailure(error, serverName);
  }
  const url = provider.authorizationUrl();
  if (result !== 'REDIRECT' || !url) throw new McpServerError('protocol', `MCP server '${serverName}' issued tokens without an authorization step`);
  return url;
}

/** Exchanges the authorization code the callback received for tokens (saved through `provider`). */
export async function completeMcpAuthorization(
  provider: OAuthClientProvider,
  serverUrl: string,
  serverName: string,
  authorizationCode: string,
  fetchFn: typeof fetch,
): Promise<void> {
  try {
    await auth(provider, { serverUrl, authorizationCode, fetchFn });
  } catch (error) {
    throw oauthFailure(error, serverName);
  }
}
