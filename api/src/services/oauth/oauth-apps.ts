import { randomBytes } from 'node:crypto';
import { UniqueViolationError } from 'objection';
import type { AdapterPayload } from 'oidc-provider';
import { AGENT_ACCESS_SCOPES, newOAuthAppId, OAuthApp, OAuthConnection, type Database, type OAuthGrantType, type SecretBox } from '@engram/db';
import { badRequest, NotFoundError, UnprocessableError } from '../../errors.js';

/** RFC 8628's grant type, which spec 000 calls `device_code`. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

const PROTOCOL_GRANT_TYPES: Record<OAuthGrantType, string> = {
  authorization_code: 'authorization_code',
  refresh_token: 'refresh_token',
  device_code: DEVICE_CODE_GRANT_TYPE,
};

export type OAuthAppInput = {
  name: string;
  description?: string | undefined;
  logoUrl?: string | null | undefined;
  /** Generated unless given. */
  clientId?: string | undefined;
  isPublicClient: boolean;
  grantTypes: OAuthGrantType[];
  redirectUris: string[];
  allowedScopes: string[];
};

/** A created app; the client secret (confidential clients only) exists in clear only here. */
export type CreatedOAuthApp = { app: OAuthApp; clientSecret: string | null };

/** OAuth apps (spec 000 §3): registered by platform admins, used by any user through the provider. */
export function createOAuthAppService(deps: { db: Database; secrets: SecretBox }) {
  const { db, secrets } = deps;

  function assertValid(input: OAuthAppInput): void {
    if (!input.name.trim()) throw new UnprocessableError(['body', 'name'], 'Name is required');
    if (input.grantTypes.length === 0) throw new UnprocessableError(['body', 'grantTypes'], 'At least one grant type is required');
    const unknownScopes = input.allowedScopes.filter((scope) => !(AGENT_ACCESS_SCOPES as readonly string[]).includes(scope));
    if (unknownScopes.length > 0) throw new UnprocessableError(['body', 'allowedScopes'], `Unknown scopes: ${unknownScopes.join(', ')}`);
    if (input.grantTypes.includes('authorization_code') && input.redirectUris.length === 0) {
      throw new UnprocessableError(['body', 'redirectUris'], 'The authorization code grant needs at least one redirect URI');
    }
  }

  async function find(id: string): Promise<OAuthApp> {
    const app = await OAuthApp.query(db).findById(id);
    if (!app) throw new NotFoundError('OAuth app');
    return app;
  }

  return {
    async create(input: OAuthAppInput): Promise<CreatedOAuthApp> {
      assertValid(input);
      const clientSecret = input.isPublicClient ? null : randomBytes(32).toString('base64url');
      try {
        const app = await OAuthApp.query(db)
          .insert({
            id: newOAuthAppId(),
            name: input.name.trim(),
            description: input.description ?? '',
            logoUrl: input.logoUrl ?? null,
            clientId: input.clientId ?? `engram-${randomBytes(12).toString('hex')}`,
            clientSecretEnc: clientSecret === null ? null : secrets.encrypt(clientSecret),
            isPublicClient: input.isPublicClient,
            grantTypes: [...new Set(input.grantTypes)],
            redirectUris: input.redirectUris,
            allowedScopes: [...new Set(input.allowedScopes)],
          })
          .returning('*');
        return { app, clientSecret };
      } catch (error) {
        if (error instanceof UniqueViolationError) throw badRequest('clientIdAlreadyExists', 'An OAuth app with this client id already exists');
        throw error;
      }
    },

    async list(page: { offset: number; limit: number; search?: string | undefined }): Promise<{ apps: OAuthApp[]; hasNextPage: boolean }> {
      const query = OAuthApp.query(db).orderBy('createdAt', 'desc').orderBy('id');
      if (page.search) {
        query.where((where) => {
          where.whereILike('name', `%${page.search}%`).orWhere('clientId', page.search!);
        });
      }
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { apps: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    get: find,

    /** Replaces what an admin may edit; the client id and secret stay. */
    async update(id: string, input: Omit<OAuthAppInput, 'clientId'>): Promise<OAuthApp> {
      assertValid(input);
      const app = await find(id);
      const becomesConfidential = !input.isPublicClient && app.isPublicClient;
      return app.$query(db).patchAndFetch({
        name: input.name.trim(),
        description: input.description ?? '',
        logoUrl: input.logoUrl ?? null,
        isPublicClient: input.isPublicClient,
        // A client turning public holds no secret; one turning confidential gets one through regenerate-secret.
        clientSecretEnc: input.isPublicClient ? null : becomesConfidential ? secrets.encrypt(randomBytes(32).toString('base64url')) : app.clientSecretEnc,
        grantTypes: [...new Set(input.grantTypes)],
        redirectUris: input.redirectUris,
        allowedScopes: [...new Set(input.allowedScopes)],
      });
    },

    /** Deletes the app and every user's connection to it, so its tokens stop working. */
    async delete(id: string): Promise<void> {
      const app = await find(id);
      await db.transaction(async (trx) => {
        await OAuthConnection.query(trx).where({ clientId: app.clientId }).delete();
        await app.$query(trx).delete();
      });
    },

    /** A new secret for a confidential app; the old one stops authenticating at once. */
    async regenerateSecret(id: string): Promise<CreatedOAuthApp> {
      const app = await find(id);
      if (app.isPublicClient) throw badRequest('publicClient', 'A public client has no secret to regenerate');
      const clientSecret = randomBytes(32).toString('base64url');
      return { app: await app.$query(db).patchAndFetch({ clientSecretEnc: secrets.encrypt(clientSecret) }), clientSecret };
    },

    /** The app's secret in clear, for admins; null for public clients. */
    secretOf(app: OAuthApp): string | null {
      return app.clientSecretEnc === null ? null : secrets.decrypt(app.clientSecretEnc);
    },

    async findByClientId(clientId: string): Promise<OAuthApp | undefined> {
      return OAuthApp.query(db).findOne({ clientId });
    },

    /** The app as the provider library sees a client: its grants, redirect URIs, scopes and how it authenticates. */
    async clientMetadata(clientId: string): Promise<AdapterPayload | undefined> {
      const app = await OAuthApp.query(db).findOne({ clientId });
      if (!app) return undefined;
      return {
        client_id: app.clientId,
        ...(app.clientSecretEnc ? { client_secret: secrets.decrypt(app.clientSecretEnc) } : {}),
        client_name: app.name,
        grant_types: app.grantTypes.map((grantType) => PROTOCOL_GRANT_TYPES[grantType]),
        response_types: app.grantTypes.includes('authorization_code') ? ['code'] : [],
        redirect_uris: app.redirectUris,
        // Public clients hold no secret; the provider then requires PKCE of them.
        token_endpoint_auth_method: app.isPublicClient ? 'none' : 'client_secret_basic',
        scope: app.allowedScopes.join(' '),
      };
    },
  };
}

export type OAuthAppService = ReturnType<typeof createOAuthAppService>;
