import { randomUUID } from 'node:crypto';
import { UniqueViolationError } from 'objection';
import { WhitelistedEmail, type Database } from '@engram/db';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { OffsetPage } from './admin-organizations.js';

/** Addresses let in while sign-ups are restricted; flushing empties the list. */
export function createWhitelistedEmailService(deps: { db: Database }) {
  const { db } = deps;
  return {
    async list(page: OffsetPage): Promise<{ emails: WhitelistedEmail[]; hasNextPage: boolean }> {
      const query = WhitelistedEmail.query(db).orderBy('email');
      if (page.search) query.whereILike('email', `%${page.search.toLowerCase()}%`);
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { emails: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    async add(email: string): Promise<WhitelistedEmail> {
      try {
        return await WhitelistedEmail.query(db).insert({ id: randomUUID(), email: email.trim().toLowerCase() }).returning('*');
      } catch (error) {
        if (error instanceof UniqueViolationError) throw new ConflictError('This email is already whitelisted');
        throw error;
      }
    },

    async remove(id: string): Promise<void> {
      if ((await WhitelistedEmail.query(db).deleteById(id)) === 0) throw new NotFoundError('Whitelisted email');
    },

    async flush(): Promise<number> {
      return WhitelistedEmail.query(db).delete();
    },

    async isWhitelisted(email: string): Promise<boolean> {
      return (await WhitelistedEmail.query(db).findOne({ email: email.trim().toLowerCase() })) !== undefined;
    },
  };
}

export type WhitelistedEmailService = ReturnType<typeof createWhitelistedEmailService>;
