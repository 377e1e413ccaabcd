import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '@engram/activities';

export type EngramWorkerOptions = {
  address: string;
  namespace: string;
  taskQueue: string;
  workflowBundlePath: string;
  activityDeps: ActivityDeps;
};

export type EngramWorker = { worker: Worker; connection: NativeConnection };

export async function createWorker(options: EngramWorkerOptions): Promise<EngramWorker> {
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: { codePath: options.workflowBundlePath },
    activities: createActivities(options.activityDeps),
  });
  return { worker, connection };
}
