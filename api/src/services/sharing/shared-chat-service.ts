import { platformRunRequest, type LettaMessage, type RunRequest } from '@engram/core';
import {
  Agent,
  IdentityAgent,
  SharedChat,
  SharedChatConversation,
  newId,
  type Database,
  type Run,
  type ShareAccessLevel,
} from '@engram/db';
import { UniqueViolationError } from 'objection';
import { NotFoundError, RateLimitedError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { RateLimit, RateLimiter } from '../accounts/rate-limiter.js';
import type { AgentFileService } from '../agent-files/agent-file-service.js';
import type { AgentService } from '../agents/agent-service.js';
import type { MessageService } from '../messages/message-service.js';
import type { RunService } from '../runs/run-service.js';
import { assertMayOpen, assertOrganizationInGoodStanding, ensureVisitorIdentity, sharingContext, visitorIdentityKey, visitorKey, type Visitor } from './visitors.js';

/** A signed-out visitor's messages through one chat, per address. */
export const ANONYMOUS_MESSAGES_PER_IP: RateLimit = { limit: 10, windowMs: 60_000 };
/** New conversations (each a copy of an agent) signed-out visitors may start from one address, across chats. */
export const ANONYMOUS_CONVERSATIONS_PER_IP: RateLimit = { limit: 20, windowMs: 60 * 60_000 };

/** Opening a restricted chat takes what chatting with the agent in the console takes. */
const RESTRICTED_TO = ['read_agents', 'message_agents'] as const;

export type SharedChatView = { chat: SharedChat; agent: Agent; isMember: boolean; hasConversation: boolean };

export type SharedChatServiceDeps = {
  db: Database;
  agentFiles: Pick<AgentFileService, 'exportAgent' | 'importFile'>;
  agents: Pick<AgentService, 'delete'>;
  runs: Pick<RunService, 'createRun'>;
  messages: Pick<MessageService, 'listAgentMessages'>;
  rateLimiter: RateLimiter;
};

function assertAllowed(attempt: { allowed: true } | { allowed: false; retryAfterMs: number }, message: string): void {
  if (attempt.allowed) return;
  const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
  throw new RateLimitedError(`${message}; try again in ${seconds} seconds`, seconds);
}

/**
 * Shared chats (spec 000 §3, §7). Every visitor of a shared agent talks to it in a conversation of their own:
 * Engram agents have one conversation each, so the visitor's conversation is a hidden copy of the agent (its
 * memory, tools and settings, none of its messages) linked to an identity for the visitor. No visitor can
 * read or steer another's messages, and nothing a visitor says reaches the shared agent's own memory. The chat
 * of an agent a launch link made is that agent itself, and only its visitor's.
 */
export function createSharedChatService(deps: SharedChatServiceDeps) {
  const { db } = deps;

  async function agentInProject(ctx: RequestContext, projectId: string, agentId: string): Promise<Agent> {
    const agent = await Agent.query(db).forOrg(ctx.organizationId).findById(agentId);
    if (!agent || agent.projectId !== projectId) throw new NotFoundError('Agent');
    return agent;
  }

  async function configurationOf(ctx: RequestContext, agent: Agent): Promise<SharedChat> {
    await db('shared_chats')
      .insert({ id: newId('sharedChat'), organization_id: ctx.organizationId, agent_id: agent.id, access_level: 'restricted', shared_by: ctx.userId })
      .onConflict('agent_id')
      .ignore();
    return SharedChat.query(db).forOrg(ctx.organizationId).findOne({ agentId: agent.id }).throwIfNotFound();
  }

  /** The chat and its agent, for a visitor its access level admits; read afresh on every request. */
  async function openChat(chatId: string, visitor: Visitor): Promise<{ chat: SharedChat; agent: Agent }> {
    const chat = await SharedChat.query(db).findById(chatId);
    if (!chat) throw new NotFoundError('Chat');
    await assertOrganizationInGoodStanding(db, chat.organizationId, 'Chat');
    assertMayOpen(chat.accessLevel, chat.organizationId, visitor, RESTRICTED_TO, 'Chat');
    // An agent a launch link made is its visitor's own: anyone else is told there is no such chat.
    if (chat.launchLinkId && chat.ownerVisitorKey !== visitorKey(visitor)) throw new NotFoundError('Chat');
    const agent = await Agent.query(db).forOrg(chat.organizationId).findById(chat.agentId).throwIfNotFound();
    return { chat, agent };
  }

  async function existingConversation(chat: SharedChat, key: string | null): Promise<string | null> {
    if (chat.launchLinkId) return chat.agentId;
    if (!key) return null;
    const conversation = await SharedChatConversation.query(db).forOrg(chat.organizationId).findOne({ chatId: chat.id, visitorKey: key });
    return conversation?.agentId ?? null;
  }

  async function startConversation(chat: SharedChat, agent: Agent, visitor: Visitor, key: string, requestId: string): Promise<string> {
    if (!visitor.access) {
      assertAllowed(await deps.rateLimiter.attempt(`shared-chat:conversations:${visitor.ip}`, ANONYMOUS_CONVERSATIONS_PER_IP), 'Too many new conversations from your address');
    }
    const ctx = sharingContext(chat.organizationId, chat.sharedBy, requestId, agent.projectId);
    const file = await deps.agentFiles.exportAgent(ctx, agent.id, { scrubMessages: true, legacyFormat: false });
    const { agentIds: [copyId] } = await deps.agentFiles.importFile(ctx, Buffer.from(JSON.stringify(file)), {
      appendCopySuffix: false,
      overrideExistingTools: false,
      stripMessages: true,
      projectId: agent.projectId ?? undefined,
      secrets: {},
      countsAgainstAgentLimit: false,
    });
    try {
      return await db.transaction(async (trx) => {
        // Tool secrets are not in agent files; the copy runs the agent's tools with the agent's own.
        await Agent.query(trx).forOrg(chat.organizationId).findById(copyId!).patch({ hidden: true, hiddenKind: 'visitor_copy', toolExecEnvironmentVariables: agent.toolExecEnvironmentVariables });
        const identity = await ensureVisitorIdentity(trx, {
          organizationId: chat.organizationId,
          projectId: agent.projectId,
          identifierKey: visitorIdentityKey(chat.id, key),
          signedIn: visitor.access !== null,
          hidden: true,
        });
        await IdentityAgent.query(trx).insert({ identityId: identity.id, agentId: copyId!, organizationId: chat.organizationId });
        await SharedChatConversation.query(trx).insert({
          id: newId('sharedChatConversation'),
          organizationId: chat.organizationId,
          chatId: chat.id,
          visitorKey: key,
          agentId: copyId!,
          identityId: identity.id,
        });
        return copyId!;
      });
    } catch (error) {
      // The visitor's other tab started their conversation first: that one is theirs, this copy goes.
      await deps.agents.delete(ctx, copyId!);
      if (!(error instanceof UniqueViolationError)) throw error;
      const winner = await existingConversation(chat, key);
      if (!winner) throw error;
      return winner;
    }
  }

  return {
    async getConfiguration(ctx: RequestContext, projectId: string, agentId: string): Promise<SharedChat> {
      return configurationOf(ctx, await agentInProject(ctx, projectId, agentId));
    },

    async setConfiguration(ctx: RequestContext, projectId: string, agentId: string, accessLevel: ShareAccessLevel): Promise<SharedChat> {
      const chat = await configurationOf(ctx, await agentInProject(ctx, projectId, agentId));
      return chat.$query(db).patchAndFetch({ accessLevel, sharedBy: ctx.userId });
    },

    async open(chatId: string, visitor: Visitor): Promise<SharedChatView> {
      const { chat, agent } = await openChat(chatId, visitor);
      return {
        chat,
        agent,
        isMember: visitor.access?.organizationId === chat.organizationId,
        hasConversation: (await existingConversation(chat, visitorKey(visitor))) !== null,
      };
    },

    /** The visitor's own conversation, oldest first; empty before their first message. */
    async listMessages(chatId: string, visitor: Visitor, requestId: string): Promise<LettaMessage[]> {
      const { chat, agent } = await openChat(chatId, visitor);
      const conversationAgentId = await existingConversation(chat, visitorKey(visitor));
      if (!conversationAgentId) return [];
      return deps.messages.listAgentMessages(sharingContext(chat.organizationId, chat.sharedBy, requestId, agent.projectId), conversationAgentId, {
        limit: 100,
        order: 'asc',
        useAssistantMessage: true,
        assistantMessageToolName: 'send_message',
        assistantMessageToolKwarg: 'message',
        includeErr: false,
      });
    },

    /** Starts a run of the visitor's conversation with their message (their conversation begins with it). */
    async sendMessage(chatId: string, visitor: Visitor, text: string, requestId: string): Promise<{ ctx: RequestContext; run: Run; runRequest: RunRequest }> {
      const { chat, agent } = await openChat(chatId, visitor);
      const key = visitorKey(visitor);
      if (!key) throw new NotFoundError('Chat');
      if (!visitor.access) {
        assertAllowed(await deps.rateLimiter.attempt(`shared-chat:messages:${chat.id}:${visitor.ip}`, ANONYMOUS_MESSAGES_PER_IP), 'Too many messages from your address');
      }
      const conversationAgentId = (await existingConversation(chat, key)) ?? (await startConversation(chat, agent, visitor, key, requestId));
      const ctx = sharingContext(chat.organizationId, chat.sharedBy, requestId, agent.projectId);
      const runRequest = platformRunRequest([{ type: 'message', role: 'user', content: text }], { streamTokens: true });
      const { run } = await deps.runs.createRun(ctx, conversationAgentId, runRequest, { runType: 'send_message_streaming', background: false, callbackUrl: null });
      return { ctx, run, runRequest };
    },

    /** Makes the chat of an agent a launch link just made for one visitor. */
    async createForLaunch(trx: Database, input: { organizationId: string; agentId: string; launchLinkId: string; accessLevel: ShareAccessLevel; sharedBy: string; ownerVisitorKey: string }) {
      return SharedChat.query(trx).insert({ id: newId('sharedChat'), ...input });
    },
  };
}

export type SharedChatService = ReturnType<typeof createSharedChatService>;
