import { McpOAuthSession, McpServer, maskSecret, newMcpServerId, type Database, type SecretBox } from '@engram/db';
import { type McpConnectionPool, type McpServerTarget, McpServerError, createServerTargets, openServerSecrets, type McpServerSecrets, type McpStdioPolicy } from '@engram/integrations/mcp';
import type { Knex } from 'knex';
import { UniqueViolationError } from 'objection';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { McpServerConfigInput, McpServerCreateInput, McpServerUpdateInput } from './mcp-server-input.js';
import type { McpToolRegistry } from './mcp-tool-registry.js';
import type { EgressPolicy } from '@engram/integrations/egress';
import { assertReachableUrl } from '../shared/egress.js';
import { assertMayRunStdio } from './mcp-stdio-gate.js';

export type McpServerServiceDeps = { db: Database; secrets: SecretBox; connections: McpConnectionPool; registry: McpToolRegistry; egress: EgressPolicy; stdio: McpStdioPolicy };

/** The settings of each transport family, by their names on the wire. */
const STDIO_FIELDS = { command: 'command', args: 'args', env: 'env' } as const;
const REMOTE_FIELDS = { serverUrl: 'server_url', authHeader: 'auth_header', authToken: 'auth_token', customHeaders: 'custom_headers' } as const;

/** A secret sent back exactly as it was shown (masked) means "unchanged". */
function unlessMasked(incoming: string, stored: string | undefined): string {
  return stored !== undefined && incoming === maskSecret(stored) ? stored : incoming;
}

function unlessMaskedValues(incoming: Record<string, string>, stored: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(incoming).map(([key, value]) => [key, unlessMasked(value, stored[key])]));
}

/**
 * The organization's MCP servers: registering (with a first, best-effort sync of their tools),
 * reading, updating and deleting them. Credentials are sealed at rest and masked when shown.
 */
