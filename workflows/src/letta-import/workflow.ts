import { continueAsNew, executeChild, isCancellation, proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { LettaImportActivities } from '@engram/activities';
import { RUN_STATUS } from '../search-attributes.js';
import { fileIngestionWorkflow } from '../file-ingestion/workflow.js';
import { fileIngestionWorkflowId } from '../file-ingestion/ids.js';
import type { LettaImportInput } from './ids.js';

// Each activity heartbeats while it works, so a dead worker is noticed in seconds and the step goes to another
// worker, which continues from the mappings and cursors in PostgreSQL. A source that stays unreachable ends the
// run after the retries, failed with the reason.
const steps = proxyActivities<LettaImportActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 8 },
});

const finishing = proxyActivities<LettaImportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds' },
});

/** Agents per activity call: bounded, so history stays small and a retried batch redoes at most a few agents. */
export const AGENTS_PER_BATCH = 5;

/**
 * Moves an organization from a server speaking the Letta `/v1` API: plans (a dry run ends there), then the tools,
 * identities and MCP servers agents refer to, then folders (each file ingested by its own child workflow), then agents in bounded batches (each with its whole history and passages), then
 * what links agents (groups, identities' blocks). Progress and the report live in PostgreSQL; history holds only
 * counts. `resumed` marks a continued-as-new run past planning.
 */
export async function lettaImportWorkflow(input: LettaImportInput & { resumed?: boolean }): Promise<{ status: 'completed' | 'failed' }> {
  const ref = { organizationId: input.organizationId, importId: input.importId };
  try {
    if (!input.resumed) {
      const plan = await steps.planLettaImport(ref);
      if (plan.dryRun) {
        await finishing.finishLettaImport(ref);
        upsertSearchAttributes([{ key: RUN_STATUS, value: 'completed' }]);
        return { status: 'completed' };
      }
      await steps.importLettaShared(ref);
      const { fileIds } = await steps.importLettaFolders(ref);
      // Each file is chunked and embedded here by the ingestion workflow, as an upload is; one that fails is
      // marked so on the file and does not fail the import.
      for (const fileId of fileIds) {
        await executeChild(fileIngestionWorkflow, { workflowId: fileIngestionWorkflowId(fileId), args: [{ organizationId: ref.organizationId, fileId }] }).catch(
          () => undefined,
        );
      }
    }
    for (;;) {
      if (workflowInfo().continueAsNewSuggested) return continueAsNew<typeof lettaImportWorkflow>({ ...input, resumed: true });
      const batch = await steps.importLettaAgentBatch({ ...ref, size: AGENTS_PER_BATCH });
      if (batch.pending === 0) break;
    }
    await steps.importLettaLinks(ref);
    await finishing.finishLettaImport(ref);
    upsertSearchAttributes([{ key: RUN_STATUS, value: 'completed' }]);
    return { status: 'completed' };
  } catch (error) {
    if (isCancellation(error)) throw error;
    // An activity's failure wraps the error it threw, whose message is the reason worth reporting.
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    await finishing.finishLettaImport({ ...ref, failure: reason });
    upsertSearchAttributes([{ key: RUN_STATUS, value: 'failed' }]);
    return { status: 'failed' };
  }
}
