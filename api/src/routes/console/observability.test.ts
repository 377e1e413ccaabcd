import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@engram/testing';
import { expectLatencyNear, nearestRank, signUp, type ConsoleUser } from './console-test-support.js';

let stack: TestStack;
let owner: ConsoleUser;
let stranger: ConsoleUser;

const DAY = 86_400;
/** 2026-10-01T00:00:00Z: the seeded traces start from here. */
const BASE = Date.UTC(2026, 9, 1) / 1000;

type Seed = { agentId: string; minutesIn: number; durationMs: number; steps: number; tools?: string[]; toolError?: boolean; apiError?: boolean; family?: string };

const seeds: Seed[] = [
  { agentId: 'agent-a', minutesIn: 10, durationMs: 120, steps: 1 },
  { agentId: 'agent-a', minutesIn: 20, durationMs: 2_500, steps: 3, tools: ['web_search'], toolError: true, family: 'support' },
  { agentId: 'agent-b', minutesIn: 30, durationMs: 90_000, steps: 5, tools: ['web_search', 'run_code'], apiError: true },
  { agentId: 'agent-b', minutesIn: 60 * 24 * 3, durationMs: 800, steps: 2, tools: ['run_code'], family: 'support' },
];
const traceIds = seeds.map(() => randomBytes(16).toString('hex'));

async function seed(organizationId: string, entry: Seed, traceId: string): Promise<void> {
  const startedAt = new Date((BASE + entry.minutesIn * 60) * 1000);
  await stack.db('traces').insert({
    traceId,
    organizationId,
    agentId: entry.agentId,
    runId: `run-${traceId.slice(0, 8)}`,
    templateFamily: entry.family ?? null,
    rootSpanName: 'POST /v1/agents/:agent_id/messages',
    startedAt,
    endedAt: new Date(startedAt.getTime() + entry.durationMs),
    durationMs: entry.durationMs,
    spanCount: 10,
    agentSteps: entry.steps,
    hasToolError: entry.toolError ?? false,
    hasApiError: entry.apiError ?? false,
    functionNames: entry.tools ?? [],
  });
}

const search = (body: Record<string, unknown>, user = owner) =>
  user.client.post('/observability/traces', { startTimeUnix: BASE, endTimeUnix: BASE + 7 * DAY, ...body });

async function found(body: Record<string, unknown>): Promise<string[]> {
  const response = await search(body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.traces.map((trace: { trace_id: string }) => trace.trace_id);
}

const expected = (...indexes: number[]) => indexes.map((index) => traceIds[index]);

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
  owner = await signUp(stack);
  stranger = await signUp(stack);
  for (const [index, entry] of seeds.entries()) await seed(owner.organizationId, entry, traceIds[index] as string);
  await seed(stranger.organizationId, seeds[0] as Seed, randomBytes(16).toString('hex'));
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('POST /api/observability/traces', () => {
  it('lists the organization’s run traces of the range, newest first, with their summary', async () => {
    expect(await found({})).toEqual(expected(3, 2, 1, 0));
    const response = await search({ agentId: 'agent-b' });
    expect(response.body.traces[1]).toMatchObject({
      trace_id: traceIds[2],
      agent_id: 'agent-b',
      duration_ms: 90_000,
      agent_steps: 5,
      status_code: 'api_error',
      function_names: ['web_search', 'run_code'],
    });
    expect(await found({ endTimeUnix: BASE + DAY })).toEqual(expected(2, 1, 0));
  });

  it('filters by every field of spec 000 §5', async () => {
    expect(await found({ agentId: 'agent-a' })).toEqual(expected(1, 0));
    expect(await found({ duration: { operator: 'gte', value: '2s' } })).toEqual(expected(2, 1));
    expect(await found({ duration: { operator: 'lte', value: '800ms' } })).toEqual(expected(3, 0));
    expect(await found({ duration: { operator: 'gte', value: '1.5m' } })).toEqual(expected(2));
    expect(await found({ statusCode: 'tool_error' })).toEqual(expected(1));
    expect(await found({ statusCode: 'api_error' })).toEqual(expected(2));
    expect(await found({ timestamp: { operator: 'gte', value: '2026-10-01T00:25:00Z' } })).toEqual(expected(3, 2));
    expect(await found({ timestamp: { operator: 'lte', value: '2026-10-01T00:25:00Z' } })).toEqual(expected(1, 0));
    expect(await found({ functionName: 'run_code' })).toEqual(expected(3, 2));
    expect(await found({ templateFamily: 'support' })).toEqual(expected(3, 1));
    expect(await found({ agentSteps: { operator: 'eq', value: 3 } })).toEqual(expected(1));
    expect(await found({ agentSteps: { operator: 'gte', value: 3 } })).toEqual(expected(2, 1));
    expect(await found({ agentSteps: { operator: 'lte', value: 2 } })).toEqual(expected(3, 0));
    expect(await found({ agentId: 'agent-b', functionName: 'web_search', statusCode: 'api_error' })).toEqual(expected(2));
  });

  it('pages with a cursor', async () => {
    const first = await search({ limit: 3 });
    expect(first.body.traces.map((trace: { trace_id: string }) => trace.trace_id)).toEqual(expected(3, 2, 1));
    const second = await search({ limit: 3, cursor: first.body.nextCursor });
    expect(second.body.traces.map((trace: { trace_id: string }) => trace.trace_id)).toEqual(expected(0));
    expect(second.body.nextCursor).toBeNull();
    expect((await search({ limit: 101 })).status).toBe(400);
  });

  it('answers bad input with the spec’s messages', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ startTimeUnix: BASE + DAY, endTimeUnix: BASE }, 'startTimeUnix must be less than endTimeUnix'],
      [{ endTimeUnix: BASE + 366 * DAY }, 'Time range must be at most 365 days'],
      [{ startTimeUnix: 'yesterday' }, 'startTimeUnix must be a valid timestamp'],
      [{ duration: { operator: 'gte', value: 'two seconds' } }, 'Invalid duration format'],
      [{ timestamp: { operator: 'lte', value: 'last tuesday' } }, 'Invalid date format'],
    ];
    for (const [body, message] of cases) {
      const response = await search(body);
      expect(response.status, message).toBe(400);
      expect(response.body).toMatchObject({ errorCode: 'validation', message });
    }
  });

  it('never shows another organization’s traces', async () => {
    const theirs = await search({}, stranger);
    expect(theirs.body.traces).toHaveLength(1);
    expect(traceIds).not.toContain(theirs.body.traces[0].trace_id);
    expect((await stranger.client.get(`/traces/${traceIds[0]}`)).status).toBe(404);
  });
});

