import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack, until } from '@engram/testing';
import { signUp, type ConsoleUser } from '../console/console-test-support.js';

/** A span as `/v1/runs/{id}/trace` and `/api/traces/{id}` return it. */
type Span = {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  status_code: string;
  attributes: Record<string, unknown>;
};

let stack: TestStack;
let model: ScriptedModelServer;
let owner: ConsoleUser;
let client: Letta;
let agentId: string;
let runId: string;
let spans: Span[];

const USAGE = { prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 };

async function runTrace(apiKey: string, id: string) {
  const response = await fetch(`${stack.baseUrl}/v1/runs/${id}/trace`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: response.status, body: (await response.json()) as Span[] };
}

/** The workflow's spans reach the store when the workflow completes, a moment after the answer: wait for the last one. */
function settledTrace(apiKey: string, id: string): Promise<Span[]> {
  return until(
    async () => {
      await stack.telemetry?.forceFlush();
      return (await runTrace(apiKey, id)).body;
    },
    (body) => body.some((span) => span.name === 'RunWorkflow:agentRunWorkflowV2') && body.some((span) => span.name.startsWith('POST ')),
    { what: `the trace of ${id} settled` },
  );
}

const named = (name: string) => spans.filter((span) => span.name === name);
const one = (name: string) => {
  const found = named(name);
  expect(found, name).toHaveLength(1);
  return found[0] as Span;
};
const parentOf = (span: Span) => spans.find((candidate) => candidate.span_id === span.parent_span_id);
/** Names from the span up to the root. */
const lineage = (span: Span): string[] => {
  const names = [span.name];
  for (let parent = parentOf(span); parent; parent = parentOf(parent)) names.push(parent.name);
  return names;
};

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
    telemetry: {},
  });
  owner = await signUp(stack);
  const key = await owner.client.post('/api-keys', { name: 'traces' });
  client = new Letta({ apiKey: key.body.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', name: 'tracer', memory_blocks: [{ label: 'human', value: 'Ada.' }] });
  agentId = agent.id;
  // As the templates service marks an agent it makes from a template (its version and its family).
  await stack.db('agents').where({ id: agentId }).update({ templateId: 'support-bot:3', baseTemplateId: 'support-bot' });
  model.enqueue(
    { type: 'tool_calls', calls: [{ id: 'call-memory', name: 'memory_insert', arguments: { label: 'human', new_string: 'Likes tea.' } }], usage: USAGE },
    { type: 'text', text: 'Noted.', usage: USAGE },
  );
  const response = await client.agents.messages.create(agentId, { messages: [{ role: 'user', content: 'I like tea.' }] });
  runId = response.messages[0]?.run_id as string;
  spans = await settledTrace(key.body.apiKey, runId);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await model?.close();
});

