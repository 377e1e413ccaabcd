import { TenantModel } from './base-model.js';

export type LettaImportStatus = 'running' | 'completed' | 'failed';
export type LettaImportPhase = 'planning' | 'shared' | 'agents' | 'links' | 'done';

/** What the source holds, as a dry run (and every run's first step) counted it. */
export type LettaImportPlan = {
  agents: Array<{ sourceId: string; name: string; messages: number; passages: number }>;
  blocks: number;
  tools: number;
  identities: number;
  groups: number;
  folders: number;
  files: number;
  mcpServers: number;
  conversations: number;
};

/** Something the run could not move, with why; `sourceId` names it on the source. */
export type LettaImportProblem = { kind: string; sourceId: string | null; name: string | null; reason: string };

/** One migration run from a server speaking the Letta `/v1` API into this organization. */
export class LettaImport extends TenantModel {
  static override tableName = 'letta_imports';
  static override jsonAttributes = ['plan', 'problems'];
  declare id: string;
  declare projectId: string;
  declare createdById: string | null;
  declare sourceUrl: string;
  /** The source's API key, sealed with the deployment's secret box; never logged, never answered. */
  declare apiKeyEnc: string;
  declare dryRun: boolean;
  declare status: LettaImportStatus;
  declare phase: LettaImportPhase;
  declare plan: LettaImportPlan | null;
  declare problems: LettaImportProblem[];
  declare error: string | null;
  declare completedAt: Date | null;
}

export type LettaImportAgentStatus = 'pending' | 'done' | 'failed';

/** One source agent of a run: its queue entry, with the paging cursors a resumed worker continues from. */
export class LettaImportAgent extends TenantModel {
  static override tableName = 'letta_import_agents';
  static override hasTimestamps = false;
  static override idColumn = ['importId', 'sourceAgentId'];
  declare importId: string;
  declare sourceAgentId: string;
  declare name: string;
  declare status: LettaImportAgentStatus;
  declare messagesCursor: string | null;
  declare messagesDone: number;
  declare passagesCursor: string | null;
  declare passagesDone: number;
  declare failureReason: string | null;
}

export type LettaImportKind = 'agent' | 'block' | 'tool' | 'identity' | 'group' | 'folder' | 'file' | 'mcp_server' | 'conversation';

/** What a source id became here, per organization and source, so no run creates it twice. */
export class LettaImportMapping extends TenantModel {
  static override tableName = 'letta_import_mappings';
  static override hasTimestamps = false;
  static override idColumn = ['organizationId', 'sourceUrl', 'kind', 'sourceId'];
  declare sourceUrl: string;
  declare kind: LettaImportKind;
  declare sourceId: string;
  declare targetId: string;
  declare importId: string;
}
