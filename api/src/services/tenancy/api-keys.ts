import { createHash, randomBytes } from 'node:crypto';
import { ApiKey, newId, type Database, type Role, type UserPermission } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import type { TierLimitGuard } from './tier-limits.js';

const KEY_PREFIX = 'sk-engram-';

export type IssuedApiKey = { id: string; key: string; name: string };

export type Principal = {
  organizationId: string;
  userId: string;
  role: Role;
  customPermissions: string[];
  isPlatformAdmin: boolean;
  apiKeyId: string;
};

export type ApiKeyPage = { apiKeys: ApiKey[]; hasNextPage: boolean };

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function createApiKeyService(deps: { db: Database; limits: Pick<TierLimitGuard, 'assertWithinLimit'> }) {
  const { db } = deps;

  async function insert(trx: Database, input: { organizationId: string; userId: string; name: string }) {
    const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const row = await ApiKey.query(trx)
      .insert({
        id: newId('apiKey'),
        organizationId: input.organizationId,
        userId: input.userId,
        name: input.name,
        keyHash: hashApiKey(key),
        keyPrefix: key.slice(0, KEY_PREFIX.length + 6),
      })
      .returning('*');
    return { row, key };
  }

  return {
    /** The clear key exists only in this return value. No tier check: used by bootstrap and tests. */
    async issue(input: { organizationId: string; userId: string; name: string }): Promise<IssuedApiKey> {
      const { row, key } = await insert(db, input);
      return { id: row.id, key, name: row.name };
    },

    /** A key for a member, within the tier's key limit (`maxUsage` when billing is on); the clear key is shown once. */
    async create(input: { organizationId: string; userId: string; name: string }): Promise<{ apiKey: ApiKey; key: string }> {
      return db.transaction(async (trx) => {
        await deps.limits.assertWithinLimit(trx, input.organizationId, 'apiKeys');
        const { row, key } = await insert(trx, input);
        return { apiKey: row, key };
      });
    },

    async list(organizationId: string, page: { offset: number; limit: number; search?: string | undefined }): Promise<ApiKeyPage> {
      const query = ApiKey.query(db).forOrg(organizationId).orderBy('createdAt', 'desc').orderBy('id');
      if (page.search) query.whereILike('name', `%${page.search}%`);
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { apiKeys: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    async get(organizationId: string, apiKeyId: string): Promise<ApiKey> {
      const found = await ApiKey.query(db).forOrg(organizationId).findById(apiKeyId);
      if (!found) throw new NotFoundError('API key');
      return found;
    },

    async delete(organizationId: string, apiKeyId: string): Promise<void> {
      const deleted = await ApiKey.query(db).forOrg(organizationId).deleteById(apiKeyId);
      if (deleted === 0) throw new NotFoundError('API key');
    },

    /** An API key acts with its creator's current role in the key's organization. */
    async authenticate(key: string): Promise<Principal | null> {
      if (!key.startsWith(KEY_PREFIX)) return null;
      const found = await db('api_keys')
        .join('organization_members', (join) =>
          join.on('organization_members.organization_id', 'api_keys.organization_id').andOn('organization_members.user_id', 'api_keys.user_id'),
        )
        .join('users', 'users.id', 'api_keys.user_id')
        .where('api_keys.key_hash', hashApiKey(key))
        .first<{ id: string; organizationId: string; userId: string; role: Role; customPermissions: string[]; permissions: UserPermission[] } | undefined>(
          'api_keys.id',
          'api_keys.organization_id',
          'api_keys.user_id',
          'organization_members.role',
          'organization_members.custom_permissions',
          'users.permissions',
        );
      if (!found) return null;
      return {
        organizationId: found.organizationId,
        userId: found.userId,
        role: found.role,
        customPermissions: found.customPermissions,
        isPlatformAdmin: found.permissions.includes('platform_admin'),
        apiKeyId: found.id,
      };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
