import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, newId } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, api, clientFor, stop } = await startAgentTestContext();
afterAll(stop);

type RunWire = { id: string; agent_id: string; status: string; stop_reason: string | null; total_duration_ns: number | null; created_at: string };

/** Runs of a seeded agent: ten finished runs 1..10 ms long, one a day apart from 2026-10-01, with 0..4 steps. */
let seeded: string;
const seededRuns: Array<{ id: string; durationNs: number; steps: number; createdAt: Date; status: string; stopReason: string | null; projectId: string | null }> = [];
/** A live agent whose two runs went through the scripted model: one called a tool in two steps, one answered at once. */
let live: string;
let toolRun: string;
let plainRun: string;

const list = async (query: string) => {
  const response = await api(`/_internal_runs/?${query}`);
  const body = (await response.json()) as RunWire[];
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.map((run) => run.id);
};
const ofSeeded = (query: string) => list(`agent_id=${seeded}&${query}`);
const expected = (keep: (run: (typeof seededRuns)[number]) => boolean) =>
  seededRuns
    .filter(keep)
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
    .map((run) => run.id);

beforeAll(async () => {
  const { organizationId, projectId } = stack.tenant;
  live = (await client.agents.create({ model: 'openai/gpt-4o-mini', name: 'live' })).id;
  model.enqueue({ type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'tea' } }] }, { type: 'text', text: 'No tea.' });
  toolRun = (await client.agents.messages.create(live, { messages: [{ role: 'user', content: 'tea?' }] })).messages[0]?.run_id as string;
  model.enqueue({ type: 'text', text: 'Hello.' });
  plainRun = (await client.agents.messages.create(live, { messages: [{ role: 'user', content: 'hi' }] })).messages[0]?.run_id as string;

  seeded = (await client.agents.create({ model: 'openai/gpt-4o-mini', name: 'seeded' })).id;
  await Agent.query(stack.db).findById(seeded).patch({ baseTemplateId: 'family-support' });
  for (let index = 0; index < 10; index++) {
    const run = {
      id: newId('run'),
      durationNs: (index + 1) * 1_000_000,
      steps: index % 5,
      createdAt: new Date(Date.UTC(2026, 9, 1 + index, 12)),
      status: index === 9 ? 'running' : index % 4 === 3 ? 'failed' : 'completed',
      stopReason: index === 9 ? null : index % 4 === 3 ? 'llm_api_error' : 'end_turn',
      projectId: index % 2 === 0 ? projectId : null,
    };
    seededRuns.push(run);
    await stack.db('runs').insert({
      id: run.id,
      organizationId,
      projectId: run.projectId,
      agentId: seeded,
      status: run.status,
      stopReason: run.stopReason,
      background: index === 0,
      request: {},
      usage: { step_count: run.steps },
      totalDurationNs: run.durationNs,
      createdAt: run.createdAt,
      updatedAt: run.createdAt,
    });
  }
}, 120_000);

