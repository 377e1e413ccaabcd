import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { createTemporalClient } from '@engram/temporal/client';
import { createBareActivities } from './activities.js';
import type { bareWorkflow } from './workflows.js';

const BARE_WORKFLOWS_PATH = fileURLToPath(new URL('./workflows.ts', import.meta.url));

export type BareWorkflowRunner = {
  /** Starts the bare workflow and waits for its result, as a client would. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * The bare Temporal baseline: its own bundle, worker and task queue on the same Temporal server,
 * with the same worker defaults as Engram's worker, so the difference to a send is Engram's own cost.
 */
export async function startBareWorkflowRunner(options: { temporalAddress: string; namespace: string }): Promise<BareWorkflowRunner> {
  const taskQueue = `bench-bare-${randomBytes(4).toString('hex')}`;
  // The bundler prints webpack stats at INFO otherwise.
  const bundle = await bundleWorkflowCode({ workflowsPath: BARE_WORKFLOWS_PATH, logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue,
    workflowBundle: { code: bundle.code },
    activities: createBareActivities(),
  });
  const workerRun = worker.run();
  const client = await createTemporalClient({ address: options.temporalAddress, namespace: options.namespace });

  return {
    async runOnce() {
      await client.workflow.execute<typeof bareWorkflow>('bareWorkflow', { taskQueue, workflowId: `bare-${randomUUID()}` });
    },
    async stop() {
      worker.shutdown();
      await workerRun;
      await connection.close();
      await client.connection.close();
    },
  };
}
