import { randomUUID } from 'node:crypto';
import { BaseModel, TenantModel } from './base-model.js';

/** The grant types an OAuth app may use, by the names spec 000 §7 gives them. */
export const OAUTH_GRANT_TYPES = ['authorization_code', 'refresh_token', 'device_code'] as const;

export type OAuthGrantType = (typeof OAUTH_GRANT_TYPES)[number];

/** `oauth_app-<uuid4>`. */
export function newOAuthAppId(): string {
  return `oauth_app-${randomUUID()}`;
}

/** `oauth_connection-<uuid4>`. */
export function newOAuthConnectionId(): string {
  return `oauth_connection-${randomUUID()}`;
}

/** A third-party app registered by platform admins; platform-wide, not an organization's. */
export class OAuthApp extends BaseModel {
  static override tableName = 'oauth_apps';
  declare id: string;
  declare name: string;
  declare description: string;
  declare logoUrl: string | null;
  declare clientId: string;
  declare clientSecretEnc: string | null;
  declare isPublicClient: boolean;
  declare grantTypes: OAuthGrantType[];
  declare redirectUris: string[];
  declare allowedScopes: string[];
}

/** A user's authorization of an app, for one organization (one provider grant). */
export class OAuthConnection extends TenantModel {
  static override tableName = 'oauth_connections';
  declare id: string;
  declare userId: string;
  declare clientId: string;
  declare grantId: string;
  declare scopes: string[];
  declare expiresAt: Date;
  declare lastUsedAt: Date | null;
  declare revokedAt: Date | null;
}

/** One record of the provider library, keyed by its model name and the hash of its id. */
export class OAuthProviderRecord extends BaseModel {
  static override tableName = 'oauth_provider_records';
  static override idColumn = ['model', 'idHash'];
  static override jsonAttributes = ['payload'];
  static override hasTimestamps = false;
  declare model: string;
  declare idHash: string;
  declare payload: Record<string, unknown>;
  declare grantId: string | null;
  declare userCodeHash: string | null;
  declare uid: string | null;
  declare expiresAt: Date | null;
  declare consumedAt: Date | null;
  declare lastPolledAt: Date | null;
  declare pollIntervalSeconds: number | null;
}