/** The local day or hour of an instant in a timezone, as the metrics name their periods. */
function localPeriod(at: Date, timezone: string, granularity: 'daily' | 'hourly'): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return granularity === 'daily' ? `${parts.year}-${parts.month}-${parts.day}` : `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:00`;
}

describe('metrics over a seeded month', () => {
  let analyst: ConsoleUser;
  /** 2026-09-01T00:00:00Z: a month wholly in the past, so that no seeded run falls in the last hour of any test run. */
  const MONTH = Date.UTC(2026, 8, 1) / 1000;
  const month: Array<Seed & { startedAt: Date; toolCalls: number }> = [];

  beforeAll(async () => {
    analyst = await signUp(stack);
    const steps: Array<Record<string, unknown>> = [];
    // Every 7h 13m for 30 days: runs fall on every hour of the day, across both timezones' midnights.
    for (let index = 0; index * 433 < 30 * 24 * 60; index++) {
      const entry: Seed = {
        agentId: `agent-${index % 4}`,
        minutesIn: index * 433,
        durationMs: 100 + ((index * 7919) % 5000),
        steps: 1 + (index % 5),
        tools: index % 3 === 0 ? ['web_search'] : [],
        toolError: index % 6 === 0,
        apiError: index % 10 === 0,
      };
      const traceId = randomBytes(16).toString('hex');
      // A run with a tool calls it once or twice; in a run with a tool error, one of its calls failed.
      const toolCalls = entry.tools?.length ? 1 + (index % 2) : 0;
      month.push({ ...entry, startedAt: new Date((MONTH + entry.minutesIn * 60) * 1000), toolCalls });
      await stack.db('traces').insert({
        traceId,
        organizationId: analyst.organizationId,
        agentId: entry.agentId,
        runId: `run-${index}`,
        startedAt: new Date((MONTH + entry.minutesIn * 60) * 1000),
        endedAt: new Date((MONTH + entry.minutesIn * 60) * 1000 + entry.durationMs),
        durationMs: entry.durationMs,
        agentSteps: entry.steps,
        hasToolError: entry.toolError,
        hasApiError: entry.apiError,
        functionNames: entry.tools,
        toolCalls: toolCalls ? { web_search: { calls: toolCalls, failed: entry.toolError ? 1 : 0 } } : {},
      });
      for (let step = 0; step < entry.steps; step++) {
        steps.push({
          id: `step-month-${index}-${step}`,
          organizationId: analyst.organizationId,
          stepIndex: step,
          model: 'gpt-4o-mini',
          traceId,
          createdAt: new Date((MONTH + entry.minutesIn * 60) * 1000 + step),
        });
      }
    }
    await stack.db('steps').insert(steps);
  }, 60_000);

  /** The steps table's own count per local period of each step's run (its trace), as the metrics name periods. */
  async function stepsTablePerPeriod(timezone: string, granularity: 'daily' | 'hourly') {
    const [unit, format] = granularity === 'daily' ? ['day', 'YYYY-MM-DD'] : ['hour', 'YYYY-MM-DD"T"HH24:00'];
    const { rows } = await stack.db.raw(
      `select to_char(date_trunc(?, traces.started_at at time zone ?), ?) as period, count(*)::int as steps
         from steps join traces on traces.trace_id = steps.trace_id
        where steps.organization_id = ? group by 1 order by 1`,
      [unit, timezone, format, analyst.organizationId],
    );
    return rows as Array<{ period: string; steps: number }>;
  }

  const metric = async (name: string, query: Record<string, string>) => {
    const params = new URLSearchParams({ range: 'custom', startTimeUnix: String(MONTH), endTimeUnix: String(MONTH + 30 * DAY), ...query });
    const response = await analyst.client.get(`/observability/${name}?${params}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  };

  function expectedSeries(timezone: string, granularity: 'daily' | 'hourly') {
    const periods = new Map<string, typeof month>();
    for (const run of month) {
      const period = localPeriod(run.startedAt, timezone, granularity);
      periods.set(period, [...(periods.get(period) ?? []), run]);
    }
    return [...periods.entries()].sort(([a], [b]) => a.localeCompare(b));
  }

  for (const timezone of ['UTC', 'Asia/Kolkata']) {
    for (const granularity of ['daily', 'hourly'] as const) {
      it(`equals the runs themselves per ${granularity === 'daily' ? 'day' : 'hour'} in ${timezone}, its percentiles within 2.2%`, async () => {
        const expected = expectedSeries(timezone, granularity);
        const latency = await metric('metrics/latency', { timezone, granularity });
        expect(latency.series.map((row: { period: string }) => row.period)).toEqual(expected.map(([period]) => period));
        for (const [index, [, runs]] of expected.entries()) {
          const durations = runs.map((run) => run.durationMs);
          expect(latency.series[index].runs).toBe(runs.length);
          expectLatencyNear(latency.series[index].p50, nearestRank(durations, 0.5));
          expectLatencyNear(latency.series[index].p95, nearestRank(durations, 0.95));
          expectLatencyNear(latency.series[index].p99, nearestRank(durations, 0.99));
        }
        const errors = await metric('metrics/errors', { timezone, granularity });
        expect(errors.series).toEqual(
          expected.map(([period, runs]) => ({
            period,
            runs: runs.length,
            apiError: runs.filter((run) => run.apiError).length,
            toolError: runs.filter((run) => run.toolError).length,
          })),
        );
        const steps = await metric('metrics/steps', { timezone, granularity });
        expect(steps.series.map((row: { steps: number }) => row.steps)).toEqual(expected.map(([, runs]) => runs.reduce((sum, run) => sum + run.steps, 0)));
        expect(steps.series.map((row: { period: string; steps: number }) => ({ period: row.period, steps: row.steps }))).toEqual(await stepsTablePerPeriod(timezone, granularity));
        const agents = await metric('metrics/active-agents', { timezone, granularity });
        expect(agents.series.map((row: { activeAgents: number }) => row.activeAgents)).toEqual(expected.map(([, runs]) => new Set(runs.map((run) => run.agentId)).size));
      });
    }
  }

  it('sums the month in the overview and per tool, and filters by agent', async () => {
    const overview = await metric('overview', {});
    expect(overview).toMatchObject({
      runs: month.length,
      steps: month.reduce((sum, run) => sum + run.steps, 0),
      activeAgents: 4,
      errors: { apiError: month.filter((run) => run.apiError).length, toolError: month.filter((run) => run.toolError).length },
    });
    expectLatencyNear(overview.latencyMs.p50, nearestRank(month.map((run) => run.durationMs), 0.5));
    const stepsTable = await stack.db('steps').where({ organizationId: analyst.organizationId }).count<Array<{ count: string }>>('* as count');
    expect(overview.steps).toBe(Number(stepsTable[0]?.count));
    const monthRange = new URLSearchParams({ range: 'custom', startTimeUnix: String(MONTH), endTimeUnix: String(MONTH + 30 * DAY) });
    expect((await analyst.client.get(`/usage/model-summary?${monthRange}`)).body.models).toEqual([
      expect.objectContaining({ model: 'gpt-4o-mini', steps: Number(stepsTable[0]?.count), runs: 0 }),
    ]);
    const searching = month.filter((run) => run.tools?.includes('web_search'));
    expect((await metric('metrics/tool-usage', {})).tools).toEqual([
      {
        toolName: 'web_search',
        runs: searching.length,
        errorRate: searching.filter((run) => run.toolError).length / searching.length,
        calls: searching.reduce((sum, run) => sum + run.toolCalls, 0),
        failedCalls: searching.filter((run) => run.toolError).length,
      },
    ]);
    expect((await metric('overview', { agentId: 'agent-1' })).runs).toBe(month.filter((run) => run.agentId === 'agent-1').length);
  });

  it('reads a range that starts and ends inside quarter hours exactly: its whole buckets from the rollups, its ends from the runs', async () => {
    // Minute 430 is inside the quarter hour of the run at minute 433; minute 13,424 just after the run at 13,423.
    const [from, to] = [430, 13_424];
    const inRange = month.filter((run) => run.minutesIn >= from && run.minutesIn < to);
    const uneven = { range: 'custom', startTimeUnix: String(MONTH + from * 60), endTimeUnix: String(MONTH + to * 60) };
    const params = new URLSearchParams(uneven);
    const read = async (name: string) => (await analyst.client.get(`/observability/${name}?${params}`)).body;
    expect(await read('overview')).toMatchObject({
      runs: inRange.length,
      steps: inRange.reduce((sum, run) => sum + run.steps, 0),
      activeAgents: new Set(inRange.map((run) => run.agentId)).size,
      errors: { apiError: inRange.filter((run) => run.apiError).length, toolError: inRange.filter((run) => run.toolError).length },
    });
    expect(inRange.map((run) => run.minutesIn)).toContain(433);
    expect(inRange.map((run) => run.minutesIn)).toContain(13_423);
    const searching = inRange.filter((run) => run.tools?.includes('web_search'));
    expect((await read('metrics/tool-usage')).tools).toEqual([
      {
        toolName: 'web_search',
        runs: searching.length,
        errorRate: searching.filter((run) => run.toolError).length / searching.length,
        calls: searching.reduce((sum, run) => sum + run.toolCalls, 0),
        failedCalls: searching.filter((run) => run.toolError).length,
      },
    ]);
  });

  it('moves a run whose summary a later span batch rewrites, and keeps it when its trace is deleted by retention', async () => {
    const rewriter = await signUp(stack);
    // Quarter-hour aligned, so the hour read below is all rollups (a range's uneven ends read the stored runs).
    const first = new Date((MONTH + 45 * 60) * 1000);
    const traceId = randomBytes(16).toString('hex');
    const summary = { traceId, organizationId: rewriter.organizationId, agentId: 'agent-late', runId: 'run-late', startedAt: first, endedAt: first, durationMs: 100 };
    await stack.db('traces').insert({ ...summary, agentSteps: 1, functionNames: ['web_search'] });
    // The run's earlier spans arrive later: it started a day before, ran longer, failed a tool and called another.
    const earlier = new Date(first.getTime() - DAY * 1000);
    await stack.db('traces').where({ traceId }).update({ startedAt: earlier, durationMs: 5_000, agentSteps: 3, hasToolError: true, functionNames: ['web_search', 'run_code'] });
    const overviewOf = async (start: Date) =>
      (await rewriter.client.get(`/observability/overview?${new URLSearchParams({ range: 'custom', startTimeUnix: String(start.getTime() / 1000), endTimeUnix: String(start.getTime() / 1000 + 3600) })}`)).body;
    expect(await overviewOf(first)).toMatchObject({ runs: 0, steps: 0, activeAgents: 0 });
    const moved = await overviewOf(earlier);
    expect(moved).toMatchObject({ runs: 1, steps: 3, activeAgents: 1, errors: { apiError: 0, toolError: 1 } });
    expectLatencyNear(moved.latencyMs.p50, 5_000);
    await stack.db('traces').where({ traceId }).delete();
    expect(await overviewOf(earlier)).toMatchObject({ runs: 1, steps: 3 });
  });

  it('checks its range, granularity and timezone with the spec’s messages', async () => {
    const bad = async (query: Record<string, string>) => (await analyst.client.get(`/observability/metrics/latency?${new URLSearchParams(query)}`)).body.message;
    expect(await bad({ range: 'custom', startTimeUnix: String(MONTH + DAY), endTimeUnix: String(MONTH) })).toBe('startTimeUnix must be less than endTimeUnix');
    expect(await bad({ range: 'custom', startTimeUnix: String(MONTH), endTimeUnix: String(MONTH + 400 * DAY) })).toBe('Time range must be at most 365 days');
    expect(await bad({ range: 'custom', startTimeUnix: 'soon', endTimeUnix: String(MONTH) })).toBe('startTimeUnix must be a valid timestamp');
    expect(await bad({ timezone: 'Mars/Olympus' })).toBe('Invalid timezone');
    expect((await analyst.client.get('/observability/metrics/latency?range=2d')).status).toBe(400);
    expect((await analyst.client.get('/observability/overview?range=1h')).body.runs).toBe(0);
  });
});
