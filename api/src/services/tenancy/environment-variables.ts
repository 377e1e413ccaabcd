import { randomUUID } from 'node:crypto';
import { EnvironmentVariable, type Database, type SecretBox } from '@engram/db';
import { UniqueViolationError } from 'objection';
import { NotFoundError, UnprocessableError, badRequest } from '../../errors.js';

/** Spec 000 §5: letters, digits and underscore only. */
const ENVIRONMENT_VARIABLE_KEY = /^[A-Za-z0-9_]+$/;

function assertKey(key: string): void {
  if (!ENVIRONMENT_VARIABLE_KEY.test(key)) {
    throw new UnprocessableError(['body', 'key'], 'Key must contain only letters, digits and underscores');
  }
}

/** Organization-wide variables for tool execution; values are sealed at rest and never read back out. */
export function createEnvironmentVariableService(deps: { db: Database; secrets: SecretBox }) {
  const { db, secrets } = deps;

  return {
    async list(
      organizationId: string,
      page: { offset: number; limit: number; search?: string | undefined },
    ): Promise<{ variables: EnvironmentVariable[]; hasNextPage: boolean }> {
      const query = EnvironmentVariable.query(db).forOrg(organizationId).orderBy('key');
      if (page.search) query.whereILike('key', `%${page.search}%`);
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { variables: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    async getByKey(organizationId: string, key: string): Promise<EnvironmentVariable> {
      const found = await EnvironmentVariable.query(db).forOrg(organizationId).findOne({ key });
      if (!found) throw new NotFoundError('Environment variable');
      return found;
    },

    async create(organizationId: string, input: { key: string; value: string }): Promise<EnvironmentVariable> {
      assertKey(input.key);
      try {
        return await EnvironmentVariable.query(db)
          .insert({ id: randomUUID(), organizationId, key: input.key, valueEnc: secrets.encrypt(input.value) })
          .returning('*');
      } catch (error) {
        if (error instanceof UniqueViolationError) throw badRequest('keyAlreadyExists', `A variable named ${input.key} already exists`);
        throw error;
      }
    },

    /** Sets the value, creating the variable when the key is new. */
    async set(organizationId: string, input: { key: string; value: string }): Promise<EnvironmentVariable> {
      assertKey(input.key);
      return EnvironmentVariable.query(db)
        .insert({ id: randomUUID(), organizationId, key: input.key, valueEnc: secrets.encrypt(input.value) })
        .onConflict(['organization_id', 'key'])
        .merge(['value_enc', 'updated_at'])
        .returning('*');
    },

    async delete(organizationId: string, id: string): Promise<void> {
      const deleted = await EnvironmentVariable.query(db).forOrg(organizationId).deleteById(id);
      if (deleted === 0) throw new NotFoundError('Environment variable');
    },
  };
}

export type EnvironmentVariableService = ReturnType<typeof createEnvironmentVariableService>;