describe('the trace of a run', () => {
  it('is one trace from the request through the workflow and each step to the model calls and tools', () => {
    expect(new Set(spans.map((span) => span.trace_id)).size).toBe(1);
    const root = one('POST /v1/agents/:agent_id/messages');
    expect(root.parent_span_id).toBeNull();
    const invoke = one('invoke_agent');
    // The request starts the run's workflow; the start carries the request's trace context to it.
    expect(lineage(invoke)).toEqual(['invoke_agent', 'RunWorkflow:agentRunWorkflowV2', 'StartWorkflow:agentRunWorkflowV2', 'POST /v1/agents/:agent_id/messages']);
    const steps = named('agent_step');
    expect(steps).toHaveLength(2);
    for (const step of steps) expect(parentOf(step)?.name).toBe('invoke_agent');
    const chats = named('chat gpt-4o-mini');
    expect(chats).toHaveLength(2);
    // A step is one activity: the model call and applying its answer (the memory edit) are both inside it.
    for (const chat of chats) expect(lineage(chat).slice(0, 4)).toEqual(['chat gpt-4o-mini', 'RunActivity:runStep', 'StartActivity:runStep', 'agent_step']);
    const tool = one('execute_tool memory_insert');
    expect(lineage(tool).slice(0, 4)).toEqual(['execute_tool memory_insert', 'RunActivity:runStep', 'StartActivity:runStep', 'agent_step']);
  });

  it('carries the GenAI semantic-convention attributes and the Engram ids', () => {
    const [toolCall, answer] = named('chat gpt-4o-mini').sort((a, b) => Number(a.attributes['engram.step.id'] === undefined) - Number(b.attributes['engram.step.id'] === undefined));
    for (const chat of [toolCall, answer]) {
      expect(chat?.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': USAGE.prompt_tokens,
        'gen_ai.usage.output_tokens': USAGE.completion_tokens,
        'gen_ai.agent.id': agentId,
        'gen_ai.agent.name': 'tracer',
        'gen_ai.conversation.id': agentId,
        'engram.organization.id': owner.organizationId,
        'engram.agent.id': agentId,
        'engram.run.id': runId,
        'engram.template.id': 'support-bot:3',
        'engram.template.family': 'support-bot',
      });
      expect(chat?.attributes['engram.step.id']).toMatch(/^step-/);
    }
    expect(named('chat gpt-4o-mini').map((chat) => chat.attributes['gen_ai.response.finish_reasons']).sort()).toEqual([['stop'], ['tool_calls']]);
    expect(one('execute_tool memory_insert').attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'memory_insert',
      'gen_ai.tool.call.id': 'call-memory',
      'engram.memory.edit': true,
      'engram.run.id': runId,
    });
    expect(one('invoke_agent').attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agentId,
      'engram.organization.id': owner.organizationId,
      'engram.run.stop_reason': 'end_turn',
      'engram.run.step_count': 2,
    });
    // Content is recorded only when ENGRAM_TRACE_CONTENT=true.
    expect(spans.some((span) => 'gen_ai.input.messages' in span.attributes || 'gen_ai.tool.call.arguments' in span.attributes)).toBe(false);
  });

  it('is the trace its steps name, and the console reads it by id', async () => {
    const traceId = spans[0]?.trace_id as string;
    const steps = await client.steps.list({ agent_id: agentId });
    expect(steps.items.map((step) => step.trace_id)).toEqual([traceId, traceId]);
    const filtered = await client.steps.list({ trace_ids: [traceId] });
    expect(filtered.items).toHaveLength(2);

    const read = await owner.client.get(`/traces/${traceId}`);
    expect(read.status).toBe(200);
    expect(read.body.trace).toMatchObject({ trace_id: traceId, run_id: runId, agent_id: agentId, agent_steps: 2, status_code: 'ok', function_names: ['memory_insert'] });
    expect(read.body.spans).toHaveLength(spans.length);
  });

  it('names the agent’s template family, so trace search and metrics filter by it', async () => {
    const now = Math.ceil(Date.now() / 1000);
    const range = { startTimeUnix: now - 3600, endTimeUnix: now + 60 };
    const found = async (templateFamily: string) =>
      (await owner.client.post('/observability/traces', { ...range, templateFamily })).body.traces.map((trace: { trace_id: string }) => trace.trace_id);
    expect(await found('support-bot')).toEqual([spans[0]?.trace_id]);
    expect(await found('other-bot')).toEqual([]);
    const overview = async (templateFamily: string) =>
      (await owner.client.get(`/observability/overview?${new URLSearchParams({ range: 'custom', startTimeUnix: String(range.startTimeUnix), endTimeUnix: String(range.endTimeUnix), templateFamily })}`)).body;
    expect(await overview('support-bot')).toMatchObject({ runs: 1, steps: 2, activeAgents: 1 });
    expect(await overview('other-bot')).toMatchObject({ runs: 0, steps: 0, activeAgents: 0 });
    const usage = await owner.client.get(`/observability/metrics/tool-usage?${new URLSearchParams({ range: 'custom', startTimeUnix: String(range.startTimeUnix), endTimeUnix: String(range.endTimeUnix) })}`);
    expect(usage.body.tools).toEqual([{ toolName: 'memory_insert', runs: 1, errorRate: 0, calls: 1, failedCalls: 0 }]);
  });

  it('is another organization’s 404', async () => {
    const traceId = spans[0]?.trace_id as string;
    const stranger = await signUp(stack);
    expect((await stranger.client.get(`/traces/${traceId}`)).status).toBe(404);
    expect((await runTrace(stack.apiKey, runId)).status).toBe(404);
  });
});
