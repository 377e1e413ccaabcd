import { createSign } from 'node:crypto';
import { ModelCallError } from './errors.js';

/** The fields of a Google service account's JSON key that the token exchange needs. */
export type ServiceAccountKey = { client_email: string; private_key: string; private_key_id?: string; token_uri: string; project_id?: string };

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const ASSERTION_LIFETIME_SECONDS = 3600;
/** A token is renewed this long before Google says it expires, so no request carries one that expires in flight. */
const RENEW_BEFORE_MS = 60_000;

/** Reads a service account's JSON key; a key that is not one is the caller's mistake, said in words. */
export function parseServiceAccountKey(json: string, providerLabel: string): ServiceAccountKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new ModelCallError('authentication', `${providerLabel}: the credentials are not a service account's JSON key`);
  }
  const key = parsed as Partial<ServiceAccountKey> | null;
  const missing = (['client_email', 'private_key', 'token_uri'] as const).filter((field) => typeof key?.[field] !== 'string');
  if (missing.length > 0) {
    throw new ModelCallError('authentication', `${providerLabel}: the service account's JSON key lacks ${missing.join(', ')}`);
  }
  return key as ServiceAccountKey;
}

const base64Url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** The signed JWT that the OAuth 2.0 JWT bearer grant (RFC 7523) exchanges for an access token. */
function signedAssertion(key: ServiceAccountKey, nowSeconds: number): string {
  const header = base64Url(JSON.stringify({ alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) }));
  const claims = base64Url(
    JSON.stringify({ iss: key.client_email, scope: CLOUD_PLATFORM_SCOPE, aud: key.token_uri, iat: nowSeconds, exp: nowSeconds + ASSERTION_LIFETIME_SECONDS }),
  );
  const signer = createSign('RSA-SHA256');
  signer.update(`${header}.${claims}`);
  return `${header}.${claims}.${signer.sign(key.private_key).toString('base64url')}`;
}

/**
 * Access tokens for a service account, from the token endpoint its key names (`token_uri`), renewed before they
 * expire. Google's own auth library always uses Google's endpoint; the key's is the one its issuer documents.
 */
export function serviceAccountTokens(key: ServiceAccountKey, options: { fetch?: typeof fetch; providerLabel: string }) {
  const send = options.fetch ?? fetch;
  let current: { token: string; expiresAt: number } | null = null;
  let pending: Promise<string> | null = null;

  async function exchange(): Promise<string> {
    const now = Date.now();
    const response = await send(key.token_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: signedAssertion(key, Math.floor(now / 1000)),
      }).toString(),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
    if (!response.ok || typeof body.access_token !== 'string') {
      const reason = body.error_description ?? body.error ?? `HTTP ${response.status}`;
      throw new ModelCallError('authentication', `${options.providerLabel}: the service account ${key.client_email} was refused a token: ${reason}`, response.status);
    }
    current = { token: body.access_token, expiresAt: now + (body.expires_in ?? ASSERTION_LIFETIME_SECONDS) * 1000 - RENEW_BEFORE_MS };
    return body.access_token;
  }

  return {
    async accessToken(): Promise<string> {
      if (current && current.expiresAt > Date.now()) return current.token;
      pending ??= exchange().finally(() => {
        pending = null;
      });
      return pending;
    },
  };
}