export function createMcpServerService(deps: McpServerServiceDeps) {
  const { db, secrets, connections, registry } = deps;
  const targets = createServerTargets({ db, secrets, egress: deps.egress, stdio: deps.stdio });

  const seal = (value: string | null) => (value === null ? null : secrets.encrypt(value));
  const sealJson = (value: Record<string, string> | null) => (value === null ? null : secrets.encrypt(JSON.stringify(value)));

  function configColumns(config: McpServerConfigInput) {
    if (config.type === 'stdio') {
      return { serverType: config.type, command: config.command, args: config.args, envEnc: sealJson(config.env), serverUrl: null, authHeader: null, authTokenEnc: null, customHeadersEnc: null };
    }
    return {
      serverType: config.type,
      serverUrl: config.serverUrl,
      authHeader: config.authHeader,
      authTokenEnc: seal(config.authToken),
      customHeadersEnc: sealJson(config.customHeaders),
      command: null,
      args: [],
      envEnc: null,
    };
  }

  const nameTaken = (serverName: string) =>
    new ConflictError({ code: 'MCPServerNameAlreadyExistsError', message: `MCP server with name '${serverName}' already exists`, server_name: serverName });

  async function find(trx: Knex, ctx: RequestContext, serverId: string): Promise<McpServer> {
    const server = await McpServer.query(trx).forOrg(ctx.organizationId).findById(serverId);
    if (!server) throw new NotFoundError('MCP server');
    return server;
  }

  /** A remote server authorized through `POST /tools/mcp/servers/connect` before it was added gets those tokens. */
  async function adoptAuthorizedSession(trx: Knex, server: McpServer): Promise<McpServer> {
    if (server.serverType === 'stdio' || !server.serverUrl) return server;
    const session = await McpOAuthSession.query(trx)
      .forOrg(server.organizationId)
      .where({ serverUrl: server.serverUrl, status: 'authorized', mcpServerId: null })
      .whereNotNull('tokensEnc')
      .orderBy('createdAt', 'desc')
      .first();
    if (!session) return server;
    await session.$query(trx).patch({ mcpServerId: server.id });
    return server.$query(trx).patchAndFetch({ oauthTokensEnc: session.tokensEnc, oauthClientInformationEnc: session.clientInformationEnc });
  }

  /** Registers the tools of a new server if it answers; a server that does not is still added. */
  async function syncNewServer(ctx: RequestContext, server: McpServer): Promise<void> {
    try {
      const live = await connections.listTools(targets.targetFor(server));
      await registry.sync(ctx, server, live, { addNew: true });
    } catch (error) {
      if (!(error instanceof McpServerError)) throw error;
      await registry.recordUnreachable(server, error.message);
    }
  }

  /** The columns an update sets; the server's transport family (local or remote) cannot change. */
  function updateColumns(server: McpServer, stored: McpServerSecrets, input: McpServerUpdateInput): Partial<McpServer> {
    const isStdio = server.serverType === 'stdio';
    if (input.type && (input.type === 'stdio') !== isStdio) {
      throw new BadRequestError(`MCP server '${server.serverName}' is a ${server.serverType} server; delete it and add a ${input.type} server instead`);
    }
    const foreignFields = isStdio ? REMOTE_FIELDS : STDIO_FIELDS;
    const misplaced = Object.entries(foreignFields).filter(([field]) => input[field as keyof McpServerUpdateInput] !== undefined);
    if (misplaced.length > 0) throw new BadRequestError(`${misplaced.map(([, wireName]) => wireName).join(', ')} cannot be set on a ${server.serverType} server`);

    const columns: Partial<McpServer> = {};
    if (input.serverName !== undefined) columns.serverName = input.serverName;
    if (input.type !== undefined) columns.serverType = input.type;
    if (input.command !== undefined) columns.command = input.command;
    if (input.args !== undefined) columns.args = input.args;
    if (input.env !== undefined) columns.envEnc = sealJson(input.env && unlessMaskedValues(input.env, stored.env));
    if (input.serverUrl !== undefined) columns.serverUrl = input.serverUrl;
    if (input.authHeader !== undefined) columns.authHeader = input.authHeader;
    if (input.authToken !== undefined) columns.authTokenEnc = seal(input.authToken && unlessMasked(input.authToken, stored.authToken ?? undefined));
    if (input.customHeaders !== undefined) columns.customHeadersEnc = sealJson(input.customHeaders && unlessMaskedValues(input.customHeaders, stored.customHeaders));
    return columns;
  }

  return {
    /** What the connection pool needs to reach the server (credentials opened). */
    targetFor(server: McpServer): McpServerTarget {
      return targets.targetFor(server);
    },

    secretsOf(server: McpServer): McpServerSecrets {
      return openServerSecrets(server, secrets);
    },

    async list(ctx: RequestContext): Promise<McpServer[]> {
      return McpServer.query(db).forOrg(ctx.organizationId).orderBy([{ column: 'createdAt' }, { column: 'id' }]);
    },

    get(ctx: RequestContext, serverId: string): Promise<McpServer> {
      return find(db, ctx, serverId);
    },

    async getByName(ctx: RequestContext, serverName: string): Promise<McpServer> {
      const server = await McpServer.query(db).forOrg(ctx.organizationId).findOne({ serverName });
      if (!server) throw new NotFoundError(`MCP server '${serverName}'`);
      return server;
    },

    async create(ctx: RequestContext, input: McpServerCreateInput): Promise<McpServer> {
      if (input.config.type === 'stdio') assertMayRunStdio(deps.stdio, ctx.organizationId, input.config.commandField);
      else await assertReachableUrl(deps.egress, ctx.organizationId, input.config.serverUrl, [...input.config.serverUrlField]);
      let server: McpServer;
      try {
        server = await db.transaction(async (trx) => {
          const inserted = await McpServer.query(trx)
            .insert({
              id: newMcpServerId(),
              organizationId: ctx.organizationId,
              serverName: input.serverName,
              ...configColumns(input.config),
              oauthTokensEnc: null,
              oauthClientInformationEnc: null,
              lastCheckedAt: null,
              lastCheckError: null,
              createdById: ctx.userId,
              lastUpdatedById: ctx.userId,
            })
            .returning('*');
          return adoptAuthorizedSession(trx, inserted);
        });
      } catch (error) {
        if (error instanceof UniqueViolationError) throw nameTaken(input.serverName);
        throw error;
      }
      await syncNewServer(ctx, server);
      return find(db, ctx, server.id);
    },

    async update(ctx: RequestContext, server: McpServer, input: McpServerUpdateInput): Promise<McpServer> {
      const columns = updateColumns(server, openServerSecrets(server, secrets), input);
      // A rename is harmless; what the server runs is not.
      if (server.serverType === 'stdio' && [input.command, input.args, input.env].some((value) => value !== undefined)) assertMayRunStdio(deps.stdio, ctx.organizationId, input.commandField);
      if (input.serverUrl !== undefined) await assertReachableUrl(deps.egress, ctx.organizationId, input.serverUrl, [...input.serverUrlField]);
      const previousName = server.serverName;
      try {
        const updated = await db.transaction(async (trx) => {
          const patched = await McpServer.query(trx).forOrg(ctx.organizationId).patchAndFetchById(server.id, { ...columns, lastUpdatedById: ctx.userId });
          if (patched.serverName !== previousName) await registry.renameServer(trx, patched, patched.serverName);
          return patched;
        });
        // The next use connects with the new settings.
        await connections.release(server.id);
        return updated;
      } catch (error) {
        if (error instanceof UniqueViolationError) throw nameTaken(input.serverName ?? server.serverName);
        throw error;
      }
    },

    /** Deletes the server with its registered tools (detached from every agent) and its OAuth sessions. */
    async delete(ctx: RequestContext, server: McpServer): Promise<void> {
      await db.transaction(async (trx) => {
        await registry.removeAll(trx, ctx.organizationId, server.id);
        await McpServer.query(trx).forOrg(ctx.organizationId).deleteById(server.id);
      });
      await connections.release(server.id);
    },
  };
}

export type McpServerService = ReturnType<typeof createMcpServerService>;
