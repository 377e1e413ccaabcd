import type { FastifyInstance } from 'fastify';
import { NotFoundError, UnprocessableError } from '../errors.js';
import { canNameAResource, findUnstorableInput } from '../routes/shared/input-rules.js';
import { OWNED_RESOURCE_PARAMS } from '../services/tenancy/tenant-guard.js';

const knownIdShape = (param: string) => OWNED_RESOURCE_PARAMS[param]?.idShape;

/**
 * The shared input rules (`routes/shared/input-rules.ts`) for every route, present and future, whatever
 * its schema says: a path value that cannot name anything is a 404 before any query (even the tenant
 * guard's), and query or body input PostgreSQL cannot store is a 422 naming the field, before validation.
 * Registered before access control so its hooks run first.
 */
export function registerInputRules(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    for (const [param, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string' && !canNameAResource(param, value, knownIdShape)) {
        throw new NotFoundError(OWNED_RESOURCE_PARAMS[param]?.label ?? 'Resource');
      }
    }
    return payload;
  });

  app.addHook('preValidation', async (request) => {
    const issue = findUnstorableInput(request.query, ['query']) ?? findUnstorableInput(request.body, ['body']);
    if (issue) throw new UnprocessableError(issue.loc, issue.msg, issue.type);
  });
}
