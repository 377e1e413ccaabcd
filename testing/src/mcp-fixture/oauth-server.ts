import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A minimal OAuth 2.1 authorization server for the fixture: protected-resource and server metadata,
 * dynamic client registration, an authorize endpoint that approves at once (redirecting with a
 * code), and a token endpoint that checks PKCE. Enough for an MCP client's authorization-code flow.
 */
export function createFixtureOAuth(baseUrl: string, resourcePath: string) {
  const codes = new Map<string, { clientId: string; challenge: string; redirectUri: string }>();
  const accessTokens = new Set<string>();
  const token = () => randomBytes(24).toString('base64url');

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  return {
    /** Whether the request carries an access token this server issued. */
    authorized(req: IncomingMessage): boolean {
      const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      return Boolean(match && accessTokens.has(match[1]!));
    },

    refuse(res: ServerResponse): void {
      res
        .writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${baseUrl}/.well-known/oauth-protected-resource${resourcePath}"`, 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'invalid_token' }));
    },

    /** Answers the OAuth endpoints; false for any other request. */
    handle(req: IncomingMessage, res: ServerResponse, url: URL, body: string): boolean {
      if (req.method === 'GET' && url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
        json(res, 200, { resource: `${baseUrl}${resourcePath}`, authorization_servers: [baseUrl] });
        return true;
      }
      if (req.method === 'GET' && url.pathname.startsWith('/.well-known/oauth-authorization-server')) {
        json(res, 200, {
          issuer: baseUrl,
          authorization_endpoint: `${baseUrl}/authorize`,
          token_endpoint: `${baseUrl}/token`,
          registration_endpoint: `${baseUrl}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
        });
        return true;
      }
      if (req.method === 'POST' && url.pathname === '/register') {
        json(res, 201, { ...JSON.parse(body), client_id: `client-${token()}`, client_id_issued_at: Math.floor(Date.now() / 1000) });
        return true;
      }
      if (req.method === 'GET' && url.pathname === '/authorize') {
        const redirectUri = url.searchParams.get('redirect_uri') ?? '';
        const code = token();
        codes.set(code, { clientId: url.searchParams.get('client_id') ?? '', challenge: url.searchParams.get('code_challenge') ?? '', redirectUri });
        const target = new URL(redirectUri);
        target.searchParams.set('code', code);
        const state = url.searchParams.get('state');
        if (state) target.searchParams.set('state', state);
        res.writeHead(302, { location: target.href }).end();
        return true;
      }
      if (req.method === 'POST' && url.pathname === '/token') {
        const form = new URLSearchParams(body);
        const grant = codes.get(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (form.get('grant_type') !== 'authorization_code' || !grant || grant.challenge !== challenge || grant.redirectUri !== form.get('redirect_uri')) {
          json(res, 400, { error: 'invalid_grant' });
          return true;
        }
        codes.delete(form.get('code')!);
        const accessToken = token();
        accessTokens.add(accessToken);
        json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, refresh_token: token() });
        return true;
      }
      return false;
    },
  };
}
