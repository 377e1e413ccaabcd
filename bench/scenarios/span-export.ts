import { context, trace, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ENGRAM, GEN_AI, runSpanAttributes, SPAN } from '@engram/core';
import type { Database } from '@engram/db';
import { createTelemetry, PostgresSpanExporter } from '@engram/integrations/telemetry';
import { summarize, type Summary } from '../stats.js';

export type SpanExportMeasurement = {
  /** What a step waits for: making and ending its spans, queued in memory by the batch processor (microseconds). */
  recordPerStepUs: Summary;
  /** What the span store's batched write costs per step, off the step's path (milliseconds). */
  writePerStepMs: Summary;
  spansPerStep: number;
  stepsPerBatch: number;
};

const SPANS_PER_STEP = 3;

/**
 * The spans of one step as the worker makes them (`agent_step`, its `chat` model call and one `execute_tool`), with the
 * run's ids and GenAI attributes, timed on the real telemetry pipeline; then the exporter's write of whole batches of
 * such spans into PostgreSQL, divided by the steps in each batch.
 */
export async function measureSpanExport(
  deps: { db: Database; organizationId: string },
  plan: { warmup: number; samples: number; stepsPerBatch: number },
): Promise<SpanExportMeasurement> {
  const telemetry = createTelemetry({ db: deps.db, serviceName: 'engram-bench', recordContent: false, exportDelayMs: 200 });
  const recordStep = (tracer: Tracer, run: number) => {
    const ids = runSpanAttributes({ organizationId: deps.organizationId, agentId: `bench-span-agent-${run % 50}`, runId: `bench-span-run-${run}`, stepId: `bench-span-step-${run}` });
    const stepSpan = tracer.startSpan(SPAN.agentStep, { attributes: { ...ids, [ENGRAM.stepIndex]: 0 } });
    const inStep = trace.setSpan(context.active(), stepSpan);
    const chat = tracer.startSpan(
      `${SPAN.chat} gpt-4o-mini`,
      { attributes: { ...ids, [GEN_AI.operationName]: SPAN.chat, [GEN_AI.requestModel]: 'gpt-4o-mini', [GEN_AI.inputTokens]: 1200, [GEN_AI.outputTokens]: 40 } },
      inStep,
    );
    chat.end();
    const tool = tracer.startSpan(
      `${SPAN.executeTool} web_search`,
      { attributes: { ...ids, [GEN_AI.operationName]: SPAN.executeTool, [GEN_AI.toolName]: 'web_search', [GEN_AI.toolCallId]: `call-${run}` } },
      inStep,
    );
    tool.end();
    stepSpan.end();
  };

  const recordSamples: number[] = [];
  for (let run = 0; run < plan.warmup + plan.samples; run++) {
    const started = performance.now();
    recordStep(telemetry.tracer, run);
    if (run >= plan.warmup) recordSamples.push((performance.now() - started) * 1000);
  }
  await telemetry.shutdown();

  // Fresh steps' spans collected in memory, then written by the exporter a batch at a time, each write timed alone.
  const collected = new InMemorySpanExporter();
  const collector = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(collected)] });
  const exporter = new PostgresSpanExporter(deps.db);
  const writeSamples: number[] = [];
  for (let batch = 0; batch < Math.max(1, Math.floor(plan.samples / plan.stepsPerBatch)); batch++) {
    collected.reset();
    for (let step = 0; step < plan.stepsPerBatch; step++) recordStep(collector.getTracer('engram-bench'), plan.warmup + plan.samples + batch * plan.stepsPerBatch + step);
    const spans = collected.getFinishedSpans();
    const started = performance.now();
    await exporter.write(spans);
    writeSamples.push((performance.now() - started) / plan.stepsPerBatch);
  }
  await collector.shutdown();
  return { recordPerStepUs: summarize(recordSamples), writePerStepMs: summarize(writeSamples), spansPerStep: SPANS_PER_STEP, stepsPerBatch: plan.stepsPerBatch };
}
