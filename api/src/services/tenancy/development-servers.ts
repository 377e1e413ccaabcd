import { randomUUID } from 'node:crypto';
import { DevelopmentServer, type Database, type SecretBox } from '@engram/db';
import { NotFoundError } from '../../errors.js';

export type DevelopmentServerView = { server: DevelopmentServer; password: string | null };

export type DevelopmentServerInput = { name: string; url: string; password?: string | undefined };

/** Servers the ADE connects to; the password is sealed at rest and handed back to members who can use it. */
export function createDevelopmentServerService(deps: { db: Database; secrets: SecretBox }) {
  const { db, secrets } = deps;
  const view = (server: DevelopmentServer): DevelopmentServerView => ({
    server,
    password: server.passwordEnc ? secrets.decrypt(server.passwordEnc) : null,
  });

  async function find(organizationId: string, id: string): Promise<DevelopmentServer> {
    const server = await DevelopmentServer.query(db).forOrg(organizationId).findById(id);
    if (!server) throw new NotFoundError('Development server');
    return server;
  }

  return {
    async list(
      organizationId: string,
      page: { offset: number; limit: number; search?: string | undefined },
    ): Promise<{ servers: DevelopmentServerView[]; hasNextPage: boolean }> {
      const query = DevelopmentServer.query(db).forOrg(organizationId).orderBy('createdAt', 'desc').orderBy('id');
      if (page.search) query.whereILike('name', `%${page.search}%`);
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { servers: rows.slice(0, page.limit).map(view), hasNextPage: rows.length > page.limit };
    },

    async get(organizationId: string, id: string): Promise<DevelopmentServerView> {
      return view(await find(organizationId, id));
    },

    async create(organizationId: string, input: DevelopmentServerInput): Promise<DevelopmentServerView> {
      const server = await DevelopmentServer.query(db)
        .insert({
          id: randomUUID(),
          organizationId,
          name: input.name,
          url: input.url,
          passwordEnc: input.password ? secrets.encrypt(input.password) : null,
        })
        .returning('*');
      return view(server);
    },

    async update(organizationId: string, id: string, input: Partial<DevelopmentServerInput>): Promise<DevelopmentServerView> {
      const server = await find(organizationId, id);
      const updated = await server.$query(db).patchAndFetch({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.password !== undefined ? { passwordEnc: input.password ? secrets.encrypt(input.password) : null } : {}),
      });
      return view(updated);
    },

    async delete(organizationId: string, id: string): Promise<void> {
      const deleted = await DevelopmentServer.query(db).forOrg(organizationId).deleteById(id);
      if (deleted === 0) throw new NotFoundError('Development server');
    },
  };
}

export type DevelopmentServerService = ReturnType<typeof createDevelopmentServerService>;
