import { memoryVariablesOf, type MemoryVariable } from '@engram/core/templates/snapshot';
import { AgentTemplate, AgentTemplateVersion, LaunchLink, SharedChat, newId, type Database, type ShareAccessLevel } from '@engram/db';
import { UniqueViolationError } from 'objection';
import { NotFoundError, RateLimitedError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { RateLimit, RateLimiter } from '../accounts/rate-limiter.js';
import type { AgentService } from '../agents/agent-service.js';
import type { TemplateService } from '../templates/template-service.js';
import type { SharedChatService } from './shared-chat-service.js';
import { assertMayOpen, assertOrganizationInGoodStanding, ensureVisitorIdentity, sharingContext, visitorIdentityKey, visitorKey, type Visitor } from './visitors.js';

/** Agents signed-out visitors may launch from one address, across links. */
export const ANONYMOUS_LAUNCHES_PER_IP: RateLimit = { limit: 20, windowMs: 60 * 60_000 };

/** Launching a restricted link takes what deploying the template in the console takes. */
const RESTRICTED_TO = ['create_agents', 'read_templates'] as const;

export type LaunchMetadata = { link: LaunchLink; template: AgentTemplate; memoryVariables: MemoryVariable[] };

export type LaunchLinkServiceDeps = {
  db: Database;
  templates: Pick<TemplateService, 'get' | 'createAgent'>;
  agents: Pick<AgentService, 'delete'>;
  sharedChats: Pick<SharedChatService, 'createForLaunch'>;
  rateLimiter: RateLimiter;
};

/**
 * Launch links (spec 000 §3, §7): a template's public entry point. Each visitor who launches gets an agent of
 * their own from the template's newest saved version (its working state while it has none), with the memory
 * variables they gave, linked to an identity for them, and that agent's shared chat; launching again gives the
 * same visitor the same agent.
 */
export function createLaunchLinkService(deps: LaunchLinkServiceDeps) {
  const { db } = deps;

  async function linkOf(ctx: RequestContext, templateId: string): Promise<LaunchLink | undefined> {
    return LaunchLink.query(db).forOrg(ctx.organizationId).findOne({ templateId });
  }

  async function openLink(launchId: string, visitor: Visitor): Promise<{ link: LaunchLink; template: AgentTemplate }> {
    const link = await LaunchLink.query(db).findById(launchId);
    if (!link) throw new NotFoundError('Launch link');
    await assertOrganizationInGoodStanding(db, link.organizationId, 'Launch link');
    assertMayOpen(link.accessLevel, link.organizationId, visitor, RESTRICTED_TO, 'Launch link');
    const template = await AgentTemplate.query(db).forOrg(link.organizationId).findById(link.templateId).throwIfNotFound();
    return { link, template };
  }

  async function existingChat(link: LaunchLink, key: string): Promise<SharedChat | undefined> {
    return SharedChat.query(db).forOrg(link.organizationId).findOne({ launchLinkId: link.id, ownerVisitorKey: key });
  }

  return {
    async get(ctx: RequestContext, templateId: string): Promise<LaunchLink> {
      await deps.templates.get(ctx, templateId);
      const link = await linkOf(ctx, templateId);
      if (!link) throw new NotFoundError('Launch link');
      return link;
    },

    /** The template's link, made now unless it has one. */
    async create(ctx: RequestContext, templateId: string, accessLevel: ShareAccessLevel | undefined): Promise<{ link: LaunchLink; created: boolean }> {
      await deps.templates.get(ctx, templateId);
      const inserted = await db('launch_links')
        .insert({ id: newId('launchLink'), organization_id: ctx.organizationId, template_id: templateId, access_level: accessLevel ?? 'restricted', shared_by: ctx.userId })
        .onConflict('template_id')
        .ignore()
        .returning('id');
      return { link: (await linkOf(ctx, templateId))!, created: inserted.length > 0 };
    },

    async setAccessLevel(ctx: RequestContext, templateId: string, accessLevel: ShareAccessLevel): Promise<LaunchLink> {
      const link = await this.get(ctx, templateId);
      return link.$query(db).patchAndFetch({ accessLevel, sharedBy: ctx.userId });
    },

    /** What the launch page shows before launching: the template's name, description and memory variables. */
    async metadata(launchId: string, visitor: Visitor): Promise<LaunchMetadata> {
      const { link, template } = await openLink(launchId, visitor);
      const version =
        template.latestVersion > 0
          ? await AgentTemplateVersion.query(db).forOrg(link.organizationId).findOne({ templateId: template.id, version: template.latestVersion })
          : undefined;
      return { link, template, memoryVariables: memoryVariablesOf(version?.snapshot ?? template.workingSnapshot) };
    },

    /** The visitor's agent from the template and its chat: made on their first launch, the same one after. */
    async launch(launchId: string, visitor: Visitor, memoryVariables: Record<string, string>, requestId: string): Promise<SharedChat> {
      const { link, template } = await openLink(launchId, visitor);
      const key = visitorKey(visitor);
      if (!key) throw new NotFoundError('Launch link');
      const existing = await existingChat(link, key);
      if (existing) return existing;
      if (!visitor.access) {
        const attempt = await deps.rateLimiter.attempt(`launch-link:launches:${visitor.ip}`, ANONYMOUS_LAUNCHES_PER_IP);
        if (!attempt.allowed) {
          const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
          throw new RateLimitedError(`Too many launches from your address; try again in ${seconds} seconds`, seconds);
        }
      }
      const ctx = sharingContext(link.organizationId, link.sharedBy, requestId, template.projectId);
      const identity = await ensureVisitorIdentity(db, {
        organizationId: link.organizationId,
        projectId: template.projectId,
        identifierKey: visitorIdentityKey(link.id, key),
        signedIn: visitor.access !== null,
      });
      const version = `${template.name}:${template.latestVersion > 0 ? 'latest' : 'dev'}`;
      const agentId = await deps.templates.createAgent(ctx, version, { memoryVariables, identityIds: [identity.id] });
      try {
        return await deps.sharedChats.createForLaunch(db, {
          organizationId: link.organizationId,
          agentId,
          launchLinkId: link.id,
          accessLevel: link.accessLevel,
          sharedBy: link.sharedBy,
          ownerVisitorKey: key,
        });
      } catch (error) {
        // The visitor launched twice at once: the first agent is theirs, this one goes.
        await deps.agents.delete(ctx, agentId);
        const winner = error instanceof UniqueViolationError ? await existingChat(link, key) : undefined;
        if (!winner) throw error;
        return winner;
      }
    },
  };
}

export type LaunchLinkService = ReturnType<typeof createLaunchLinkService>;
