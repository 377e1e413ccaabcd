import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import type { Role, User } from '@engram/db';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import type { Delegation } from '../services/access-tokens/delegation.js';
import type { SessionService } from '../services/accounts/sessions.js';
import { DEFAULT_CONVERSATION } from '../services/conversations/conversation-service.js';
import type { TenantGuard } from '../services/tenancy/tenant-guard.js';
import { assertDelegationAllows } from './agent-access-scopes.js';
import { accessRuleFor, effectivePermissions, missingPermissions, UNMAPPED, type Access, type AccessRule } from './permissions.js';
import type { RequestContext } from './request-context.js';

/** A console user signed in through a session cookie. */
export type SignedInAccount = { userId: string; sessionId: string; sessionToken: string };

/** One registered route and what it needs, as the access layer sees it. */
export type RouteAccess = { method: string; url: string; rule: AccessRule };

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is acting and what they may do; set by API-key or session authentication. */
    access: Access | null;
    account: SignedInAccount | null;
    /** Set when a delegated token (client-side or OAuth) acts: it reaches only what its scopes allow. */
    delegation: Delegation | null;
  }
  interface FastifyInstance {
    /** Every route of the app with its access rule, in registration order. */
    routeAccess: readonly RouteAccess[];
  }
}

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

/**
 * The console's own requests carry this header. A custom header cannot be sent cross-site without a
 * CORS preflight (which Engram never grants), so a session cookie on `/v1` is only honoured with it.
 */
export const CONSOLE_REQUEST_HEADER = 'x-engram-console';

/** Who a bearer token acts as: a member of an organization, perhaps only within delegated scopes. */
export type BearerPrincipal = {
  organizationId: string;
  userId: string;
  role: Role;
  customPermissions: string[];
  isPlatformAdmin: boolean;
  /** Absent for API keys, which act with their creator's whole role. */
  delegation?: Delegation;
  /** The only browser origin the token may be sent from (client-side access tokens). */
  origin?: string;
};

/** Whether an organization may act at all, and whether an account is a platform admin (services/admin). */
export type AccountStanding = {
  isBanned(organizationId: string): Promise<boolean>;
  isPlatformAdmin(user: Pick<User, 'id' | 'email' | 'permissions'>): Promise<boolean>;
};

export const BANNED_ORGANIZATION_MESSAGE = 'This organization has been banned from the platform; contact support to restore access';

async function assertNotBanned(standing: AccountStanding, organizationId: string): Promise<void> {
  if (await standing.isBanned(organizationId)) throw new ForbiddenError(BANNED_ORGANIZATION_MESSAGE);
}

/** One kind of bearer token: null when the token is not one of its own, or not (or no longer) valid. */
export type BearerTokenAuthenticator = { authenticate(token: string): Promise<BearerPrincipal | null> };

/**
 * Resolves `Authorization: Bearer <token>` into `request.ctx` for every route of the scope, trying each
 * kind of token in turn (API keys, client-side access tokens, OAuth access tokens); the console,
 * same-origin, may use its session cookie instead (see CONSOLE_REQUEST_HEADER).
 */
export function registerApiKeyAuth(
  app: FastifyInstance,
  deps: { bearerTokens: readonly BearerTokenAuthenticator[]; sessions: Pick<SessionService, 'authenticate'>; standing: AccountStanding },
): void {
  app.decorateRequest('ctx', null);
  app.decorateRequest('account', null);
  app.addHook('onRequest', async (request, reply) => {
    const token = bearerToken(request);
    if (token === undefined && request.headers[CONSOLE_REQUEST_HEADER] && request.cookies[SESSION_COOKIE]) {
      const signedIn = await deps.sessions.authenticate(request.cookies[SESSION_COOKIE]);
      if (!signedIn?.membership) throw new UnauthorizedError();
      await assertNotBanned(deps.standing, signedIn.membership.organizationId);
      await applySession(request, signedIn, request.cookies[SESSION_COOKIE], deps.standing);
      return;
    }
    if (token === undefined && request.routeOptions.config.public) return;
    if (!token) throw new UnauthorizedError();
    let principal: BearerPrincipal | null = null;
    for (const kind of deps.bearerTokens) {
      principal = await kind.authenticate(token);
      if (principal) break;
    }
    if (!principal) throw new UnauthorizedError();
    await assertNotBanned(deps.standing, principal.organizationId);
    if (principal.origin !== undefined) {
      // A browser always sends Origin on cross-origin calls; anything else is not the app the token was made for.
      if (request.headers.origin !== principal.origin) throw new ForbiddenError(`This token can only be used from ${principal.origin}`);
      reply.header('access-control-allow-origin', principal.origin).header('vary', 'Origin');
    }
    const ctx: RequestContext = {
      organizationId: principal.organizationId,
      userId: principal.userId,
      role: principal.role,
      requestId: request.id,
      project: { id: headerValue(request, 'x-project-id'), slug: headerValue(request, 'x-project') },
    };
    request.ctx = ctx;
    request.access = {
      userId: principal.userId,
      organizationId: principal.organizationId,
      permissions: effectivePermissions(principal.role, principal.customPermissions),
      isPlatformAdmin: principal.isPlatformAdmin,
    };
    request.delegation = principal.delegation ?? null;
  });
}

export const SESSION_COOKIE = 'engram_session';

/** Whether the request's session cookie (read from the header: no cookie plugin is needed) is a platform admin's. */
export async function isPlatformAdminSession(
  request: FastifyRequest,
  deps: { sessions: Pick<SessionService, 'authenticate'>; standing: AccountStanding },
): Promise<boolean> {
  const token = (request.headers.cookie ?? '')
    .split(';')
    .map((part) => part.trim().split('='))
    .find(([name]) => name === SESSION_COOKIE)?.[1];
  if (!token) return false;
  const signedIn = await deps.sessions.authenticate(decodeURIComponent(token));
  return signedIn ? deps.standing.isPlatformAdmin(signedIn.user) : false;
}

