import { createHash } from 'node:crypto';
import { Identity, Organization, newId, type ShareAccessLevel } from '@engram/db';
import type { Knex } from 'knex';
import { NotFoundError, UnauthorizedError } from '../../errors.js';
import type { Access, Permission } from '../../http/permissions.js';
import type { RequestContext } from '../../http/request-context.js';

/**
 * Whoever opens a shared chat or a launch link. Signed in, they are known by their account (and, acting in
 * an organization, by its permissions); signed out, by their browser's visitor cookie, and by their address
 * for rate limits.
 */
export type Visitor = {
  access: Access | null;
  /** The hash of a signed-out browser's visitor cookie; null before the browser has one. */
  browserKey: string | null;
  ip: string;
};

/** The visitor's stable key, or null for a signed-out browser without a visitor cookie yet. */
export function visitorKey(visitor: Visitor): string | null {
  if (visitor.access) return `user:${visitor.access.userId}`;
  return visitor.browserKey ? `visitor:${visitor.browserKey}` : null;
}

function holds(access: Access, permissions: readonly Permission[]): boolean {
  return access.permissions.has('all_scopes') || permissions.every((permission) => access.permissions.has(permission));
}

/**
 * Whether the visitor may open something the organization shared at this level. `restricted` is the
 * organization's members who could do the same in the console (`restrictedTo` says with which permissions).
 */
export function mayOpen(level: ShareAccessLevel, organizationId: string, visitor: Visitor, restrictedTo: readonly Permission[]): boolean {
  const access = visitor.access;
  switch (level) {
    case 'everyone':
      return true;
    case 'logged-in':
      return access !== null;
    case 'organization':
      return access?.organizationId === organizationId;
    case 'restricted':
      return access?.organizationId === organizationId && holds(access, restrictedTo);
  }
}

/**
 * Refuses a visitor the level does not admit: signed out, they are asked to sign in (401); signed in,
 * the thing is not found for them (404), as another organization's things are.
 */
export function assertMayOpen(level: ShareAccessLevel, organizationId: string, visitor: Visitor, restrictedTo: readonly Permission[], label: string): void {
  if (mayOpen(level, organizationId, visitor, restrictedTo)) return;
  if (!visitor.access) throw new UnauthorizedError(`Sign in to open this ${label.toLowerCase()}`);
  throw new NotFoundError(label);
}

/**
 * Refuses what a banned (or deleted) organization shared as if there were no such thing (404), so a visitor learns
 * nothing of the ban; it answers again once the organization is unbanned.
 */
export async function assertOrganizationInGoodStanding(trx: Knex, organizationId: string, label: string): Promise<void> {
  const organization = await Organization.query(trx).findById(organizationId).select('bannedAt');
  if (!organization || organization.bannedAt) throw new NotFoundError(label);
}

/** The organization acts for the member who shared: what visitors make is recorded as theirs. */
export function sharingContext(organizationId: string, sharedBy: string, requestId: string, projectId: string | null): RequestContext {
  return { organizationId, userId: sharedBy, role: 'editor', requestId, project: projectId ? { id: projectId } : {} };
}

/** An identity names the visitor without their cookie or account id: a short hash of where and who. */
export function visitorIdentityKey(scope: string, key: string): string {
  return `visitor-${createHash('sha256').update(`${scope}:${key}`).digest('hex').slice(0, 24)}`;
}

/** The visitor's identity in the organization (made on first use), which their agents are linked to. */
export async function ensureVisitorIdentity(
  trx: Knex,
  /** `hidden`: the identity of a shared chat's visitor, whose copy of the agent is hidden too (see `hidden.ts` in `@engram/db`). */
  input: { organizationId: string; projectId: string | null; identifierKey: string; signedIn: boolean; hidden?: boolean },
): Promise<Identity> {
  const existing = await Identity.query(trx).forOrg(input.organizationId).findOne({ identifierKey: input.identifierKey, projectId: input.projectId });
  if (existing) return existing;
  return Identity.query(trx).insert({
    id: newId('identity'),
    organizationId: input.organizationId,
    projectId: input.projectId,
    identifierKey: input.identifierKey,
    name: input.signedIn ? 'Shared chat visitor (signed in)' : 'Shared chat visitor',
    identityType: 'user',
    properties: [],
    hiddenKind: input.hidden ? 'visitor' : null,
  });
}
