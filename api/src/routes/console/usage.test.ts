import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { CreditTransaction, EmbeddingModel, InferenceModel, newId, Step } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { expectLatencyNear, nearestRank, signUp, type ConsoleUser } from './console-test-support.js';

let stack: TestStack;
let model: ScriptedModelServer;
let owner: ConsoleUser;
let stranger: ConsoleUser;
let agentId: string;
let registered: InferenceModel;

const USAGE = { prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 };
const MODEL = 'openai/gpt-4o-mini';
const DAY = 86_400;
/** 2026-08-01T00:00:00Z: the month of the seeded times to first token. */
const MONTH = Date.UTC(2026, 7, 1) / 1000;
/** 30 runs 19 hours apart, their first token after 100..3000 ms. */
const seededTtft = Array.from({ length: 30 }, (_, index) => ({ at: new Date((MONTH + index * 19 * 3600) * 1000), ttftMs: ((index * 7) % 30) * 100 + 100 }));

function localDay(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** `YYYY-MM-DDTHH:00` in the timezone, as the API writes an hourly period. */
function localHour(at: Date, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:00`;
}

async function registerModel(): Promise<InferenceModel> {
  const row = { id: randomUUID(), name: MODEL, brand: 'openai', modelEndpoint: 'https://api.openai.com/v1', defaultRequestsPerMinutePerOrganization: 10_000, defaultTokensPerMinutePerOrganization: 10_000_000 };
  // The registry is the platform's, shared with other test files: the model may be registered already.
  await InferenceModel.query(stack.db).insert(row).onConflict('name').ignore();
  await EmbeddingModel.query(stack.db)
    .insert({ ...row, id: randomUUID(), name: 'openai/text-embedding-3-small' })
    .onConflict('name')
    .ignore();
  return (await InferenceModel.query(stack.db).findOne({ name: MODEL })) as InferenceModel;
}

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }] });
  owner = await signUp(stack);
  stranger = await signUp(stack);
  const key = await owner.client.post('/api-keys', { name: 'usage' });
  const client = new Letta({ apiKey: key.body.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  agentId = (await client.agents.create({ model: MODEL, name: 'spender' })).id;
  model.enqueue(
    { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'tea' } }], usage: USAGE },
    { type: 'text', text: 'No tea.', usage: USAGE },
    { type: 'text', text: 'Hello.', usage: { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 } },
  );
  await client.agents.messages.create(agentId, { messages: [{ role: 'user', content: 'tea?' }] });
  await client.agents.messages.create(agentId, { messages: [{ role: 'user', content: 'hi' }] });
  registered = await registerModel();

  for (const [index, seeded] of seededTtft.entries()) {
    await stack.db('runs').insert({
      id: newId('run'),
      organizationId: owner.organizationId,
      agentId,
      status: 'completed',
      stopReason: 'end_turn',
      request: {},
      ttftNs: seeded.ttftMs * 1_000_000,
      totalDurationNs: (seeded.ttftMs + index) * 1_000_000,
      createdAt: seeded.at,
      updatedAt: seeded.at,
    });
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await model?.close();
});

const get = async (path: string, user = owner) => {
  const response = await user.client.get(path);
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(200);
  return response.body;
};

describe('usage and costs per model', () => {
  it('sums the steps table and its ledger charges per model', async () => {
    const steps = await Step.query(stack.db).forOrg(owner.organizationId);
    expect(steps).toHaveLength(3);
    const charges = await CreditTransaction.query(stack.db).forOrg(owner.organizationId).where('source', 'inference');
    const credits = charges.reduce((sum, charge) => sum + Number(charge.amount), 0);
    expect(credits).toBeGreaterThan(0);

    expect((await get('/usage/model-summary?range=1h')).models).toEqual([
      {
        model: MODEL,
        runs: 2,
        steps: 3,
        promptTokens: steps.reduce((sum, step) => sum + step.promptTokens, 0),
        completionTokens: steps.reduce((sum, step) => sum + step.completionTokens, 0),
        totalTokens: steps.reduce((sum, step) => sum + step.totalTokens, 0),
        credits,
        dollars: credits * 0.001,
      },
    ]);
    // Over whole quarter hours the summary reads the usage rollups alone, the charges included.
    const quarterHour = 900;
    const now = Math.floor(Date.now() / 1000);
    const wholeQuarters = `range=custom&startTimeUnix=${Math.floor(now / quarterHour) * quarterHour - 3600}&endTimeUnix=${Math.ceil((now + 1) / quarterHour) * quarterHour}`;
    expect((await get(`/usage/model-summary?${wholeQuarters}`)).models).toEqual((await get('/usage/model-summary?range=1h')).models);
    expect(await get('/costs?range=1h&granularity=hourly&timezone=Asia/Kolkata')).toEqual({
      credits,
      dollars: credits * 0.001,
      models: [{ modelId: registered.id, model: MODEL, steps: 3, credits, dollars: credits * 0.001 }],
      series: [...new Set(charges.map((charge) => localHour(charge.createdAt, 'Asia/Kolkata')))].sort().map((period) => {
        const inPeriod = charges.filter((charge) => localHour(charge.createdAt, 'Asia/Kolkata') === period);
        const periodCredits = inPeriod.reduce((sum, charge) => sum + Number(charge.amount), 0);
        return { period, steps: inPeriod.length, credits: periodCredits, dollars: periodCredits * 0.001 };
      }),
    });
    expect((await get(`/usage/model-summary?range=1h&agentId=${agentId}`)).models).toHaveLength(1);
    expect((await get('/usage/model-summary?range=1h&agentId=agent-elsewhere')).models).toEqual([]);
    expect((await get('/costs?range=1h&agentId=agent-elsewhere')).models).toEqual([]);
  });

  it('shows one model’s price per step and its charges per day', async () => {
    const charges = await CreditTransaction.query(stack.db).forOrg(owner.organizationId).where('source', 'inference');
    const credits = charges.reduce((sum, charge) => sum + Number(charge.amount), 0);
    const costs = await get(`/costs/${registered.id}?range=1d&granularity=daily`);
    expect(costs).toMatchObject({ modelId: registered.id, model: MODEL, brand: registered.brand, steps: 3, credits });
    expect(costs.series).toEqual([{ period: localDay(charges[0]?.createdAt as Date, 'UTC'), steps: 3, credits, dollars: credits * 0.001 }]);
    expect(costs.stepCosts.version).toBe(1);
    expect(costs.stepCosts.costs.length).toBeGreaterThan(0);
    expect((await owner.client.get('/costs/model-unknown?range=1d')).status).toBe(404);
  });

  it('lists the organization’s limit of each model: an admin’s override, else the default', async () => {
    const limitOf = async (kind: string, name: string, user = owner) =>
      (await get(`/rate-limits/${kind}`, user)).rateLimits.find((limit: { model: string }) => limit.model === name);
    expect(await limitOf('inference', MODEL)).toEqual({ model: MODEL, requestsPerMinute: registered.defaultRequestsPerMinutePerOrganization, tokensPerMinute: registered.defaultTokensPerMinutePerOrganization });
    await stack.db('organization_model_rate_limits').insert({ organizationId: owner.organizationId, model: MODEL, requestsPerMinute: 7, tokensPerMinute: 7000 });
    expect(await limitOf('inference', MODEL)).toEqual({ model: MODEL, requestsPerMinute: 7, tokensPerMinute: 7000 });
    expect((await limitOf('inference', MODEL, stranger)).requestsPerMinute).toBe(registered.defaultRequestsPerMinutePerOrganization);
    expect(await limitOf('embedding', 'openai/text-embedding-3-small')).toMatchObject({ model: 'openai/text-embedding-3-small' });
  });

  it('shows another organization nothing of it', async () => {
    expect((await get('/usage/model-summary?range=1h', stranger)).models).toEqual([]);
    expect(await get('/costs?range=1h', stranger)).toEqual({ credits: 0, dollars: 0, models: [], series: [] });
    expect((await get(`/costs/${registered.id}?range=1h`, stranger)).series).toEqual([]);
  });
});

describe('time to first token', () => {
  const range = `range=custom&startTimeUnix=${MONTH}&endTimeUnix=${MONTH + 30 * DAY}`;

  for (const timezone of ['UTC', 'Asia/Kolkata']) {
    it(`gives its percentiles per day in ${timezone}, each within 2.2% of the run it names`, async () => {
      const days = new Map<string, number[]>();
      for (const seeded of seededTtft) days.set(localDay(seeded.at, timezone), [...(days.get(localDay(seeded.at, timezone)) ?? []), seeded.ttftMs]);
      const { series } = await get(`/observability/metrics/time-to-first-token?${range}&timezone=${timezone}`);
      const expected = [...days.entries()].sort(([a], [b]) => a.localeCompare(b));
      expect(series.map((row: { period: string }) => row.period)).toEqual(expected.map(([day]) => day));
      for (const [index, [, values]] of expected.entries()) {
        expect(series[index].runs).toBe(values.length);
        expectLatencyNear(series[index].p50, nearestRank(values, 0.5));
        expectLatencyNear(series[index].p99, nearestRank(values, 0.99));
      }
    });
  }

  it('lists the sends slowest first, 25 to a page', async () => {
    const slowestFirst = [...seededTtft].sort((a, b) => b.ttftMs - a.ttftMs).map((seeded) => seeded.ttftMs);
    const first = await get(`/observability/metrics/time-to-first-token/messages?${range}`);
    expect(first.messages.map((message: { timeToFirstTokenMs: number }) => message.timeToFirstTokenMs)).toEqual(slowestFirst.slice(0, 25));
    expect(first.messages[0]).toMatchObject({ agentId });
    expect(first.hasNextPage).toBe(true);
    const second = await get(`/observability/metrics/time-to-first-token/messages?${range}&offset=25`);
    expect(second.messages.map((message: { timeToFirstTokenMs: number }) => message.timeToFirstTokenMs)).toEqual(slowestFirst.slice(25));
    expect(second.hasNextPage).toBe(false);
    expect((await get(`/observability/metrics/time-to-first-token/messages?${range}`, stranger)).messages).toEqual([]);
  });

  it('checks its page and range with the spec’s messages', async () => {
    const message = async (query: string) => {
      const response = await owner.client.get(`/observability/metrics/time-to-first-token/messages?${query}`);
      expect(response.status, query).toBe(400);
      return response.body.message;
    };
    expect(await message(`${range}&limit=0`)).toBe('Limit must be between 1 and 25');
    expect(await message(`${range}&limit=26`)).toBe('Limit must be between 1 and 25');
    expect(await message(`${range}&offset=-1`)).toBe('Offset must be greater than or equal to 0');
    expect(await message(`range=custom&startTimeUnix=${MONTH + DAY}&endTimeUnix=${MONTH}`)).toBe('startTimeUnix must be less than endTimeUnix');
    expect(await message('timezone=Mars/Olympus')).toBe('Invalid timezone');
  });
});
