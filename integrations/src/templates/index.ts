export {
  applySnapshotToAgent,
  migrateTemplateAgent,
  TemplateBlockTooLongError,
  TemplateVariablesMissingError,
  type AgentMigrationOutcome,
  type SnapshotApplication,
} from './migrate-agent.js';
