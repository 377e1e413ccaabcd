import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { createDatabase, Trace, TraceSpan, type Database } from '@engram/db';
import { ensureJaeger, startJaeger, type JaegerCollector } from '@engram/testing/jaeger';
import { createTelemetry, type Telemetry } from './telemetry.js';
import { until } from '@engram/testing';

let jaeger: JaegerCollector;
let db: Database;
let telemetry: Telemetry;

type JaegerSpan = { traceID: string; spanID: string; operationName: string; references: Array<{ refType: string; spanID: string }>; processID: string; tags: Array<{ key: string; value: unknown }> };
type JaegerTrace = { traceID: string; spans: JaegerSpan[]; processes: Record<string, { serviceName: string }> };

/** Jaeger indexes what it receives within a moment; the query API is read until the whole trace is there. */
function jaegerTrace(traceId: string, spanCount: number): Promise<JaegerTrace> {
  const whole = async () => {
    const response = await fetch(`${jaeger.queryUrl}/api/traces/${traceId}`);
    const found = response.ok ? ((await response.json()) as { data: JaegerTrace[] }).data[0] : undefined;
    return found && found.spans.length >= spanCount ? found : undefined;
  };
  return until(whole, { what: `trace ${traceId} whole in Jaeger` });
}

beforeAll(async () => {
  jaeger = await startJaeger(ensureJaeger({ log: (line) => console.log(`[jaeger] ${line}`) }));
  db = createDatabase({ url: inject('databaseUrl'), pool: { max: 2 } });
  telemetry = createTelemetry({ db, serviceName: 'engram-otlp-test', otlpEndpoint: jaeger.otlpEndpoint, recordContent: false, exportDelayMs: 50 });
}, 600_000);

afterAll(async () => {
  await telemetry?.shutdown();
  await db?.destroy();
  await jaeger?.stop();
});

describe('OTLP export to a real collector', () => {
  it('sends the same trace to Jaeger as to the span store, parents and service included', async () => {
    const { tracer } = telemetry;
    const traceId = await tracer.startActiveSpan('invoke_agent', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } }, async (run) => {
      await tracer.startActiveSpan('chat gpt-4o-mini', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' } }, async (chat) => {
        chat.setStatus({ code: SpanStatusCode.OK });
        chat.end();
      });
      // A span in the shape Temporal's workflow sandbox hands over (1.x SDK: parent by id, scope as a library).
      const { traceId: id, spanId } = run.spanContext();
      const now: [number, number] = [Math.floor(Date.now() / 1000), 0];
      telemetry.foreignSpanProcessor.onEnd({
        name: 'RunWorkflow:agentRunWorkflow',
        kind: 0,
        spanContext: () => ({ traceId: id, spanId: 'aaaaaaaaaaaaaaaa', traceFlags: 1 }),
        parentSpanId: spanId,
        startTime: now,
        endTime: now,
        duration: [0, 0],
        status: { code: SpanStatusCode.UNSET },
        attributes: {},
        links: [],
        events: [],
        ended: true,
        resource: telemetry.resource,
        instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
        droppedAttributesCount: 0,
        droppedEventsCount: 0,
        droppedLinksCount: 0,
      } as never);
      run.end();
      return id;
    });
    expect(trace.getActiveSpan()).toBeUndefined();
    await telemetry.forceFlush();

    const exported = await jaegerTrace(traceId, 3);
    const byName = new Map(exported.spans.map((span) => [span.operationName, span]));
    const root = byName.get('invoke_agent');
    expect(root?.references).toEqual([]);
    expect(byName.get('chat gpt-4o-mini')?.references).toMatchObject([{ refType: 'CHILD_OF', spanID: root?.spanID }]);
    expect(byName.get('RunWorkflow:agentRunWorkflow')?.references).toMatchObject([{ refType: 'CHILD_OF', spanID: root?.spanID }]);
    expect(exported.processes[root?.processID as string]?.serviceName).toBe('engram-otlp-test');
    expect(byName.get('chat gpt-4o-mini')?.tags).toContainEqual({ key: 'gen_ai.request.model', type: 'string', value: 'gpt-4o-mini' });

    const stored = await TraceSpan.query(db).where('traceId', traceId);
    expect(stored.map((span) => span.name).sort()).toEqual(['RunWorkflow:agentRunWorkflow', 'chat gpt-4o-mini', 'invoke_agent']);
    expect(stored.find((span) => span.name === 'RunWorkflow:agentRunWorkflow')?.parentSpanId).toBe(root?.spanID);
    expect(await Trace.query(db).findById(traceId)).toMatchObject({ rootSpanName: 'invoke_agent', spanCount: 3 });
  });
});
