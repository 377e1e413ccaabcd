export { healthCheckWorkflow } from './health/workflows.js';
export { agentRunWorkflow } from './agent-run/run-workflow.js';
export { agentQueueWorkflow } from './agent-run/queue-workflow.js';
export { fileIngestionWorkflow } from './file-ingestion/workflow.js';
export { traceRetentionWorkflow } from './trace-retention/workflow.js';
export { messageBatchWorkflow } from './batch-messages/workflow.js';
export { templateMigrationWorkflow } from './template-migration/workflow.js';
export { scheduledMessageWorkflow } from './scheduled-message/workflow.js';
