import { TenantModel } from './base-model.js';

/** A thread of one agent with its own context window; the agent's memory, tools and files are shared. */
export class Conversation extends TenantModel {
  static override tableName = 'conversations';
  static override jsonAttributes = ['modelSettings'];
  declare id: string;
  declare agentId: string;
  /** The context window: its own system message first, then the messages the model sees. */
  declare messageIds: string[];
  /** Messages of the conversation it was forked from that start its context (listed with its own). */
  declare inheritedMessageIds: string[];
  declare summary: string | null;
  declare description: string | null;
  declare archived: boolean;
  declare archivedAt: Date | null;
  declare hidden: boolean;
  declare model: string | null;
  declare modelSettings: Record<string, unknown> | null;
  declare contextWindowLimit: number | null;
  /** Labels of the agent's blocks this conversation has a copy of (`ConversationBlock`); its other blocks are shared. */
  declare isolatedBlockLabels: string[];
  declare lastMessageAt: Date | null;
  declare deletedAt: Date | null;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;
}

/** A conversation's own copy of one of its agent's blocks: the conversation sees and edits it instead of the agent's. */
export class ConversationBlock extends TenantModel {
  static override tableName = 'conversation_blocks';
  static override hasTimestamps = false;
  static override idColumn = ['conversationId', 'label'];
  declare conversationId: string;
  declare blockId: string;
  declare label: string;
}
