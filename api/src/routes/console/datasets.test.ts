import { afterAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import type { ChatRequest } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { signUp, type ConsoleUser } from './console-test-support.js';

const { stack, model, stop } = await startAgentTestContext();
afterAll(stop);

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${counter++}`;

const lastUserText = (request: ChatRequest) => String([...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '');
const systemText = (request: ChatRequest) => String(request.messages.find((message) => message.role === 'system')?.content ?? '');

async function newDataset(user: ConsoleUser, name = uniqueName('ds')): Promise<string> {
  const created = await user.client.post('/datasets', { name, description: 'questions' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

/** A template with versions 1 and 2 of a designed agent whose system prompt names the version. */
async function templateWithTwoVersions(user: ConsoleUser): Promise<{ name: string; templateId: string; client: Letta }> {
  const apiKey: string = (await user.client.post('/api-keys', { name: 'datasets' })).body.apiKey;
  const client = new Letta({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const design = await client.agents.create({
    model: 'openai/gpt-4o-mini',
    include_base_tools: false,
    system: 'You are version one.',
    memory_blocks: [{ label: 'notes', value: 'nothing yet', limit: 2000 }],
  });
  const name = uniqueName('eval');
  const created = await user.client.post('/agent-templates', { name, agentId: design.id });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await user.client.post(`/agent-templates/${created.body.id}/versions`, { message: 'one' })).status).toBe(201);
  const edited = await user.client.patch(`/agent-templates/${created.body.id}`, { systemPrompt: 'You are version two.' });
  expect(edited.status, JSON.stringify(edited.body)).toBeLessThan(300);
  expect((await user.client.post(`/agent-templates/${created.body.id}/versions`, { message: 'two' })).status).toBe(201);
  return { name, templateId: created.body.id, client };
}

async function waitForRun(user: ConsoleUser, runId: string) {
  let latest: any;
  await expect
    .poll(
      async () => {
        latest = (await user.client.get(`/dataset-runs/${runId}`)).body;
        return latest.run.status;
      },
      { timeout: 120_000, interval: 200 },
    )
    .toBe('completed');
  return latest;
}

describe('datasets', () => {
  it('refuses a dataset without a name, or with the name of another in its project, with the spec codes', async () => {
    const user = await signUp(stack);
    const unnamed = await user.client.post('/datasets', { description: 'x' });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body).toMatchObject({ errorCode: 'validation', message: 'Name is required' });
    expect((await user.client.post('/datasets', { name: '  ' })).body).toMatchObject({ errorCode: 'validation', message: 'Name is required' });

    const id = await newDataset(user, 'support-questions');
    const again = await user.client.post('/datasets', { name: 'support-questions' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ errorCode: 'conflict' });

    const other = await newDataset(user, 'billing-questions');
    expect((await user.client.patch(`/datasets/${other}`, { name: 'support-questions' })).body).toMatchObject({ errorCode: 'conflict' });
    expect((await user.client.patch(`/datasets/${other}`, { name: '' })).body).toMatchObject({ errorCode: 'validation', message: 'Name is required' });
    const renamed = await user.client.patch(`/datasets/${other}`, { name: 'billing', description: null });
    expect(renamed.body).toMatchObject({ id: other, name: 'billing', description: null, organizationId: user.organizationId });

    const fetched = await user.client.get(`/datasets/${id}`);
    expect(fetched.body).toEqual({
      id,
      name: 'support-questions',
      description: 'questions',
      organizationId: user.organizationId,
      projectId: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const listed = await user.client.get('/datasets?search=support');
    expect(listed.body.datasets.map((dataset: { id: string }) => dataset.id)).toEqual([id]);

    expect((await user.client.delete(`/datasets/${other}`)).body).toEqual({ success: true });
    expect((await user.client.get(`/datasets/${other}`)).status).toBe(404);
  });

  it('keeps items with their message and expected answer, and refuses a scorer without what it scores against', async () => {
    const user = await signUp(stack);
    const id = await newDataset(user);
    const created = await user.client.post(`/datasets/${id}/items`, { createMessage: { role: 'user', content: 'What is 2+2?' }, expectedAnswer: '4' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^dataset_item-/),
      datasetId: id,
      createMessage: { role: 'user', content: 'What is 2+2?' },
      expectedAnswer: '4',
      scorer: 'exact',
      graderNote: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const itemId = created.body.id;
    const noAnswer = await user.client.post(`/datasets/${id}/items`, { createMessage: { role: 'user', content: 'Hi' }, scorer: 'contains' });
    expect(noAnswer.status).toBe(400);
    expect(noAnswer.body).toMatchObject({ errorCode: 'validation', message: 'The contains scorer needs an expected answer' });
    expect((await user.client.post(`/datasets/${id}/items`, { createMessage: { role: 'user', content: '' } })).body).toMatchObject({ errorCode: 'validation' });

    const patched = await user.client.patch(`/datasets/${id}/items/${itemId}`, { scorer: 'contains' });
    expect(patched.body).toMatchObject({ expectedAnswer: '4', scorer: 'contains' });
    const graded = await user.client.patch(`/datasets/${id}/items/${itemId}`, { expectedAnswer: null, graderNote: 'Says four' });
    expect(graded.body).toMatchObject({ expectedAnswer: null, scorer: 'llm', graderNote: 'Says four' });
    expect((await user.client.get(`/datasets/${id}/items/${itemId}`)).body).toMatchObject({ scorer: 'llm' });

    const other = await newDataset(user);
    expect((await user.client.get(`/datasets/${other}/items/${itemId}`)).status).toBe(404);
    expect((await user.client.delete(`/datasets/${id}/items/${itemId}`)).body).toEqual({ success: true });
    expect((await user.client.get(`/datasets/${id}/items`)).body).toMatchObject({ items: [], total: 0, hasNextPage: false });
  });

  it('imports and exports items as JSONL, all or none, and holds at most 1000 items (maxUsage)', async () => {
    const user = await signUp(stack);
    const id = await newDataset(user);
    const lines = [
      { createMessage: { role: 'user', content: 'Capital of France?' }, expectedAnswer: 'Paris', scorer: 'contains' },
      { createMessage: { role: 'user', content: 'Say hi' } },
      { createMessage: { role: 'system', content: 'Be terse' }, graderNote: 'Is it terse?', scorer: 'llm' },
    ];
    const jsonl = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n\n`;
    const imported = await user.client.post(`/datasets/${id}/items/import`, { jsonl });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(imported.body).toEqual({ imported: 3 });

    const exported = await fetch(`${stack.baseUrl}/api/datasets/${id}/items/export`, { headers: { cookie: user.client.jar.header() ?? '' } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
    const text = await exported.text();
    expect(text.trim().split('\n').map((line) => JSON.parse(line))).toEqual(lines);

    // The export imports back as the same items.
    const copy = await newDataset(user);
    expect((await user.client.post(`/datasets/${copy}/items/import`, { jsonl: text })).body).toEqual({ imported: 3 });
    const copied = await fetch(`${stack.baseUrl}/api/datasets/${copy}/items/export`, { headers: { cookie: user.client.jar.header() ?? '' } });
    expect(await copied.text()).toBe(text);

    const bad = await user.client.post(`/datasets/${copy}/items/import`, { jsonl: `${JSON.stringify(lines[0])}\n{"createMessage":{"role":"user"}}\n` });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errorCode: 'validation', message: expect.stringMatching(/^Line 2: createMessage\.content/) });
    expect((await user.client.post(`/datasets/${copy}/items/import`, { jsonl: 'not json' })).body).toMatchObject({ errorCode: 'validation', message: 'Line 1 is not JSON' });
    expect((await user.client.get(`/datasets/${copy}/items`)).body.total).toBe(3);

    const big = await newDataset(user);
    const thousand = Array.from({ length: 1000 }, (_, index) => JSON.stringify({ createMessage: { role: 'user', content: `q${index}` } })).join('\n');
    expect((await user.client.post(`/datasets/${big}/items/import`, { jsonl: thousand })).body).toEqual({ imported: 1000 });
    const page = await user.client.get(`/datasets/${big}/items?offset=998&limit=5`);
    expect(page.body.items.map((item: { createMessage: { content: string } }) => item.createMessage.content)).toEqual(['q998', 'q999']);
    const over = await user.client.post(`/datasets/${big}/items`, { createMessage: { role: 'user', content: 'one more' } });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ errorCode: 'maxUsage', limit: 1000 });
  });

  it('runs a dataset against two template versions, each item on its own hidden agent, scores the answers and compares the runs', async () => {
    const user = await signUp(stack);
    const template = await templateWithTwoVersions(user);
    const id = await newDataset(user);
    await user.client.post(`/datasets/${id}/items/import`, {
      jsonl: [
        { createMessage: { role: 'user', content: 'What is 2+2?' }, expectedAnswer: '4' },
        { createMessage: { role: 'user', content: 'Name a colour' }, expectedAnswer: 'blue', scorer: 'contains' },
        { createMessage: { role: 'user', content: 'Greet me' }, graderNote: 'A friendly greeting' },
        { createMessage: { role: 'user', content: 'Remember: my name is Ada. What is my name?' } },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    });
    // Version one answers 4, blue, and a greeting; version two gets the sum wrong. The grader passes greetings.
    const seenSystems: string[] = [];
    model.onRequest((request) => {
      const system = systemText(request);
      if (system.startsWith("You grade an AI agent's answer")) {
        const answer = lastUserText(request);
        return { type: 'text', text: answer.includes('Hello there') ? 'PASS\nIt greets warmly.' : 'FAIL\nNo greeting.' };
      }
      seenSystems.push(system);
      const version = system.includes('version two') ? 2 : 1;
      const question = lastUserText(request);
      if (question.includes('2+2')) return { type: 'text', text: version === 1 ? '4' : '5', usage: { prompt_tokens: 30, completion_tokens: 2 } };
      if (question.includes('colour')) return { type: 'text', text: 'I like Blue very much' };
      if (question.includes('Greet')) return { type: 'text', text: version === 1 ? 'Hello there, friend!' : 'What?' };
      // Each agent sees only its own item: no earlier question is in its context.
      const earlier = request.messages.filter((message) => message.role === 'user').length;
      return { type: 'text', text: `messages seen: ${earlier}` };
    });

    const missing = await user.client.post(`/datasets/${id}/runs`, { templateVersion: `${template.name}:9` });
    expect(missing.status).toBe(404);
    const first = await user.client.post(`/datasets/${id}/runs`, { templateVersion: `${template.name}:1`, concurrency: 2 });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ datasetId: id, templateId: template.templateId, templateVersion: `${template.name}:1`, status: 'running', itemCount: 4, concurrency: 2 });
    const second = await user.client.post(`/datasets/${id}/runs`, { templateVersion: `${template.name}:2` });
    expect(second.status, JSON.stringify(second.body)).toBe(201);

    const one = await waitForRun(user, first.body.id);
    const two = await waitForRun(user, second.body.id);
    expect(one.results.map((result: any) => [result.status, result.answer, result.score])).toEqual([
      ['completed', '4', 1],
      ['completed', 'I like Blue very much', 1],
      ['completed', 'Hello there, friend!', 1],
      ['completed', 'messages seen: 1', null],
    ]);
    expect(two.results.map((result: any) => [result.answer, result.score])).toEqual([
      ['5', 0],
      ['I like Blue very much', 1],
      ['What?', 0],
      ['messages seen: 1', null],
    ]);
    expect(one.results[0]).toMatchObject({ steps: 1, promptTokens: 30, completionTokens: 2, totalTokens: 32, toolErrors: 0, error: null });
    expect(one.results[2].scoreReason).toBe('It greets warmly.');
    for (const result of [...one.results, ...two.results]) expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(one.summary).toMatchObject({ items: 4, completed: 4, failed: 0, running: 0, scored: 3, meanScore: 1, toolErrors: 0 });
    expect(two.summary).toMatchObject({ scored: 3, meanScore: 1 / 3 });
    expect(seenSystems.some((system) => system.includes('version two'))).toBe(true);

    // Eight agents, one per item and run: hidden, and not the template's (its migrations leave them alone).
    const agentIds = new Set<string>([...one.results, ...two.results].map((result: any) => result.agentId));
    expect(agentIds.size).toBe(8);
    for (const agentId of agentIds) {
      const agent = await template.client.agents.retrieve(agentId);
      expect(agent).toMatchObject({ hidden: true, template_id: null });
    }

    const runs = await user.client.get(`/datasets/${id}/runs`);
    expect(runs.body.runs.map((run: { id: string }) => run.id).sort()).toEqual([first.body.id, second.body.id].sort());
    expect(runs.body.runs[0].counts).toEqual({ completed: 4 });

    const compared = await user.client.get(`/dataset-runs/compare?base=${first.body.id}&other=${second.body.id}`);
    expect(compared.status, JSON.stringify(compared.body)).toBe(200);
    expect(compared.body.base.run.templateVersion).toBe(`${template.name}:1`);
    expect(compared.body.other.run.templateVersion).toBe(`${template.name}:2`);
    expect(compared.body.base.summary.meanScore).toBe(1);
    expect(compared.body.rows.map((row: any) => [row.item.createMessage.content, row.base.score, row.other.score])).toEqual([
      ['What is 2+2?', 1, 0],
      ['Name a colour', 1, 1],
      ['Greet me', 1, 0],
      ['Remember: my name is Ada. What is my name?', null, null],
    ]);

    // A dataset with a run going cannot be deleted; finished, it can, and its runs go with it.
    expect((await user.client.delete(`/datasets/${id}`)).body).toEqual({ success: true });
    expect((await user.client.get(`/dataset-runs/${first.body.id}`)).status).toBe(404);
  }, 240_000);
});
