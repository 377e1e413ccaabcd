import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SHARE_ACCESS_LEVELS, type LaunchLink, type SharedChat } from '@engram/db';
import type { LaunchMetadata } from '../../services/sharing/launch-link-service.js';
import type { SharedChatView } from '../../services/sharing/shared-chat-service.js';
import type { Visitor } from '../../services/sharing/visitors.js';

export const ShareAccessLevelSchema = z.enum(SHARE_ACCESS_LEVELS);

/** Spec 000 §3: accessLevel, agentId, isFromLaunchLink, chatId. */
export const SharedChatConfigurationSchema = z.object({
  accessLevel: ShareAccessLevelSchema,
  agentId: z.string(),
  isFromLaunchLink: z.boolean(),
  chatId: z.string(),
});

export function sharedChatConfigurationToWire(chat: SharedChat): z.infer<typeof SharedChatConfigurationSchema> {
  return { accessLevel: chat.accessLevel, agentId: chat.agentId, isFromLaunchLink: chat.launchLinkId !== null, chatId: chat.id };
}

/** What a visitor of `/chat/{chatId}` sees of the chat; the agent's id only for its own organization's members. */
export const SharedChatSchema = z.object({
  chatId: z.string(),
  accessLevel: ShareAccessLevelSchema,
  isFromLaunchLink: z.boolean(),
  agentId: z.string().nullable(),
  agentName: z.string(),
  agentDescription: z.string().nullable(),
  /** Whether this visitor has a conversation through the chat yet. */
  hasConversation: z.boolean(),
});

export function sharedChatToWire(view: SharedChatView): z.infer<typeof SharedChatSchema> {
  return {
    chatId: view.chat.id,
    accessLevel: view.chat.accessLevel,
    isFromLaunchLink: view.chat.launchLinkId !== null,
    agentId: view.isMember ? view.agent.id : null,
    agentName: view.agent.name,
    agentDescription: view.agent.description ?? null,
    hasConversation: view.hasConversation,
  };
}

/** Spec 000 §3: agentTemplateId, accessLevel, launchLink (the page's path on the app host). */
export const LaunchLinkSchema = z.object({ agentTemplateId: z.string(), accessLevel: ShareAccessLevelSchema, launchLink: z.string(), launchId: z.string() });

export function launchLinkToWire(link: LaunchLink): z.infer<typeof LaunchLinkSchema> {
  return { agentTemplateId: link.templateId, accessLevel: link.accessLevel, launchLink: `/launch/${link.id}`, launchId: link.id };
}

export const LaunchLinkMetadataSchema = z.object({
  launchId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  accessLevel: ShareAccessLevelSchema,
  /** What the launch form asks for. */
  memoryVariables: z.array(z.object({ key: z.string(), defaultValue: z.string().nullable(), type: z.string() })),
});

export function launchMetadataToWire(metadata: LaunchMetadata): z.infer<typeof LaunchLinkMetadataSchema> {
  return {
    launchId: metadata.link.id,
    name: metadata.template.name,
    description: metadata.template.description,
    accessLevel: metadata.link.accessLevel,
    memoryVariables: metadata.memoryVariables.map((variable) => ({ key: variable.key, defaultValue: variable.defaultValue, type: variable.type })),
  };
}

/** A signed-out browser's key for shared chats and launch links: random, httpOnly, its hash is what is stored. */
export const VISITOR_COOKIE = 'engram_visitor';

const VISITOR_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

/**
 * Who the request comes from. A signed-out browser without a visitor cookie gets one when `issue` is set
 * (its conversation or launched agent is then found again on its next visit). Returns the Set-Cookie value
 * too, for handlers that write the response themselves (event streams).
 */
export function visitorOf(request: FastifyRequest, reply: FastifyReply, options: { issue: boolean }): { visitor: Visitor; setCookie: string | null } {
  if (request.access) return { visitor: { access: request.access, browserKey: null, ip: request.ip }, setCookie: null };
  let token = request.cookies[VISITOR_COOKIE];
  let setCookie: string | null = null;
  if (!token && options.issue) {
    token = randomBytes(32).toString('base64url');
    const cookieOptions = { httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', path: '/api', maxAge: VISITOR_COOKIE_MAX_AGE_SECONDS } as const;
    reply.setCookie(VISITOR_COOKIE, token, cookieOptions);
    setCookie = request.server.serializeCookie(VISITOR_COOKIE, token, cookieOptions);
  }
  const browserKey = token ? createHash('sha256').update(token).digest('hex') : null;
  return { visitor: { access: null, browserKey, ip: request.ip }, setCookie };
}
