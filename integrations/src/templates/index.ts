export { migrateTemplateAgent, type AgentMigrationOutcome } from './migrate-agent.js';
