import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { Step as StepRow } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ChatRequest, type ScriptedModelServer, type TestStack } from '@engram/testing';

type Step = Awaited<ReturnType<Letta['steps']['retrieve']>>;

let stack: TestStack;
let model: ScriptedModelServer;
let client: Letta;

/** One agent with one finished run of two steps: a tool call (conversation_search), then the answer. */
let agentId: string;
let runId: string;
let toolStep: Step;
let answerStep: Step;
/** The chat completion requests of the two steps, as the model server received them. */
let sent: ChatRequest[];

const USAGE = { prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 };

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }] });
  client = new Letta({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });

  const agent = await client.agents.create({
    model: 'openai/gpt-4o-mini',
    memory_blocks: [{ label: 'human', value: 'The human is called Ada.' }],
  });
  agentId = agent.id;
  model.enqueue(
    { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'tea' } }], usage: USAGE },
    { type: 'text', text: 'Nothing about tea yet.', usage: USAGE },
  );
  const response = await client.agents.messages.create(agentId, { messages: [{ role: 'user', content: 'What do I like?' }] });
  runId = response.messages[0]?.run_id as string;
  sent = [...model.requests];
  const steps = await client.steps.list({ agent_id: agentId, order: 'asc' });
  [toolStep, answerStep] = steps.items as [Step, Step];
});

afterAll(async () => {
  await stack?.stop();
  await model?.close();
});

