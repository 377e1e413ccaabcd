import type { Database, SecretBox } from '@engram/db';
import { createHealthActivities } from './health/check-database.js';
import { createAgentRunActivities } from './agent-run/index.js';
import { createToolActivities } from './tools/index.js';
import { createFileIngestionActivities } from './files/index.js';
import { createObservabilityActivities } from './observability/index.js';
import { createTemplateMigrationActivities } from './templates/index.js';
import { createBatchActivities } from './batches/index.js';
import { createDatasetActivities } from './datasets/index.js';
import { createScheduleActivities } from './schedules/index.js';
import { createGroupActivities } from './groups/index.js';
import { createSleeptimeActivities } from './sleeptime/index.js';
import { createAgentCallActivities } from './agent-calls/index.js';
import { createLettaImportActivities } from './letta-import/index.js';
import type { BaseProviderConfig } from '@engram/integrations/llm';
import type { SandboxIsolation } from '@engram/integrations/sandbox';
import type { EgressPolicy } from '@engram/integrations/egress';
import type { McpStdioPolicy } from '@engram/integrations/mcp';
import { createOutboxNotifier, type Notifier } from '@engram/integrations/notifications';
import { unconfiguredGateway, type PaymentGateway } from '@engram/integrations/payments';
import { createAutoTopUpActivities, createBillingPeriodActivities } from './billing/index.js';
import type { ActivityTracing } from './agent-run/spans.js';

/** `tracing`: model calls, tool executions and memory edits become spans of their run's trace (none when absent). */
export type ActivityDeps = {
  db: Database;
  baseProviders: BaseProviderConfig[];
  secrets: SecretBox;
  /**
   * What URLs organizations supplied may reach (run callbacks, their model providers, MCP servers, networked tool
   * sandboxes), parsed once at the worker's start.
   */
  egress: EgressPolicy;
  /** Which organizations may run stdio MCP servers (ENGRAM_MCP_STDIO), and the sandbox they run in. */
  mcpStdio: McpStdioPolicy;
  tracing?: ActivityTracing;
  /** How the worker isolates local tools, found once at its start (ENGRAM_UNSAFE_LOCAL_TOOLS decides what happens where namespaces are unavailable). */
  sandboxIsolation?: SandboxIsolation;
  /** Charges auto top-ups (Stripe when STRIPE_SECRET_KEY is set; otherwise a top-up fails with an error naming it). */
  payments?: PaymentGateway;
  /** Tells admins about a declined auto top-up; the outbox alone unless the worker is given an SMTP notifier. */
  notifier?: Notifier;
  /** Signals the organization's auto top-up workflow when a step takes its balance below the threshold. */
  requestTopUp?: (organizationId: string) => Promise<void>;
};

/** Every activity the worker registers, built from injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
    ...createAgentRunActivities(deps),
    ...createToolActivities(deps),
    ...createFileIngestionActivities(deps),
    ...createObservabilityActivities(deps),
    ...createTemplateMigrationActivities(deps),
    ...createBatchActivities(deps),
    ...createDatasetActivities(deps),
    ...createScheduleActivities(deps),
    ...createGroupActivities(deps),
    ...createSleeptimeActivities(deps),
    ...createAgentCallActivities(deps),
    ...createLettaImportActivities(deps),
    ...createBillingPeriodActivities(deps),
    ...createAutoTopUpActivities({ db: deps.db, payments: deps.payments ?? unconfiguredGateway, notifier: deps.notifier ?? createOutboxNotifier({ db: deps.db }) }),
  };
}

export type Activities = ReturnType<typeof createActivities>;

// What the worker wiring and the workflows (as types) need; everything shared with the API is in @engram/integrations.
export type { HealthActivities } from './health/check-database.js';
export type { AgentRunActivities, AgentRunDeps } from './agent-run/index.js';
export type { ActivityTracing } from './agent-run/spans.js';
export type { ToolActivities } from './tools/index.js';
export type { ObservabilityActivities } from './observability/index.js';
export type { BatchActivities } from './batches/index.js';
export type { DatasetActivities, DispatchedDatasetItem } from './datasets/index.js';
export type { ScheduleActivities } from './schedules/index.js';
export type { GroupActivities, GroupTurnPlan, MemberRunOutcome, MemberRole } from './groups/index.js';
export type { SleeptimeActivities, SleeptimeRun } from './sleeptime/index.js';
export type { AgentCallActivities, AgentCallAnswer, PlannedAgentCalls } from './agent-calls/index.js';
export type { AutoTopUpActivities, AutoTopUpInput, AutoTopUpOutcome, BillingPeriodActivities } from './billing/index.js';
export { createMarkRunAbandoned } from './agent-run/finish-run.js';
export { CHUNKS_PER_BATCH, type ChunkBatch, type FileIngestionActivities, type FileRef } from './files/index.js';
export type { MigrationEnd, MigrationBatchResult, TemplateMigrationActivities } from './templates/index.js';
export type { LettaImportActivities } from './letta-import/index.js';
