import {
  fillPlaceholders,
  memoryVariablesOf,
  missingVariablesMessage,
  planBlockMigration,
  resolveMemoryVariables,
  type BlockReconciliationStrategy,
  type TemplateBlock,
  type TemplateSnapshot,
} from '@engram/core/templates/snapshot';
import {
  Agent,
  AgentBlock,
  AgentTool,
  AgentTemplateVersion,
  Block,
  Run,
  TemplateMigration,
  TemplateMigrationAgent,
  Tool,
  newId,
  recompileSystemMessage,
  type Database,
  type EmbeddingConfig,
  type LlmConfig,
} from '@engram/db';
import type { Knex } from 'knex';

/** What one agent's turn in a migration came to. */
export type AgentMigrationOutcome = 'migrated' | 'already_migrated' | 'busy' | 'failed' | 'aborted';

/** Runs in these states hold their agent: a migration waits until they end. */
const ACTIVE_RUN_STATUSES = ['created', 'running'];

/** A block whose value, once its memory variables are filled, would not fit its limit: the agent cannot take the snapshot. */
export class TemplateBlockTooLongError extends Error {}

/** A variable of the snapshot has no value for the agent and no default: applying it would leave `{{…}}` in the agent. */
export class TemplateVariablesMissingError extends Error {
  constructor(readonly missing: string[]) {
    super(missingVariablesMessage(missing));
  }
}

function blockFields(block: TemplateBlock, value: string) {
  if (value.length > block.limit) {
    throw new TemplateBlockTooLongError(`Block '${block.label}' would hold ${value.length} characters, more than its limit of ${block.limit}`);
  }
  return {
    value,
    limit: block.limit,
    description: block.description,
    readOnly: block.readOnly,
    preserveOnMigration: block.preserveOnMigration,
  };
}

export type SnapshotApplication = { strategy: BlockReconciliationStrategy; preserveCoreMemories: boolean };

async function reconcileBlocks(
  trx: Knex,
  organizationId: string,
  agent: Agent,
  templateBlocks: TemplateBlock[],
  variables: Readonly<Record<string, string>>,
  options: SnapshotApplication,
): Promise<void> {
  const attached = (await Block.query(trx)
    .forOrg(organizationId)
    .join('agent_blocks', 'agent_blocks.block_id', 'blocks.id')
    .where('agent_blocks.agent_id', agent.id)
    .select('blocks.*', 'agent_blocks.position as position')) as Array<Block & { position: number }>;
  const byLabel = new Map(attached.map((block) => [block.label, block]));
  const plan = planBlockMigration(attached, templateBlocks, variables, options);

  for (const change of plan.update) {
    await Block.query(trx).forOrg(organizationId).findById(byLabel.get(change.label)!.id).patch(blockFields(change.block, change.value));
  }
  let position = Math.max(-1, ...attached.map((block) => block.position));
  for (const change of plan.create) {
    const block = await Block.query(trx).insert({
      id: newId('block'),
      organizationId,
      projectId: agent.projectId,
      label: change.label,
      ...blockFields(change.block, change.value),
      metadata: {},
      tags: [],
    });
    position += 1;
    await AgentBlock.query(trx).insert({ agentId: agent.id, blockId: block.id, organizationId, label: change.label, position });
  }
  if (plan.remove.length > 0) {
    const removed = plan.remove.map((label) => byLabel.get(label)!.id);
    await AgentBlock.query(trx).forOrg(organizationId).where({ agentId: agent.id }).whereIn('blockId', removed).delete();
    await Block.query(trx)
      .forOrg(organizationId)
      .whereIn('blocks.id', removed)
      .whereNotExists(AgentBlock.query(trx).whereColumn('agent_blocks.block_id', 'blocks.id'))
      .delete();
  }
}

async function replaceTools(trx: Knex, organizationId: string, agentId: string, toolIds: string[]): Promise<void> {
  // A tool deleted since the version was saved is left out rather than failing the agent.
  const existing = await Tool.query(trx).forOrg(organizationId).whereIn('id', toolIds).select('id');
  await AgentTool.query(trx).forOrg(organizationId).where({ agentId }).delete();
  if (existing.length > 0) {
    await AgentTool.query(trx).insert(existing.map((tool) => ({ agentId, toolId: tool.id, organizationId })));
  }
}

/**
 * Makes an agent what a template snapshot builds, inside the caller's transaction: blocks reconciled per the
 * options (filled with the agent's memory variables, new variables taking their defaults), tools, rules,
 * model and system prompt replaced, the system message recompiled. Message history is kept. A variable with
 * neither a value nor a default refuses the whole change (`TemplateVariablesMissingError`) before anything is written.
 */
