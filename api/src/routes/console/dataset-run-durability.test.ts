import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { DatasetRunResult, Message, Run } from '@engram/db';
import { crashTestProcesses, startScriptedModelServer, startTestStack, type ChatRequest, type ScriptedModelServer, type TestStack, until } from '@engram/testing';
import { signUp, type ConsoleUser } from './console-test-support.js';

/** The scale: a dataset of 50 items run against two template versions at once. */
const ITEMS = 50;

let stack: TestStack;
let model: ScriptedModelServer;
const processes = crashTestProcesses(() => stack.workerEnv);

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ inProcessWorker: false, baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }] });
});

afterAll(async () => {
  await processes.killAll();
  await stack?.stop();
  await model?.close();
});

const lastUserText = (request: ChatRequest) => String([...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '');
const systemText = (request: ChatRequest) => String(request.messages.find((message) => message.role === 'system')?.content ?? '');

async function twoVersionTemplate(user: ConsoleUser): Promise<string> {
  const apiKey: string = (await user.client.post('/api-keys', { name: 'durability' })).body.apiKey;
  const client = new Letta({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const design = await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false, system: 'You are version one.' });
  const name = `durable-eval-${Date.now().toString(36)}`;
  const created = await user.client.post('/agent-templates', { name, agentId: design.id });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await user.client.post(`/agent-templates/${created.body.id}/versions`, { message: 'one' })).status).toBe(201);
  expect((await user.client.patch(`/agent-templates/${created.body.id}`, { systemPrompt: 'You are version two.' })).status).toBe(200);
  expect((await user.client.post(`/agent-templates/${created.body.id}/versions`, { message: 'two' })).status).toBe(201);
  return name;
}

describe('a dataset run survives the death of its worker', () => {
  it(`records exactly ${ITEMS} results for each of two runs though the worker is SIGKILLed mid-run`, async () => {
    const user = await signUp(stack);
    const template = await twoVersionTemplate(user);
    const dataset = await user.client.post('/datasets', { name: 'durability' });
    const jsonl = Array.from({ length: ITEMS }, (_, index) =>
      JSON.stringify({ createMessage: { role: 'user', content: `question ${index}` }, expectedAnswer: `answer ${index}`, scorer: 'contains' }),
    ).join('\n');
    expect((await user.client.post(`/datasets/${dataset.body.id}/items/import`, { jsonl })).body).toEqual({ imported: ITEMS });
    // A short pause per answer, so the kill lands while model calls are in flight; version two answers wrong.
    model.onRequest((request) => {
      const number = /question (\d+)/.exec(lastUserText(request))?.[1];
      const right = systemText(request).includes('version one');
      return { type: 'text', text: right ? `It is answer ${number}.` : `It is answer x${number}.`, delayMs: 30 };
    });

    const first = processes.worker();
    const runs: string[] = [];
    for (const version of [1, 2]) {
      const started = await user.client.post(`/datasets/${dataset.body.id}/runs`, { templateVersion: `${template}:${version}`, concurrency: 5 });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      runs.push(started.body.id as string);
    }
    const organizationId = user.organizationId;
    const recorded = async () => DatasetRunResult.query(stack.db).forOrg(organizationId).whereIn('datasetRunId', runs).whereIn('status', ['completed', 'failed']).resultSize();
    const beforeKill = await until(recorded, (count) => count >= 15, { what: 'some items recorded', timeoutMs: 300_000 });
    expect(beforeKill).toBeLessThan(2 * ITEMS);

    await first.kill();
    processes.worker();

    for (const runId of runs) {
      const finished = await until(async () => (await user.client.get(`/dataset-runs/${runId}`)).body, (body) => body.run.status === 'completed', { what: `run ${runId} to finish`, timeoutMs: 300_000 });
      expect(finished.results).toHaveLength(ITEMS);
      expect(finished.summary).toMatchObject({ items: ITEMS, completed: ITEMS, failed: 0, running: 0, scored: ITEMS });
      expect(new Set(finished.results.map((result: { itemId: string }) => result.itemId)).size).toBe(ITEMS);
      expect(new Set(finished.results.map((result: { agentId: string }) => result.agentId)).size).toBe(ITEMS);
    }
    const [one, two] = await Promise.all(runs.map(async (runId) => (await user.client.get(`/dataset-runs/${runId}`)).body));
    expect(one.results.map((result: { answer: string }) => result.answer)).toEqual(Array.from({ length: ITEMS }, (_, index) => `It is answer ${index}.`));
    expect(one.summary.meanScore).toBe(1);
    expect(two.summary.meanScore).toBe(0);

    // Each item was sent once: its agent has one run, holding the item's one user message.
    const results = await DatasetRunResult.query(stack.db).forOrg(organizationId).whereIn('datasetRunId', runs);
    expect(results).toHaveLength(2 * ITEMS);
    for (const result of results) {
      const agentRuns = await Run.query(stack.db).forOrg(organizationId).where({ agentId: result.agentId! });
      expect(agentRuns.map((run) => [run.id, run.status])).toEqual([[result.runId, 'completed']]);
      expect(await Message.query(stack.db).forOrg(organizationId).where({ agentId: result.agentId!, role: 'user' }).resultSize()).toBe(1);
    }

    const compared = await user.client.get(`/dataset-runs/compare?base=${runs[0]}&other=${runs[1]}`);
    expect(compared.body.rows).toHaveLength(ITEMS);
    expect(compared.body.rows.every((row: { base: { score: number }; other: { score: number } }) => row.base.score === 1 && row.other.score === 0)).toBe(true);
  }, 600_000);
});
