import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OAuthConnection } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { isActiveConnection, type ConnectedApp } from '../../services/oauth/connected-apps.js';
import { iso, Success, success } from './schemas.js';

const ConnectedAppSchema = z.object({
  appId: z.string(),
  appName: z.string(),
  clientId: z.string(),
  logoUrl: z.string().nullable(),
  lastConnectedAt: z.string(),
  connectionCount: z.number().int(),
  activeConnectionCount: z.number().int(),
});

const ConnectionSchema = z.object({
  id: z.string(),
  scopes: z.array(z.string()),
  connectedAt: z.string(),
  lastUsedAt: z.string().nullable(),
  isActive: z.boolean(),
  revokedAt: z.string().nullable(),
  expiresAt: z.string(),
});

const Status = z.enum(['all', 'active', 'revoked']);

const ListAppsQuery = z.object({
  status: Status.default('active'),
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

const AppParams = z.object({ clientId: z.string().min(1) });

const connectedAppWire = (app: ConnectedApp): z.infer<typeof ConnectedAppSchema> => ({ ...app, lastConnectedAt: iso(new Date(app.lastConnectedAt)) });

const connectionWire = (connection: OAuthConnection): z.infer<typeof ConnectionSchema> => ({
  id: connection.id,
  scopes: connection.scopes,
  connectedAt: iso(connection.createdAt),
  lastUsedAt: connection.lastUsedAt ? iso(connection.lastUsedAt) : null,
  isActive: isActiveConnection(connection),
  revokedAt: connection.revokedAt ? iso(connection.revokedAt) : null,
  expiresAt: iso(connection.expiresAt),
});

/** The apps the member has connected to their account in this organization (spec 000 §7). */
export function connectedAppRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['console: connected apps'];

    app.get(
      '/user/self/connected-apps',
      {
        schema: {
          tags,
          summary: 'Apps connected to your account (active by default), by client id',
          querystring: ListAppsQuery,
          response: { 200: z.object({ connectedApps: z.array(ConnectedAppSchema), nextCursor: z.string().nullable() }) },
        },
      },
      async (request) => {
        const page = await services.connectedApps.listApps(requireContext(request), request.query);
        return { connectedApps: page.connectedApps.map(connectedAppWire), nextCursor: page.nextCursor };
      },
    );

    app.get(
      '/user/self/connected-apps/:clientId/connections',
      {
        schema: {
          tags,
          summary: "An app's connections to your account (all by default)",
          params: AppParams,
          querystring: z.object({ status: Status.default('all') }),
          response: { 200: z.object({ connections: z.array(ConnectionSchema) }) },
        },
      },
      async (request) => {
        const connections = await services.connectedApps.listConnections(requireContext(request), request.params.clientId, request.query.status);
        return { connections: connections.map(connectionWire) };
      },
    );

    app.delete(
      '/user/self/connected-apps/:clientId',
      { schema: { tags, summary: "Revoke every connection of an app; its tokens stop working at once", params: AppParams, response: { 200: Success } } },
      async (request) => {
        await services.connectedApps.revokeApp(requireContext(request), request.params.clientId);
        return success;
      },
    );

    app.delete(
      '/user/self/connected-apps/:clientId/connections/:connectionId',
      {
        schema: {
          tags,
          summary: 'Revoke one connection; its tokens stop working at once',
          params: AppParams.extend({ connectionId: z.string().min(1) }),
          response: { 200: Success },
        },
      },
      async (request) => {
        await services.connectedApps.revokeConnection(requireContext(request), request.params.clientId, request.params.connectionId);
        return success;
      },
    );
  };
}
