import { Context } from '@temporalio/activity';
import { Agent, TemplateMigration, TemplateMigrationAgent, type Database } from '@engram/db';
import { migrateTemplateAgent } from '@engram/integrations/templates';

export type TemplateMigrationDeps = { db: Database };

export type MigrationRef = { organizationId: string; migrationId: string };

export type MigrationBatchResult = {
  /** The migration was aborted before this batch finished; the agents not reached stay as they were. */
  aborted: boolean;
  /** Agents still waiting for their turn after this batch. */
  pending: number;
  /** Agents that were mid-run when their turn came, to be tried again. */
  busy: number;
};

export type MigrationEnd = 'completed' | 'aborted';

/** Agents migrated at once within a batch: each is its own short transaction. */
const CONCURRENT_AGENTS = 4;

/**
 * The activities of `templateMigrationWorkflow`. All state lives in PostgreSQL (one row per agent), so each is
 * safe to repeat: a batch retried after its worker died skips the agents it already migrated.
 */
export function createTemplateMigrationActivities(deps: TemplateMigrationDeps) {
  const { db } = deps;

  async function countByStatus(ref: MigrationRef, status: string): Promise<number> {
    return TemplateMigrationAgent.query(db).forOrg(ref.organizationId).where({ migrationId: ref.migrationId, status }).resultSize();
  }

  return {
    /** Records every agent of the template not on the target version yet; returns how many there are. */
    async listTemplateMigrationAgents(ref: MigrationRef): Promise<{ total: number }> {
      const migration = await TemplateMigration.query(db).forOrg(ref.organizationId).findById(ref.migrationId);
      if (!migration) return { total: 0 };
      const agents = Agent.query(db)
        .forOrg(ref.organizationId)
        .where('agents.template_id', migration.templateId)
        .where((query) => {
          query.whereNull('agents.template_version_id').orWhereNot('agents.template_version_id', migration.toVersionId);
        })
        .select('agents.id');
      const rows = (await agents).map((agent) => ({
        migrationId: ref.migrationId,
        agentId: agent.id,
        organizationId: ref.organizationId,
        status: 'pending' as const,
      }));
      // A retried call (its worker died) finds the rows it already wrote and keeps their progress.
      for (let start = 0; start < rows.length; start += 500) {
        await TemplateMigrationAgent.query(db).insert(rows.slice(start, start + 500)).onConflict(['migration_id', 'agent_id']).ignore();
      }
      return { total: await TemplateMigrationAgent.query(db).forOrg(ref.organizationId).where({ migrationId: ref.migrationId }).resultSize() };
    },

    /** Migrates up to `size` pending agents, each atomically, stopping at the next agent once an abort is asked. */
    async migrateTemplateAgentBatch(input: MigrationRef & { size: number }): Promise<MigrationBatchResult> {
      const activity = Context.current();
      const batch = await TemplateMigrationAgent.query(db)
        .forOrg(input.organizationId)
        .where({ migrationId: input.migrationId, status: 'pending' })
        .orderBy('agentId')
        .limit(input.size);
      let next = 0;
      let aborted = false;
      const lane = async () => {
        while (!aborted && next < batch.length) {
          const { agentId } = batch[next++]!;
          const outcome = await migrateTemplateAgent(db, { organizationId: input.organizationId, migrationId: input.migrationId, agentId });
          if (outcome === 'aborted') aborted = true;
          activity.heartbeat();
        }
      };
      await Promise.all(Array.from({ length: CONCURRENT_AGENTS }, lane));
      return { aborted, pending: await countByStatus(input, 'pending'), busy: await countByStatus(input, 'busy') };
    },

    /** Gives agents that were mid-run another turn. */
    async retryBusyTemplateAgents(ref: MigrationRef): Promise<void> {
      await TemplateMigrationAgent.query(db)
        .forOrg(ref.organizationId)
        .where({ migrationId: ref.migrationId, status: 'busy' })
        .patch({ status: 'pending' });
    },

    /**
     * Closes the migration: after an abort the agents not reached are `untouched` (whole on their old version);
     * agents still mid-run when the migration gave up on them are failed with the reason.
     */
    async finishTemplateMigration(input: MigrationRef & { end: MigrationEnd; busyReason?: string }): Promise<void> {
      await db.transaction(async (trx) => {
        const agents = TemplateMigrationAgent.query(trx).forOrg(input.organizationId).where({ migrationId: input.migrationId });
        if (input.end === 'aborted') await agents.clone().whereIn('status', ['pending', 'busy']).patch({ status: 'untouched' });
        else await agents.clone().whereIn('status', ['pending', 'busy']).patch({ status: 'failed', failureReason: input.busyReason ?? null });
        await TemplateMigration.query(trx)
          .forOrg(input.organizationId)
          .findById(input.migrationId)
          .whereNull('completedAt')
          .patch({ status: input.end, completedAt: new Date() });
      });
    },
  };
}

export type TemplateMigrationActivities = ReturnType<typeof createTemplateMigrationActivities>;
