import type { Database, SecretBox } from '@engram/db';
import { createCompactContext } from '@engram/integrations/compaction';
import type { BaseProviderConfig } from '@engram/integrations/llm';
import type { EgressPolicy } from '@engram/integrations/egress';
import { createApplyModelTurn, createCompleteToolStep } from './apply-turn.js';
import { createBeginRun } from './begin-run.js';
import { createRunStep } from './run-step.js';
import { createCallModel } from './call-model.js';
import type { ActivityTracing } from './spans.js';
import { createFinishedRuns, createFinishRun, createMarkRunAbandoned, createSendRunCallback } from './finish-run.js';

export type AgentRunDeps = {
  db: Database;
  baseProviders: BaseProviderConfig[];
  secrets: SecretBox;
  /** Organizations' own model providers and run callbacks are reached through it. */
  egress: EgressPolicy;
  tracing?: ActivityTracing;
  /** Signals the organization's auto top-up when a metered step takes the balance below its threshold. */
  requestTopUp?: (organizationId: string) => Promise<void>;
};

export function createAgentRunActivities(deps: AgentRunDeps) {
  return {
    beginRun: createBeginRun(deps),
    callModel: createCallModel(deps),
    runStep: createRunStep(deps),
    applyModelTurn: createApplyModelTurn(deps),
    completeToolStep: createCompleteToolStep(deps),
    compactContext: createCompactContext(deps),
    finishRun: createFinishRun(deps),
    markRunAbandoned: createMarkRunAbandoned(deps),
    sendRunCallback: createSendRunCallback(deps),
    finishedRuns: createFinishedRuns(deps),
  };
}

export type AgentRunActivities = ReturnType<typeof createAgentRunActivities>;
