import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Run, Step, Trace, TraceSpan } from '@engram/db';
import { ENGRAM } from '@engram/core';
import { crashTestProcesses, startScriptedModelServer, startTestStack, until, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';

let stack: TestStack;
let model: ScriptedModelServer;
const { worker, killAll } = crashTestProcesses(() => stack.workerEnv);

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({
    inProcessWorker: false,
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
    telemetry: {},
  });
});

afterAll(async () => {
  await killAll();
  await stack?.stop();
  await model?.close();
});

describe('the trace of a run whose worker dies mid-step', () => {
  it('is still one trace, with the model call the next worker ran again marked as retried', async () => {
    const { organizationId } = stack.tenant;
    const firstWorker = worker();
    const agent = await requestV1(stack.baseUrl, stack.apiKey, 'POST', '/agents/', { name: 'traced', model: 'openai/gpt-4o-mini' });
    expect(agent.status).toBe(200);
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'earlier' } }] },
      { type: 'text', text: 'never delivered', delayMs: 4000 },
      { type: 'text', text: 'Answered after the crash.' },
    );
    const sent = await requestV1(stack.baseUrl, stack.apiKey, 'POST', `/agents/${agent.body.id}/messages/async`, { messages: [{ role: 'user', content: 'go' }] });
    const runId = (sent.body as { id: string }).id;

    // The first step is stored and the second model call is under way (the scripted model holds it) when the worker dies.
    await until(async () => (await Step.query(stack.db).forOrg(organizationId).where({ runId })).length === 1 && model.requests.length >= 2);
    await firstWorker.kill();
    worker();
    await until(async () => (await Run.query(stack.db).forOrg(organizationId).findById(runId))?.status === 'completed', { timeoutMs: 120_000 });

    // The second worker exports in batches; the trace is whole once the retried call and the run's span are stored.
    const traces = () => Trace.query(stack.db).forOrg(organizationId).where({ runId });
    const spansOfRun = async () => TraceSpan.query(stack.db).whereIn('traceId', (await traces()).map((trace) => trace.traceId));
    await until(async () => {
      await stack.telemetry?.forceFlush();
      const spans = await spansOfRun();
      return spans.some((span) => span.attributes[ENGRAM.retried] === true) && spans.some((span) => span.name === 'invoke_agent');
    });

    expect(await traces()).toHaveLength(1);
    const spans = await spansOfRun();
    const [traceId] = new Set(spans.map((span) => span.traceId));
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(spans.find((span) => span.parentSpanId === null)?.name).toBe('POST /v1/agents/:agent_id/messages/async');

    const retried = spans.filter((span) => span.attributes[ENGRAM.retried] === true);
    expect(retried.map((span) => span.name).sort()).toEqual(['RunActivity:runStep', 'chat gpt-4o-mini']);
    for (const span of retried) expect(span.attributes[ENGRAM.attempt]).toBeGreaterThan(1);
    const retriedChat = retried.find((span) => span.name === 'chat gpt-4o-mini');
    expect(retriedChat?.statusCode).not.toBe('error');

    const steps = await Step.query(stack.db).forOrg(organizationId).where({ runId });
    expect(steps).toHaveLength(2);
    expect(steps.map((step) => step.traceId)).toEqual([traceId, traceId]);
  }, 240_000);
});
