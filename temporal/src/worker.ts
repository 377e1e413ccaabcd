import { Client } from '@temporalio/client';
import { NativeConnection, Worker, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import { createActivities, createMarkRunAbandoned, type ActivityDeps } from '@engram/activities';
import type { Telemetry } from '@engram/integrations/telemetry';
import { createAutoTopUpClient } from './client/auto-top-ups.js';
import { watchAbandonedRuns } from './abandoned-runs.js';

export type EngramWorkerOptions = {
  address: string;
  namespace: string;
  taskQueue: string;
  workflowBundlePath: string;
  activityDeps: ActivityDeps;
  /** Activities run in their caller's trace, and the workflow sandbox's spans are exported with this process's. */
  telemetry?: Telemetry;
};

export type EngramWorker = { worker: Worker; connection: NativeConnection };

/** The bundle always has the tracing interceptors, whose sink must exist even where nothing is traced. */
const DISCARD_WORKFLOW_SPANS = { exporter: { export: { fn: () => undefined } } };

function tracingOptions(telemetry: Telemetry | undefined) {
  if (!telemetry) return { sinks: DISCARD_WORKFLOW_SPANS };
  const { tracer } = telemetry;
  const traceActivities: ActivityInterceptorsFactory = (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }) });
  return {
    interceptors: { activity: [traceActivities] },
    // The interceptors package is built against the 1.x SDK types; the processor accepts both generations' spans.
    sinks: { exporter: makeWorkflowExporter(telemetry.foreignSpanProcessor as never, telemetry.resource as never) },
  };
}

export async function createWorker(options: EngramWorkerOptions): Promise<EngramWorker> {
  const connection = await NativeConnection.connect({ address: options.address });
  // Activities signal workflows of their own (a step that crosses the auto top-up threshold) over the same connection.
  const client = new Client({ connection, namespace: options.namespace });
  const topUps = createAutoTopUpClient({ client, taskQueue: options.taskQueue });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: { codePath: options.workflowBundlePath },
    activities: createActivities({
      ...options.activityDeps,
      tracing: options.telemetry ?? options.activityDeps.tracing,
      requestTopUp: (organizationId) => topUps.request(organizationId),
    }),
    ...tracingOptions(options.telemetry),
  });
  watchAbandonedRuns({
    client,
    worker,
    markRunAbandoned: createMarkRunAbandoned({ db: options.activityDeps.db }),
    onError: (error) => console.error('[engram] looking for terminated runs failed; trying again shortly:', error),
  });
  return { worker, connection };
}
