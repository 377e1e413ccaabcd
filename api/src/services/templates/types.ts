import type { TemplateSnapshot } from '@engram/core/templates/snapshot';
import type { AgentTemplate, AgentTemplateVersion, SimulatedAgent, TemplateMigration } from '@engram/db';

export type TemplateView = {
  template: AgentTemplate;
  projectSlug: string;
  /** The id of the newest saved version. */
  latestVersionId: string | null;
  /** The working state differs from the newest saved version. */
  hasUnsavedChanges: boolean;
};

/** A resolved `name:version`: a saved version, or (for `dev`) the working state with no version. */
export type VersionRef = { template: AgentTemplate; version: AgentTemplateVersion | null; snapshot: TemplateSnapshot };

export type MigrationView = {
  migration: TemplateMigration;
  workflowId: string;
  templateVersion: string;
  total: number;
  migrated: number;
  failed: number;
  untouched: number;
  failures: Array<{ agentId: string; reason: string }>;
};

/** A template's simulated agent: corrupted while its agent could not be built (or is gone), with the reason. */
export type SimulatedAgentView = {
  simulated: SimulatedAgent;
  template: AgentTemplate;
  isCorrupted: boolean;
  reason: string | null;
};