const api = (path: string, init: RequestInit = {}, apiKey = stack.apiKey) =>
  fetch(`${stack.baseUrl}/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

const ids = (steps: Array<{ id: string }>) => steps.map((step) => step.id);

describe('listing steps', () => {
  it('records one step per model call of the run, with its model, tokens and stop reason', () => {
    expect(sent).toHaveLength(2);
    expect(toolStep).toMatchObject({ run_id: runId, agent_id: agentId, model: 'gpt-4o-mini', status: 'success', stop_reason: null, ...USAGE });
    expect(answerStep).toMatchObject({ run_id: runId, agent_id: agentId, stop_reason: 'end_turn', feedback: null, tags: [] });
  });

  it('lists newest first by default and pages with before/after cursors, also through the client’s auto-paging', async () => {
    const newestFirst = await client.steps.list({ agent_id: agentId });
    expect(ids(newestFirst.items)).toEqual([answerStep.id, toolStep.id]);

    const firstPage = await client.steps.list({ agent_id: agentId, limit: 1 });
    expect(ids(firstPage.items)).toEqual([answerStep.id]);
    const secondPage = await client.steps.list({ agent_id: agentId, limit: 1, after: answerStep.id });
    expect(ids(secondPage.items)).toEqual([toolStep.id]);
    const beforeOldest = await client.steps.list({ agent_id: agentId, limit: 1, before: toolStep.id });
    expect(ids(beforeOldest.items)).toEqual([answerStep.id]);

    const collected: string[] = [];
    for await (const step of client.steps.list({ agent_id: agentId, limit: 1, order: 'asc' })) collected.push(step.id);
    expect(collected).toEqual([toolStep.id, answerStep.id]);
  });

  it('filters by model, dates, trace ids and project (query or X-Project header)', async () => {
    expect(ids((await client.steps.list({ agent_id: agentId, model: 'gpt-4o-mini' })).items)).toHaveLength(2);
    expect((await client.steps.list({ agent_id: agentId, model: 'gpt-4.1' })).items).toEqual([]);

    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    expect((await client.steps.list({ agent_id: agentId, start_date: hourAgo, end_date: inAnHour })).items).toHaveLength(2);
    expect((await client.steps.list({ agent_id: agentId, start_date: inAnHour })).items).toEqual([]);
    expect((await client.steps.list({ agent_id: agentId, end_date: hourAgo })).items).toEqual([]);
    // Naive datetimes, as Python's isoformat() writes them, are read as UTC.
    const naive = await api(`/steps/?agent_id=${agentId}&start_date=${inAnHour.slice(0, 19)}`);
    expect(await naive.json()).toEqual([]);

    // The worker records no trace ids yet, so one is set here the way an OpenTelemetry-traced step would carry it.
    await StepRow.query(stack.db).forOrg(stack.tenant.organizationId).findById(answerStep.id).patch({ traceId: 'trace-answer' });
    expect(ids((await client.steps.list({ agent_id: agentId, trace_ids: ['trace-answer', 'trace-other'] })).items)).toEqual([answerStep.id]);
    expect((await client.steps.list({ agent_id: agentId, trace_ids: ['trace-other'] })).items).toEqual([]);

    expect((await client.steps.list({ agent_id: agentId, project_id: stack.tenant.projectId })).items).toHaveLength(2);
    expect((await client.steps.list({ agent_id: agentId, project_id: 'project-00000000-0000-4000-8000-000000000000' })).items).toEqual([]);
    const byHeader = await api(`/steps/?agent_id=${agentId}`, { headers: { 'X-Project': 'default-project' } });
    expect(ids((await byHeader.json()) as Step[])).toEqual([answerStep.id, toolStep.id]);
    const otherProject = await api(`/steps/?agent_id=${agentId}`, { headers: { 'X-Project': 'some-other-project' } });
    expect(await otherProject.json()).toEqual([]);
  });

  it('answers 422 for malformed filters', async () => {
    const badDate = await api('/steps/?start_date=yesterday');
    expect(badDate.status).toBe(422);
    const badFeedback = await api('/steps/?feedback=meh');
    expect(badFeedback.status).toBe(422);
  });
});

describe('one step', () => {
  it('gets a step and its timings', async () => {
    expect(await client.steps.retrieve(toolStep.id)).toEqual(toolStep);
    const metrics = await client.steps.metrics.retrieve(toolStep.id);
    expect(metrics).toMatchObject({
      id: toolStep.id,
      run_id: runId,
      agent_id: agentId,
      project_id: stack.tenant.projectId,
      template_id: null,
      base_template_id: null,
    });
    expect(metrics.llm_request_ns).toBeGreaterThan(0);
  });

  it('returns the provider trace: the request body the model server received and the answer read from it', async () => {
    const first = await client.steps.trace.retrieve(toolStep.id);
    expect(first?.step_id).toBe(toolStep.id);
    expect(first?.request_json).toMatchObject({ model: 'gpt-4o-mini', messages: sent[0]?.messages, tools: sent[0]?.tools });
    expect(first?.response_json).toMatchObject({ toolCalls: [expect.objectContaining({ name: 'conversation_search' })] });

    const second = await client.steps.trace.retrieve(answerStep.id);
    expect(second?.request_json.messages).toEqual(sent[1]?.messages);
    expect(second?.request_json.messages).toContainEqual(expect.objectContaining({ role: 'tool' }));
    expect(second?.response_json).toMatchObject({ text: 'Nothing about tea yet.' });
  });

  it('returns null as the trace of a step that recorded no provider call', async () => {
    const untraced = await StepRow.query(stack.db).insert({
      id: `step-${crypto.randomUUID()}`,
      organizationId: stack.tenant.organizationId,
      stepIndex: 0,
    } as Partial<StepRow>);
    expect(await client.steps.trace.retrieve(untraced.id)).toBeNull();
  });

  it('lists the messages a step produced, oldest first, paged by message id', async () => {
    const toolMessages = await client.steps.messages.list(toolStep.id);
    expect(toolMessages.items.map((message) => message.message_type)).toEqual(['tool_call_message', 'tool_return_message']);
    expect(toolMessages.items.every((message) => message.step_id === toolStep.id)).toBe(true);

    const answer = await client.steps.messages.list(answerStep.id);
    expect(answer.items).toEqual([expect.objectContaining({ message_type: 'assistant_message', content: 'Nothing about tea yet.' })]);

    const [call, toolReturn] = toolMessages.items;
    const afterCall = await client.steps.messages.list(toolStep.id, { after: call?.id as string });
    expect(afterCall.items).toEqual([toolReturn]);
    const newestFirst = await client.steps.messages.list(toolStep.id, { order: 'desc' });
    expect(newestFirst.items).toEqual([toolReturn, call]);
  });
});

describe('feedback', () => {
  it('sets feedback and tags, filters by them, then clears the feedback', async () => {
    const rated = await client.steps.feedback.create(toolStep.id, { feedback: 'positive', tags: ['good-tool-use'] });
    expect(rated).toMatchObject({ id: toolStep.id, feedback: 'positive', tags: ['good-tool-use'] });

    expect(ids((await client.steps.list({ agent_id: agentId, has_feedback: true })).items)).toEqual([toolStep.id]);
    expect(ids((await client.steps.list({ agent_id: agentId, has_feedback: false })).items)).toEqual([answerStep.id]);
    expect(ids((await client.steps.list({ agent_id: agentId, feedback: 'positive' })).items)).toEqual([toolStep.id]);
    expect((await client.steps.list({ agent_id: agentId, feedback: 'negative' })).items).toEqual([]);
    expect(ids((await client.steps.list({ agent_id: agentId, tags: ['good-tool-use'] })).items)).toEqual([toolStep.id]);

    const cleared = await client.steps.feedback.create(toolStep.id, { feedback: null });
    expect(cleared).toMatchObject({ feedback: null, tags: ['good-tool-use'] });
    expect((await client.steps.list({ agent_id: agentId, has_feedback: true })).items).toEqual([]);
  });

  it('answers 422 for a feedback value that is not positive or negative', async () => {
    const response = await api(`/steps/${toolStep.id}/feedback`, { method: 'PATCH', body: JSON.stringify({ feedback: 'meh' }) });
    expect(response.status).toBe(422);
  });
});

describe('tenancy', () => {
  it('hides every step of another organization: 404 "Step not found", empty lists, foreign cursors match nothing', async () => {
    const other = await stack.createTenant();
    const key = other.apiKey.key;
    for (const path of ['', '/metrics', '/trace', '/messages']) {
      const response = await api(`/steps/${toolStep.id}${path}`, {}, key);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ detail: 'Step not found' });
    }
    const feedback = await api(`/steps/${toolStep.id}/feedback`, { method: 'PATCH', body: JSON.stringify({ feedback: 'negative' }) }, key);
    expect(feedback.status).toBe(404);
    expect((await client.steps.retrieve(toolStep.id)).feedback).not.toBe('negative');

    expect(await (await api(`/steps/?agent_id=${agentId}`, {}, key)).json()).toEqual([]);

    // With a step of its own, newer than ours, a cursor of ours would place it if cursors crossed organizations.
    const otherClient = new Letta({ apiKey: key, baseURL: stack.baseUrl, maxRetries: 0 });
    const theirAgent = await otherClient.agents.create({ model: 'openai/gpt-4o-mini' });
    model.enqueue({ type: 'text', text: 'Hello.' });
    await otherClient.agents.messages.create(theirAgent.id, { messages: [{ role: 'user', content: 'Hi' }] });
    const theirs = await otherClient.steps.list();
    expect(theirs.items.map((step) => step.agent_id)).toEqual([theirAgent.id]);
    expect((await otherClient.steps.list({ before: answerStep.id })).items).toEqual([]);

    const unknown = await api('/steps/step-00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
  });
});
