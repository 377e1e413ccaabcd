export { createDatabase, readTogether, type Database, type DatabaseOptions } from './connection.js';
export { migrateToLatest, rollbackAll } from './migrate.js';
export {
  resolvePostgresServer,
  createDatabaseIfMissing,
  dropDatabase,
  databaseUrlFor,
  canConnect,
  DatabaseUnavailableError,
  type PostgresServer,
} from './postgres-server.js';
export { newId, derivedId, derivedUuid, isId, idPattern, ID_PREFIXES, type IdKind } from './ids.js';
export * from './models/index.js';
export { createSecretBox, maskSecret, type SecretBox } from './secrets.js';
export { resealSecrets, type RotationReport } from './secret-rotation.js';
export { loadAgentSnapshot } from './queries/agent-snapshot.js';
export { copyIsolatedBlocks, lockMemoryBlock, memoryBlocksOf } from './queries/memory-blocks.js';
export { insertQueuedRun, type QueuedRunRecord } from './queries/queued-runs.js';
export * from './run-channels.js';
export { toStoredMessage, loadMessagesInOrder } from './queries/messages.js';
export { recompileSystemMessage } from './queries/system-message.js';
export { contextMessageIds, setContextMessageIds, type ContextOwner } from './queries/conversation-context.js';
export { ensureBaseTools } from './queries/base-tools.js';
export {
  applyFileViewLimits,
  openFileInAttachedAgents,
  openFileForAgent,
  openAgentFile,
  closeAgentFile,
  closeAllAgentFiles,
  closeOpenFiles,
  attachFolderToAgent,
  detachFolderFromAgent,
  markFilesAccessed,
  fileViewLimitsOfAgent,
} from './queries/file-agents.js';
export {
  MODEL_CALL_WINDOW_SECONDS,
  modelCallRefusal,
  modelRateLimitFor,
  registryNamesOf,
  takeModelCall,
  type ModelCall,
  type ModelCallDecision,
  type ModelRateLimit,
} from './queries/model-calls.js';
export { meterStep, bookTransaction, priceOfStep, DOLLARS_PER_CREDIT, type MeteredStep, type StepCharge, type Booking, type Booked } from './queries/ledger.js';
export { grantPeriodCredits, grantDueCredits, expireLapsedCredits, endCancelledPlans } from './queries/billing-periods.js';
