import type { FastifyInstance } from 'fastify';
import { NotFoundError, UnprocessableError } from '../errors.js';
import { canNameAResource, findOverlongText, findUnstorableInput } from '../contracts/shared/input-limits.js';
import { OWNED_RESOURCE_PARAMS } from '../services/tenancy/tenant-guard.js';

const anyShape = () => true;
const knownIdShape = (param: string) => {
  const resource = OWNED_RESOURCE_PARAMS[param];
  return resource?.otherShapesAllowed ? anyShape : resource?.idShape;
};
const noKnownShape = () => undefined;

/** A route that looks its resource up by slug when asked (`?lookupBy=slug`) takes a slug where an id would be. */
const looksUpBySlug = (query: unknown) => (query as { lookupBy?: unknown } | undefined)?.lookupBy === 'slug';

/**
 * The shared input rules (`contracts/shared/input-limits.ts`) for every route, present and future, whatever
 * its schema says: a path value that cannot name anything is a 404 before any query (even the tenant
 * guard's), and query or body input PostgreSQL cannot store, or a name, summary or description longer than its
 * limit, is a 422 naming the field, before validation.
 * Registered before access control so its hooks run first.
 */
export function registerInputRules(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const shapeOf = looksUpBySlug(request.query) ? noKnownShape : knownIdShape;
    for (const [param, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string' && !canNameAResource(param, value, shapeOf)) {
        throw new NotFoundError(OWNED_RESOURCE_PARAMS[param]?.label ?? 'Resource');
      }
    }
    return payload;
  });

  app.addHook('preValidation', async (request) => {
    const stripped = request.routeOptions.config.nulStrippedBodyFields ?? [];
    const body = request.body;
    const checkedBody =
      stripped.length > 0 && body && typeof body === 'object' && !Array.isArray(body)
        ? Object.fromEntries(Object.entries(body).map(([key, value]) => [key, stripped.includes(key) && typeof value === 'string' ? value.replaceAll('\u0000', '') : value]))
        : body;
    const issue =
      findUnstorableInput(request.query, ['query']) ??
      findUnstorableInput(checkedBody, ['body']) ??
      findOverlongText(checkedBody, ['body'], request.routeOptions.config.textLimits);
    if (issue) throw new UnprocessableError(issue.loc, issue.msg, issue.type);
  });
}
