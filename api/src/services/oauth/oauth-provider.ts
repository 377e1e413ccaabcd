import './quiet-runtime-warning.js';
import { generateKeyPairSync } from 'node:crypto';
import Provider, { type AdapterFactory, type JWK, type KoaContextWithOIDC } from 'oidc-provider';
import { AGENT_ACCESS_SCOPES } from '@engram/db';

/** Where the console shows the consent screen for an authorization request (a console-shell page). */
export const consentPagePath = (interactionId: string) => `/authorize/${encodeURIComponent(interactionId)}`;

/** Where the console's device verification page lives (a console-shell page). */
export const DEVICE_VERIFICATION_PAGE_PATH = '/device';

const DAY_SECONDS = 24 * 60 * 60;

export type OAuthProviderDeps = {
  /** `<public URL>/oauth`: the provider is mounted there (routes/console/oauth-protocol.ts). */
  issuer: string;
  adapter: AdapterFactory;
  accountExists(userId: string): Promise<boolean>;
  onServerError?(error: Error): void;
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * Engram's OAuth 2.1 authorization server, on oidc-provider: authorization code with PKCE, the device
 * authorization grant (RFC 8628), rotating refresh tokens and revocation. Scopes are the agent access
 * scopes; access tokens are opaque and checked on `/v1` by the OAuth access-token authenticator.
 * Engram issues no ID tokens (there is no `openid` scope), so nothing it hands out is signed.
 */
export function createOAuthProvider(deps: OAuthProviderDeps): Provider {
  // The library wants a signing key even when it signs nothing; one per process is enough for that.
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });

  const provider = new Provider(deps.issuer, {
    adapter: deps.adapter,
    async findAccount(_ctx, accountId) {
      if (!(await deps.accountExists(accountId))) return undefined;
      return { accountId, claims: () => ({ sub: accountId }) };
    },
    scopes: [...AGENT_ACCESS_SCOPES],
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
    jwks: { keys: [{ ...(signingKey as JWK), kid: 'engram-oauth', use: 'sig', alg: 'ES256' }] },
    features: {
      devInteractions: { enabled: false },
      deviceFlow: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
    },
    routes: {
      authorization: '/authorize',
      token: '/token',
      device_authorization: '/device/code',
      code_verification: '/device',
      revocation: '/revoke',
      jwks: '/jwks',
    },
    interactions: { url: async (_ctx, interaction) => consentPagePath(interaction.uid) },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Every refresh rotates, and presenting a rotated token again revokes the whole grant.
    rotateRefreshToken: true,
    // The provider's own session only carries one authorization request; tokens outlive it.
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: 60 * 60,
      AuthorizationCode: 60,
      DeviceCode: 10 * 60,
      Grant: 365 * DAY_SECONDS,
      Interaction: 60 * 60,
      RefreshToken: 30 * DAY_SECONDS,
      Session: 60 * 60,
    },
    // Browser apps (public clients) may call the token endpoint from the origins they redirect to.
    clientBasedCORS(_ctx, origin, client) {
      return client.redirectUris?.some((uri) => URL.canParse(uri) && new URL(uri).origin === origin) ?? false;
    },
    async renderError(ctx: KoaContextWithOIDC, out) {
      ctx.type = 'html';
      const details = Object.entries(out)
        .map(([key, value]) => `<p><strong>${escapeHtml(key)}</strong>: ${escapeHtml(String(value))}</p>`)
        .join('');
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization failed</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5">
<h1>The authorization request failed</h1>${details}<p><a href="/">Back to Engram</a></p></body></html>`;
    },
  });
  provider.on('server_error', (_ctx: unknown, error: Error) => deps.onServerError?.(error));
  provider.use(async (ctx, next) => {
    await next();
    const { oidc } = ctx as Partial<KoaContextWithOIDC>;
    const grantType = oidc?.params?.grant_type;
    const body = ctx.body as { error?: string; code_challenge_methods_supported?: string[]; scopes_supported?: string[] } | undefined;
    // RFC 6749 §5.2 (and spec 000 §8) call a grant type the client was not registered for
    // `unauthorized_client`; the library answers it as a generic `invalid_request`.
    if (oidc?.route === 'token' && body?.error === 'invalid_request' && oidc.client && typeof grantType === 'string' && !oidc.client.grantTypeAllowed(grantType)) {
      ctx.body = { error: 'unauthorized_client', error_description: 'this client is not registered for the requested grant type' };
    }
    if (oidc?.route === 'discovery' && body) {
      // `plain` challenges are accepted (routes/console/oauth-protocol.ts hands them on as S256), and no
      // client may ask for `openid` (their scopes are agent access scopes only), which the library always lists.
      body.code_challenge_methods_supported = ['S256', 'plain'];
      body.scopes_supported = [...AGENT_ACCESS_SCOPES];
    }
  });
  return provider;
}