/**
 * The session cookie: httpOnly (scripts never see it), SameSite=Lax (other sites cannot make the
 * browser send it with their POSTs), scoped to the console API, Secure whenever served over HTTPS.
 */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, session: { token: string; expiresAt: Date }): void {
  reply.setCookie(SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    // The console calls both /api and /v1 from the same origin.
    path: '/',
    expires: session.expiresAt,
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', path: '/' });
}

/**
 * Resolves the session cookie into `request.account` (and `request.ctx` when the user acts in an
 * organization). A missing or dead session is not an error here: the access rules decide.
 * Needs `@fastify/cookie` registered on the scope.
 */
export function registerSessionAuth(app: FastifyInstance, deps: { sessions: Pick<SessionService, 'authenticate'>; standing: AccountStanding }): void {
  app.decorateRequest('ctx', null);
  app.decorateRequest('account', null);
  app.addHook('onRequest', async (request) => {
    const token = request.cookies[SESSION_COOKIE];
    if (!token) return;
    const signedIn = await deps.sessions.authenticate(token);
    if (!signedIn) return;
    // Signing in (or out) stays possible; everything else of a banned organization's members is refused.
    if (signedIn.membership && !request.routeOptions.config.public) await assertNotBanned(deps.standing, signedIn.membership.organizationId);
    await applySession(request, signedIn, token, deps.standing);
  });
}

type SignedInSession = NonNullable<Awaited<ReturnType<SessionService['authenticate']>>>;

async function applySession(request: FastifyRequest, signedIn: SignedInSession, token: string, standing: AccountStanding): Promise<void> {
  const { user, membership } = signedIn;
  request.account = { userId: user.id, sessionId: signedIn.sessionId, sessionToken: token };
  request.access = {
    userId: user.id,
    organizationId: membership?.organizationId ?? null,
    permissions: membership ? effectivePermissions(membership.role, membership.customPermissions) : new Set(),
    isPlatformAdmin: await standing.isPlatformAdmin(user),
  };
  if (membership) {
    request.ctx = {
      organizationId: membership.organizationId,
      userId: user.id,
      role: membership.role,
      requestId: request.id,
      project: { id: headerValue(request, 'x-project-id'), slug: headerValue(request, 'x-project') },
    };
  }
}

/**
 * Enforces `http/permissions.ts` on every route of the app. It runs right after the scope's
 * authentication and before the body is read or validated, so a caller without the permission (or
 * with another organization's id in the path) neither uploads a body nor learns anything from it.
 */
export function registerAccessControl(app: FastifyInstance, deps: { tenantGuard: TenantGuard }): void {
  const routes: RouteAccess[] = [];
  const rules = new Map<string, AccessRule>();
  app.decorateRequest('access', null);
  app.decorateRequest('delegation', null);
  app.decorate('routeAccess', routes);

  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const rule = accessRuleFor(method, route.url, { public: route.config?.public });
      rules.set(`${method} ${route.url}`, rule);
      routes.push({ method, url: route.url, rule });
    }
  });

  async function authorize(request: FastifyRequest): Promise<void> {
    const url = request.routeOptions.url;
    if (url === undefined) return;
    const rule = rules.get(`${request.method} ${url}`) ?? UNMAPPED;
    if (rule.kind === 'public') return;
    const access = request.access;
    if (!access) throw new UnauthorizedError();
    // Before any other rule: a delegated token never reaches past its scopes, whoever its user is.
    if (request.delegation) {
      const params = request.params as Record<string, unknown>;
      assertDelegationAllows(request.delegation, request.method, url, { ...params, agent_id: await agentNamedBy(request, params, access.organizationId) });
    }
    if (rule.kind === 'account') return;
    if (rule.kind === 'platform_admin') {
      if (!access.isPlatformAdmin) throw new ForbiddenError('Only platform administrators can do this');
      return;
    }
    if (!access.organizationId) throw new ForbiddenError('You are not a member of an organization');
    const missing = missingPermissions(rule, access);
    if (missing.length > 0) throw new ForbiddenError(`You do not have permission to do this (needs ${missing.join(', ')})`);
    await deps.tenantGuard.assertParamsOwned(access.organizationId, request.params as Record<string, unknown>);
  }

  /**
   * The agent a call acts on, for a token that reaches only some agents: the path's agent, else (a conversation route)
   * the agent of the conversation it names, or of `?agent_id=` for the default conversation and the list.
   */
  async function agentNamedBy(request: FastifyRequest, params: Record<string, unknown>, organizationId: string | null): Promise<unknown> {
    if (params.agent_id !== undefined || params.agentId !== undefined) return params.agent_id ?? params.agentId;
    const conversationId = params.conversation_id;
    if (typeof conversationId === 'string' && conversationId !== DEFAULT_CONVERSATION && organizationId) {
      return deps.tenantGuard.agentOfConversation(organizationId, conversationId);
    }
    return (request.query as Record<string, unknown> | undefined)?.agent_id;
  }

  // preParsing is the first stage after every onRequest hook, the scopes' authentication included.
  app.addHook('preParsing', async (request, _reply, payload) => {
    await authorize(request);
    return payload;
  });
}

/** For handlers of authenticated routes, where the hook guarantees a context. */
export function requireContext(request: FastifyRequest): RequestContext {
  if (!request.ctx) throw new UnauthorizedError();
  return request.ctx;
}

/** For console handlers of signed-in routes. */
export function requireAccount(request: FastifyRequest): SignedInAccount {
  if (!request.account) throw new UnauthorizedError();
  return request.account;
}
