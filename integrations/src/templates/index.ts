export {
  applySnapshotToAgent,
  migrateTemplateAgent,
  TemplateBlockTooLongError,
  type AgentMigrationOutcome,
  type SnapshotApplication,
} from './migrate-agent.js';
