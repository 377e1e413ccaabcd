export { createTemporalClient, type TemporalClientOptions } from './client/connection.js';
export { createAgentRunClient, type AgentRunClient, type EnqueueRun } from './client/agent-runs.js';
export { createFileIngestionClient, type FileIngestionClient } from './client/file-ingestion.js';
export { ensureTraceRetentionSchedule } from './client/trace-retention.js';
export { createAutoTopUpClient, type AutoTopUpClient } from './client/auto-top-ups.js';
export { ensureBillingPeriodSchedule } from './client/billing-periods.js';
export { createTemplateMigrationClient, type TemplateMigrationClient } from './client/template-migrations.js';
export { createLettaImportClient, type LettaImportClient } from './client/letta-imports.js';
export { createDatasetRunClient, type DatasetRunClient } from './client/dataset-runs.js';
export { createMessageBatchClient, type MessageBatchClient } from './client/message-batches.js';
export { createGroupTurnClient, type GroupTurnClient } from './client/group-turns.js';
export {
  createScheduledMessageClient,
  type ScheduledMessageClient,
  type MessageScheduleSpec,
} from './client/scheduled-messages.js';
export { createWorker, type EngramWorker, type EngramWorkerOptions } from './worker.js';
export { buildWorkflowBundle, writeWorkflowBundle, DEFAULT_BUNDLE_PATH } from './bundle.js';
export {
  ensureTemporalCli,
  findTemporalCli,
  startDevServer,
  waitForTemporal,
  defaultCliCacheDir,
  TEMPORAL_CLI_MODULE,
  type DevServer,
} from './dev-server.js';
export { parseTemporalConfig, ConfigError, firstIssueLine, withoutEmptyValues, type TemporalConfig } from './config.js';
export { AGENT_RUNS_TASK_QUEUE } from './task-queues.js';
export * from '@engram/workflows/search-attributes';
