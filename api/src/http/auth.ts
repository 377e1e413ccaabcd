import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../errors.js';
import type { ApiKeyService } from '../services/tenancy/api-keys.js';
import type { RequestContext } from './request-context.js';

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim() ?? '';
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Resolves `Authorization: Bearer <key>` into `request.ctx` for every route of the scope. */
export function registerApiKeyAuth(app: FastifyInstance, deps: { apiKeys: Pick<ApiKeyService, 'authenticate'> }): void {
  app.decorateRequest('ctx', null);
  app.addHook('onRequest', async (request) => {
    const token = bearerToken(request);
    if (token === undefined && request.routeOptions.config.public) return;
    if (!token) throw new UnauthorizedError();
    const principal = await deps.apiKeys.authenticate(token);
    if (!principal) throw new UnauthorizedError();
    const ctx: RequestContext = {
      organizationId: principal.organizationId,
      userId: principal.userId,
      role: principal.role,
      requestId: request.id,
      project: { id: headerValue(request, 'x-project-id'), slug: headerValue(request, 'x-project') },
    };
    request.ctx = ctx;
  });
}

/** For handlers of authenticated routes, where the hook guarantees a context. */
export function requireContext(request: FastifyRequest): RequestContext {
  if (!request.ctx) throw new UnauthorizedError();
  return request.ctx;
}
