import { TenantModel } from './base-model.js';

export type RunStatus = 'created' | 'running' | 'completed' | 'failed' | 'cancelled';

export type RunUsage = {
  completion_tokens?: number;
  prompt_tokens?: number;
  total_tokens?: number;
  step_count?: number;
  /** The prompt size of the run's last step. */
  context_tokens?: number;
};

export class Run extends TenantModel {
  static override tableName = 'runs';
  static override jsonAttributes = ['metadata', 'requestConfig', 'request', 'usage'];
  declare id: string;
  declare projectId: string | null;
  declare agentId: string;
  /** The conversation the run answers in; null for the agent's default conversation. */
  declare conversationId: string | null;
  declare userId: string | null;
  declare status: RunStatus;
  declare stopReason: string | null;
  declare jobType: string;
  declare background: boolean;
  declare metadata: Record<string, unknown>;
  declare requestConfig: Record<string, unknown> | null;
  declare request: Record<string, unknown>;
  declare idempotencyKey: string | null;
  /** The run's input messages (stored when it was accepted) that its first step has not put in the agent's context yet. */
  declare pendingInputIds: string[];
  declare cancelRequested: boolean;
  declare callbackUrl: string | null;
  declare callbackSentAt: Date | null;
  declare callbackStatusCode: number | null;
  declare callbackError: string | null;
  declare ttftNs: string | number | null;
  declare totalDurationNs: string | number | null;
  declare usage: RunUsage;
  declare lastSeq: number;
  declare startedAt: Date | null;
  declare completedAt: Date | null;
}

/** One frame of a run's stream, in gap-free `seqId` order: what sync, SSE, replay and listings read. */
export class RunEvent extends TenantModel {
  static override tableName = 'run_events';
  static override hasTimestamps = false;
  static override idColumn = ['runId', 'seqId'];
  static override jsonAttributes = ['payload'];
  declare runId: string;
  declare seqId: number;
  declare messageType: string;
  declare payload: Record<string, unknown>;
}