export async function applySnapshotToAgent(
  trx: Knex,
  organizationId: string,
  agent: Agent,
  snapshot: TemplateSnapshot,
  options: SnapshotApplication,
  /** Further fields of the agent written with the same update: the version it is now on, its tags. */
  fields: { templateVersionId?: string; tags?: string[] } = {},
): Promise<void> {
  // Variables a newer snapshot declares take their defaults; one without a default must have a value.
  const { values, missing } = resolveMemoryVariables(memoryVariablesOf(snapshot), agent.memoryVariables ?? {});
  if (missing.length > 0) throw new TemplateVariablesMissingError(missing);
  await reconcileBlocks(trx, organizationId, agent, snapshot.blocks, values, options);
  await replaceTools(trx, organizationId, agent.id, snapshot.toolIds);
  await Agent.query(trx)
    .forOrg(organizationId)
    .findById(agent.id)
    .patch({
      system: fillPlaceholders(snapshot.system, values),
      agentType: snapshot.agentType,
      // A snapshot's configs were taken from an agent's, or checked against the same wire schemas.
      llmConfig: snapshot.llmConfig as LlmConfig,
      embeddingConfig: snapshot.embeddingConfig as EmbeddingConfig | null,
      toolRules: snapshot.toolRules,
      memoryVariables: values,
      ...fields,
    });
  await recompileSystemMessage(trx, organizationId, agent.id, new Date());
}

/**
 * Moves one agent of a migration to the migration's version, in one transaction with its migration record, so
 * a retried call (a worker that died mid-batch) finds it done and changes nothing. The agent's row is locked
 * first: a run being accepted for it meanwhile waits (its foreign key needs that row), and a run already
 * accepted and not finished leaves the agent `busy`, to be tried again once that run is over. Message history
 * is kept; blocks are reconciled per the migration's strategy; tools, rules, model and system prompt replaced.
 */
export async function migrateTemplateAgent(
  db: Database,
  input: { organizationId: string; migrationId: string; agentId: string },
): Promise<AgentMigrationOutcome> {
  const { organizationId, migrationId, agentId } = input;
  try {
    return await db.transaction((trx) => migrateLocked(trx, input));
  } catch (error) {
    if (!(error instanceof TemplateBlockTooLongError) && !(error instanceof TemplateVariablesMissingError)) throw error;
    // The agent's changes were rolled back with the transaction; only the reason is recorded.
    await TemplateMigrationAgent.query(db)
      .forOrg(organizationId)
      .findById([migrationId, agentId])
      .whereNot('status', 'migrated')
      .patch({ status: 'failed', failureReason: error.message });
    return 'failed';
  }
}

async function migrateLocked(
  trx: Knex,
  input: { organizationId: string; migrationId: string; agentId: string },
): Promise<AgentMigrationOutcome> {
  const { organizationId, migrationId, agentId } = input;
  const migration = await TemplateMigration.query(trx).forOrg(organizationId).findById(migrationId);
  if (!migration || migration.abortRequested) return 'aborted';
  const record = await TemplateMigrationAgent.query(trx).forOrg(organizationId).findById([migrationId, agentId]).forUpdate();
  if (!record || record.status === 'migrated') return 'already_migrated';
  if (record.status === 'failed') return 'failed';
  if (record.status === 'untouched') return 'aborted';
  const agent = await Agent.query(trx).forOrg(organizationId).findById(agentId).forUpdate();
  if (!agent) {
    await record.$query(trx).patch({ status: 'failed', failureReason: 'The agent was deleted' });
    return 'failed';
  }
  const activeRun = await Run.query(trx).forOrg(organizationId).where({ agentId }).whereIn('status', ACTIVE_RUN_STATUSES).first();
  if (activeRun) {
    await record.$query(trx).patch({ status: 'busy' });
    return 'busy';
  }
  const version = await AgentTemplateVersion.query(trx).forOrg(organizationId).findById(migration.toVersionId);
  if (!version) {
    await record.$query(trx).patch({ status: 'failed', failureReason: 'The template version was deleted' });
    return 'failed';
  }
  const options = { strategy: migration.blockReconciliationStrategy, preserveCoreMemories: migration.preserveCoreMemories };
  // The migration's values fill the variables the agent has none of its own for.
  agent.memoryVariables = { ...migration.memoryVariables, ...agent.memoryVariables };
  await applySnapshotToAgent(trx, organizationId, agent, version.snapshot, options, { templateVersionId: version.id });
  await record.$query(trx).patch({ status: 'migrated', migratedAt: new Date(), failureReason: null });
  return 'migrated';
}
