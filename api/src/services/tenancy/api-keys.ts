import { createHash, randomBytes } from 'node:crypto';
import { ApiKey, User, newId, type Database, type Role } from '@engram/db';

const KEY_PREFIX = 'sk-engram-';

export type IssuedApiKey = { id: string; key: string; name: string };

export type Principal = { organizationId: string; userId: string; role: Role; apiKeyId: string };

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function createApiKeyService(deps: { db: Database }) {
  return {
    /** The clear key exists only in this return value. */
    async issue(input: { organizationId: string; userId: string; name: string }): Promise<IssuedApiKey> {
      const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const id = newId('apiKey');
      await ApiKey.query(deps.db).insert({
        id,
        organizationId: input.organizationId,
        userId: input.userId,
        name: input.name,
        keyHash: hashApiKey(key),
        keyPrefix: key.slice(0, KEY_PREFIX.length + 6),
      });
      return { id, key, name: input.name };
    },

    /** An API key acts with its creator's role in the key's organization. */
    async authenticate(key: string): Promise<Principal | null> {
      if (!key.startsWith(KEY_PREFIX)) return null;
      const found = await ApiKey.query(deps.db).findOne({ keyHash: hashApiKey(key) });
      if (!found) return null;
      const user = await User.query(deps.db).forOrg(found.organizationId).findById(found.userId);
      if (!user) return null;
      return { organizationId: found.organizationId, userId: user.id, role: user.role, apiKeyId: found.id };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