describe('GET /v1/_internal_runs', () => {
  it('lists the organization’s runs newest first, by agent or agents, paged, in either order', async () => {
    expect(await ofSeeded('')).toEqual(expected(() => true));
    expect(await list(`agent_ids=${live}`)).toEqual([plainRun, toolRun]);
    expect(await list(`agent_ids=${live},${seeded}&limit=3`)).toEqual([plainRun, toolRun, expected(() => true)[0]]);
    expect(await ofSeeded('ascending=true&limit=2')).toEqual(expected(() => true).reverse().slice(0, 2));
    expect(await ofSeeded('order=asc&limit=2')).toEqual(expected(() => true).reverse().slice(0, 2));
    const [first] = await ofSeeded('limit=1');
    expect(await ofSeeded(`after=${first}&limit=2`)).toEqual(expected(() => true).slice(1, 3));
  });

  it('filters by statuses, active, background and stop reason', async () => {
    expect(await ofSeeded('statuses=failed&statuses=running')).toEqual(expected((run) => run.status === 'failed' || run.status === 'running'));
    expect(await ofSeeded('statuses=failed,completed')).toEqual(expected((run) => run.status !== 'running'));
    expect(await ofSeeded('active=true')).toEqual(expected((run) => run.status === 'running'));
    expect(await ofSeeded('background=true')).toEqual([seededRuns[0]?.id]);
    expect(await ofSeeded('stop_reason=llm_api_error')).toEqual(expected((run) => run.stopReason === 'llm_api_error'));
  });

  it('filters by project, template family and dates', async () => {
    expect(await ofSeeded(`project_id=${stack.tenant.projectId}`)).toEqual(expected((run) => run.projectId !== null));
    expect(await list('template_family=family-support')).toEqual(expected(() => true));
    expect(await list('template_family=family-sales')).toEqual([]);
    const from = new Date(Date.UTC(2026, 9, 3));
    const until = new Date(Date.UTC(2026, 9, 6, 12));
    expect(await ofSeeded(`start_date=${from.toISOString()}&end_date=${until.toISOString()}`)).toEqual(expected((run) => run.createdAt >= from && run.createdAt <= until));
    // Naive datetimes, as Python's isoformat() writes them, are read as UTC.
    expect(await ofSeeded(`start_date=${from.toISOString().slice(0, 19)}`)).toEqual(expected((run) => run.createdAt >= from));
  });

  it('filters by step count with its operator, and by the tools the run used', async () => {
    expect(await ofSeeded('step_count=2')).toEqual(expected((run) => run.steps === 2));
    expect(await ofSeeded('step_count=2&step_count_operator=gte')).toEqual(expected((run) => run.steps >= 2));
    expect(await ofSeeded('step_count=1&step_count_operator=lte')).toEqual(expected((run) => run.steps <= 1));
    expect(await list(`agent_id=${live}&step_count=2`)).toEqual([toolRun]);
    expect(await list('tools_used=conversation_search')).toEqual([toolRun]);
    expect(await list('tools_used=archival_memory_search,conversation_search')).toEqual([toolRun]);
    expect(await list('tools_used=archival_memory_search')).toEqual([]);
  });

  it('filters by duration, by value and operator (nanoseconds) or by percentile of the runs the other filters keep', async () => {
    expect(await ofSeeded('duration_value=3000000&duration_operator=lt')).toEqual(expected((run) => run.durationNs < 3_000_000));
    expect(await ofSeeded('duration_value=3000000&duration_operator=gt')).toEqual(expected((run) => run.durationNs > 3_000_000));
    expect(await ofSeeded('duration_value=3000000&duration_operator=eq')).toEqual(expected((run) => run.durationNs === 3_000_000));
    // percentile_cont(0.8) of 1..10 ms is 8.2 ms: the two slowest runs.
    expect(await ofSeeded('duration_percentile=80')).toEqual(expected((run) => run.durationNs >= 9_000_000));
    // Of the completed runs only (1, 2, 3, 5, 6, 7, 9 ms), the 50th percentile is 5 ms.
    expect(await ofSeeded('duration_percentile=50&statuses=completed')).toEqual(expected((run) => run.status === 'completed' && run.durationNs >= 5_000_000));
  });

  it('answers 422 with the detail of each bad filter', async () => {
    const detail = async (query: string) => {
      const response = await api(`/_internal_runs/?${query}`);
      expect(response.status, query).toBe(422);
      return ((await response.json()) as { detail: Array<{ loc: unknown[] }> }).detail.map((issue) => issue.loc.at(-1));
    };
    expect(await detail('duration_value=5')).toEqual(['duration_operator']);
    expect(await detail('duration_operator=gt')).toEqual(['duration_value']);
    expect(await detail('duration_percentile=101')).toEqual(['duration_percentile']);
    expect(await detail('step_count=two')).toEqual(['step_count']);
    expect(await detail('step_count=2&step_count_operator=gt')).toEqual(['step_count_operator']);
    expect(await detail('stop_reason=bored')).toEqual(['stop_reason']);
    expect(await detail('start_date=yesterday')).toEqual(['start_date']);
  });

  it('shows nothing of another organization', async () => {
    const stranger = await stack.createTenant();
    expect(await clientFor(stranger.apiKey.key).get('/v1/_internal_runs/', { query: { agent_id: seeded } })).toEqual([]);
    expect(await list(`agent_id=${seeded}&tools_used=conversation_search`)).toEqual([]);
  });
});
