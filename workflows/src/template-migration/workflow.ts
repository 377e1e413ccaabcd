import { condition, continueAsNew, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { MigrationEnd, TemplateMigrationActivities } from '@engram/activities';
import { RUN_STATUS } from '../search-attributes.js';
import type { TemplateMigrationInput } from './ids.js';
import { abortTemplateMigrationSignal } from './messages.js';

// A batch heartbeats after every agent, so a dead worker is noticed in seconds and the batch goes to another
// worker, which skips the agents already recorded as migrated.
const migration = proxyActivities<TemplateMigrationActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** Agents per activity call: bounded, so a retried batch redoes little and history stays small. */
export const AGENTS_PER_BATCH = 25;
/** How often agents that were mid-run are tried again, and for how long before they count as failed. */
const BUSY_RETRY_INTERVAL = '1 second';
const BUSY_RETRY_ROUNDS = 600;

/**
 * Moves every agent of a template to a new version: lists them, then migrates them in bounded batches, each
 * agent atomically. An agent mid-run is migrated once its run is over. The abort signal (or the flag in
 * PostgreSQL the activities read) stops it at the next agent: agents done stay on the new version, the others on
 * the old one. Progress lives in PostgreSQL, so history holds only counts.
 */
export async function templateMigrationWorkflow(input: TemplateMigrationInput): Promise<{ end: MigrationEnd }> {
  let abortRequested = input.abortRequested ?? false;
  setHandler(abortTemplateMigrationSignal, () => {
    abortRequested = true;
  });
  const ref = { organizationId: input.organizationId, migrationId: input.migrationId };
  const finish = async (end: MigrationEnd, busyReason?: string) => {
    await migration.finishTemplateMigration({ ...ref, end, ...(busyReason ? { busyReason } : {}) });
    upsertSearchAttributes([{ key: RUN_STATUS, value: end }]);
    return { end };
  };

  await migration.listTemplateMigrationAgents(ref);
  let busyRounds = 0;
  for (;;) {
    if (abortRequested) return finish('aborted');
    if (workflowInfo().continueAsNewSuggested) return continueAsNew<typeof templateMigrationWorkflow>({ ...input, abortRequested });
    const batch = await migration.migrateTemplateAgentBatch({ ...ref, size: AGENTS_PER_BATCH });
    if (batch.aborted) return finish('aborted');
    if (batch.pending > 0) continue;
    if (batch.busy === 0) return finish('completed');
    if (++busyRounds > BUSY_RETRY_ROUNDS) return finish('completed', 'The agent was still mid-run when the migration ended');
    await condition(() => abortRequested, BUSY_RETRY_INTERVAL);
    await migration.retryBusyTemplateAgents(ref);
  }
}
