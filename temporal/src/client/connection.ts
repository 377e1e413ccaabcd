import type { Tracer } from '@opentelemetry/api';
import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';

/** `tracer`: starting and signalling workflows become spans, and the trace context travels in their headers. */
export type TemporalClientOptions = { address: string; namespace: string; tracer?: Tracer };

export async function createTemporalClient(options: TemporalClientOptions): Promise<Client> {
  const connection = await Connection.connect({ address: options.address, connectTimeout: 5000 });
  const interceptors = options.tracer ? { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer: options.tracer })] } : undefined;
  return new Client({ connection, namespace: options.namespace, interceptors });
}
