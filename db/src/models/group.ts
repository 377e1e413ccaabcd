import { TenantModel } from './base-model.js';

/** The manager types of the public API; `voice_sleeptime` and `swarm` are refused on create. */
export const GROUP_MANAGER_TYPES = ['round_robin', 'supervisor', 'dynamic', 'sleeptime', 'voice_sleeptime', 'swarm'] as const;
export type GroupManagerType = (typeof GROUP_MANAGER_TYPES)[number];

/** A multi-agent group: who speaks (members, and a manager agent for some types) and how turns go. */
export class Group extends TenantModel {
  static override tableName = 'groups';
  declare id: string;
  declare projectId: string | null;
  declare managerType: GroupManagerType;
  declare description: string;
  declare managerAgentId: string | null;
  declare terminationToken: string | null;
  declare maxTurns: number | null;
  declare sleeptimeAgentFrequency: number | null;
  declare turnsCounter: number;
  declare lastProcessedMessageId: string | null;
  declare maxMessageBufferLength: number | null;
  declare minMessageBufferLength: number | null;
  declare hidden: boolean | null;
  declare templateId: string | null;
  declare baseTemplateId: string | null;
  declare deploymentId: string | null;
  declare managed: boolean;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;
}

/** A member of a group, in speaking order. */
export class GroupAgent extends TenantModel {
  static override tableName = 'group_agents';
  static override hasTimestamps = false;
  static override idColumn = ['groupId', 'agentId'];
  declare groupId: string;
  declare agentId: string;
  declare position: number;
}

/** A block the group shares: attached to every member while it is attached to the group. */
export class GroupBlock extends TenantModel {
  static override tableName = 'group_blocks';
  static override hasTimestamps = false;
  static override idColumn = ['groupId', 'blockId'];
  declare groupId: string;
  declare blockId: string;
}

export type GroupTurnStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** One message to a group and the member runs that answered it, in speaking order. */
export class GroupTurn extends TenantModel {
  static override tableName = 'group_turns';
  static override jsonAttributes = ['request', 'usage', 'failure'];
  declare id: string;
  declare groupId: string;
  declare userId: string | null;
  declare status: GroupTurnStatus;
  declare stopReason: string | null;
  declare request: Record<string, unknown>;
  declare runIds: string[];
  declare usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number; step_count?: number };
  declare failure: { errorType: string; message: string } | null;
  declare completedAt: Date | null;
}

/** `cancelled`: the caller stopped waiting (it was cancelled or ended mid-call). */
export type AgentCallStatus = 'waiting' | 'answered' | 'sent' | 'refused' | 'cancelled';

/** One callee of a multi-agent tool call: the child run it got, or why it was refused. */
export class AgentCall extends TenantModel {
  static override tableName = 'agent_calls';
  declare id: string;
  declare callerRunId: string;
  declare callerAgentId: string;
  declare toolCallId: string;
  declare position: number;
  declare calleeAgentId: string;
  declare calleeRunId: string | null;
  declare waits: boolean;
  declare status: AgentCallStatus;
  declare refusal: string | null;
}
