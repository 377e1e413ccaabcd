import { BaseModel, TenantModel } from './base-model.js';

/** Who may open a shared chat or a launch link (spec 000 §3). */
export const SHARE_ACCESS_LEVELS = ['restricted', 'organization', 'logged-in', 'everyone'] as const;
export type ShareAccessLevel = (typeof SHARE_ACCESS_LEVELS)[number];

/** Who may see a published agent file (spec 000 §3). */
export const AGENT_FILE_ACCESS_LEVELS = ['organization', 'logged-in', 'public', 'unlisted', 'none'] as const;
export type AgentFileAccessLevel = (typeof AGENT_FILE_ACCESS_LEVELS)[number];

/** A template's launch link: each visitor who opens it gets an agent of their own from the template. */
export class LaunchLink extends TenantModel {
  static override tableName = 'launch_links';
  declare id: string;
  declare templateId: string;
  declare accessLevel: ShareAccessLevel;
  declare sharedBy: string;
}

/** An agent's shared chat (`/chat/{id}`). */
export class SharedChat extends TenantModel {
  static override tableName = 'shared_chats';
  declare id: string;
  declare agentId: string;
  declare accessLevel: ShareAccessLevel;
  declare sharedBy: string;
  declare launchLinkId: string | null;
  declare ownerVisitorKey: string | null;
}

/** One visitor's own conversation through a shared chat: a copy of the agent, linked to the visitor's identity. */
export class SharedChatConversation extends TenantModel {
  static override tableName = 'shared_chat_conversations';
  declare id: string;
  declare chatId: string;
  declare visitorKey: string;
  declare agentId: string;
  declare identityId: string;
}

/** An agent published as an agent file, with what its readers did with it. */
export class PublishedAgentFile extends TenantModel {
  static override tableName = 'published_agent_files';
  static override jsonAttributes = ['content'];
  declare id: string;
  declare agentId: string | null;
  declare publishedBy: string | null;
  declare name: string;
  declare description: string;
  declare summary: string;
  declare accessLevel: AgentFileAccessLevel;
  declare content: Record<string, unknown>;
  declare downloadCount: number;
  declare upvotes: number;
  declare downvotes: number;
  declare publishedAt: Date;
}

/** One user's vote on a published agent file: 1 up, -1 down. */
export class AgentFileVote extends BaseModel {
  static override tableName = 'agent_file_votes';
  static override idColumn = ['agentFileId', 'userId'];
  declare agentFileId: string;
  declare userId: string;
  declare vote: 1 | -1;
}
