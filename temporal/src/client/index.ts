/**
 * What a process that starts, signals and reads workflows needs (the API, scripts, tests): no worker, no
 * activity, no workflow code — only workflow ids, message definitions and search attributes from `@engram/workflows`.
 */
export { createTemporalClient, type TemporalClientOptions } from './connection.js';
export { createAgentRunClient, type AgentRunClient, type EnqueueRun } from './agent-runs.js';
export { createFileIngestionClient, type FileIngestionClient } from './file-ingestion.js';
export { ensureTraceRetentionSchedule } from './trace-retention.js';
export { createAutoTopUpClient, type AutoTopUpClient } from './auto-top-ups.js';
export { ensureBillingPeriodSchedule } from './billing-periods.js';
export { createTemplateMigrationClient, type TemplateMigrationClient } from './template-migrations.js';
export { createLettaImportClient, type LettaImportClient } from './letta-imports.js';
export { createDatasetRunClient, type DatasetRunClient } from './dataset-runs.js';
export { createMessageBatchClient, type MessageBatchClient } from './message-batches.js';
export { createGroupTurnClient, type GroupTurnClient } from './group-turns.js';
export {
  createScheduledMessageClient,
  type ScheduledMessageClient,
  type MessageScheduleSpec,
} from './scheduled-messages.js';
export { parseTemporalConfig, ConfigError, firstIssueLine, withoutEmptyValues, type TemporalConfig } from '../config.js';
export { AGENT_RUNS_TASK_QUEUE } from '../task-queues.js';
export * from '@engram/workflows/search-attributes';
