/**
 * The workflow interceptors module the worker bundles (`workflowInterceptorModules`): Temporal's OpenTelemetry
 * interceptors carry the trace context from the client through workflows, child workflows and activities, and
 * hand the sandbox's spans to the worker through a sink.
 */
export { interceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js';
