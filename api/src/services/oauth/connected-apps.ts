import { OAuthConnection, type Database } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import { revokeGrant } from './provider-adapter.js';

export type ConnectionStatus = 'all' | 'active' | 'revoked';

/** The member acting: connections are their own, in the organization they act in. */
export type ConnectionOwner = { organizationId: string; userId: string };

export type ConnectedApp = {
  appId: string;
  appName: string;
  clientId: string;
  logoUrl: string | null;
  lastConnectedAt: Date;
  connectionCount: number;
  activeConnectionCount: number;
};

export type ConnectedAppPage = { connectedApps: ConnectedApp[]; nextCursor: string | null };

/** Active: neither revoked nor past its grant's end. */
export const isActiveConnection = (connection: OAuthConnection, now = new Date()) =>
  connection.revokedAt === null && connection.expiresAt.getTime() > now.getTime();

/** `/user/self/connected-apps`: the apps a member has authorized, their connections, and revoking them. */
export function createConnectedAppService(deps: { db: Database }) {
  const { db } = deps;

  const connectionsOf = (owner: ConnectionOwner) =>
    OAuthConnection.query(db).forOrg(owner.organizationId).where('oauth_connections.user_id', owner.userId);

  async function connectionsOfApp(owner: ConnectionOwner, clientId: string): Promise<OAuthConnection[]> {
    const connections = await connectionsOf(owner).where({ clientId }).orderBy('createdAt', 'desc').orderBy('id');
    if (connections.length === 0) throw new NotFoundError('Connected app');
    return connections;
  }

  return {
    /** Apps by client id; `active` ones have a live connection, `revoked` ones none. The cursor is the last client id. */
    async listApps(owner: ConnectionOwner, page: { status: ConnectionStatus; cursor?: string | undefined; limit: number }): Promise<ConnectedAppPage> {
      const activeCount = 'count(*) filter (where oauth_connections.revoked_at is null and oauth_connections.expires_at > now())';
      const query = connectionsOf(owner)
        .join('oauth_apps', 'oauth_apps.client_id', 'oauth_connections.client_id')
        .groupBy('oauth_apps.id')
        .select(
          'oauth_apps.id as appId',
          'oauth_apps.name as appName',
          'oauth_apps.client_id',
          'oauth_apps.logo_url',
          db.raw('max(oauth_connections.created_at) as last_connected_at'),
          db.raw('count(*)::int as connection_count'),
          db.raw(`${activeCount}::int as active_connection_count`),
        )
        .orderBy('oauth_apps.client_id')
        .limit(page.limit + 1);
      if (page.status === 'active') query.havingRaw(`${activeCount} > 0`);
      if (page.status === 'revoked') query.havingRaw(`${activeCount} = 0`);
      if (page.cursor) query.where('oauth_apps.client_id', '>', page.cursor);
      const rows = await query.castTo<ConnectedApp[]>();
      const connectedApps = rows.slice(0, page.limit);
      return { connectedApps, nextCursor: rows.length > page.limit ? (connectedApps.at(-1)?.clientId ?? null) : null };
    },

    async listConnections(owner: ConnectionOwner, clientId: string, status: ConnectionStatus): Promise<OAuthConnection[]> {
      const connections = await connectionsOfApp(owner, clientId);
      if (status === 'all') return connections;
      return connections.filter((connection) => isActiveConnection(connection) === (status === 'active'));
    },

    /** Revokes every live connection of the app. */
    async revokeApp(owner: ConnectionOwner, clientId: string): Promise<void> {
      const connections = await connectionsOfApp(owner, clientId);
      for (const connection of connections.filter((candidate) => candidate.revokedAt === null)) await revokeGrant(db, connection.grantId);
    },

    async revokeConnection(owner: ConnectionOwner, clientId: string, connectionId: string): Promise<void> {
      const connection = await connectionsOf(owner).where({ clientId }).findById(connectionId);
      if (!connection) throw new NotFoundError('Connection');
      if (connection.revokedAt === null) await revokeGrant(db, connection.grantId);
    },
  };
}

export type ConnectedAppService = ReturnType<typeof createConnectedAppService>;
