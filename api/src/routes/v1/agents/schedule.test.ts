import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Message, Run } from '@engram/db';
import { createAgent } from '@engram/testing/factories/index';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { until } from '@engram/testing';

const { stack, model, client, api, post, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

const finished = (run: Run) => run.status !== 'created' && run.status !== 'running';

const runsOf = async (scheduledMessageId: string): Promise<Run[]> =>
  Run.query(stack.db).forOrg(stack.tenant.organizationId).whereRaw(`metadata->>'scheduled_message_id' = ?`, [scheduledMessageId]);

describe('scheduled messages', () => {
  it('fires a one-time message once, as a run of the agent, through the official client', async () => {
    model.onRequest(() => ({ type: 'text', text: 'Good morning!' }));
    const agent = await createAgent(stack);
    const at = Date.now() + 3_000;
    const created = await client.agents.schedule.create(agent.id, {
      messages: [{ role: 'user', content: 'wake up' }],
      schedule: { type: 'one-time', scheduled_at: at },
    });
    expect(created.id).toMatch(/^scheduled_message-/);
    expect(Date.parse(created.next_scheduled_at!)).toBe(Math.floor(at / 1000) * 1000);

    const listed = await client.agents.schedule.list(agent.id);
    expect(listed.scheduled_messages).toEqual([
      expect.objectContaining({ id: created.id, agent_id: agent.id, schedule: { type: 'one-time', scheduled_at: at } }),
    ]);

    const [run] = await until(() => runsOf(created.id), (runs) => runs.length === 1 && finished(runs[0]!));
    expect(run?.agentId).toBe(agent.id);

    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await runsOf(created.id)).toHaveLength(1);
    const retrieved = await client.agents.schedule.retrieve(created.id, { agent_id: agent.id });
    expect(retrieved.next_scheduled_time).toBeNull();
    expect(run?.status).toBe('completed');
    const stored = await Message.query(stack.db).forOrg(stack.tenant.organizationId).where({ runId: run!.id }).orderBy('sequence');
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant']);
  }, 120_000);

  it('fires a recurring message on its cron schedule and stops when it is deleted', async () => {
    model.onRequest(() => ({ type: 'text', text: 'Reminder acknowledged.' }));
    const agent = await createAgent(stack);
    const created = await client.agents.schedule.create(agent.id, {
      messages: [{ role: 'user', content: 'hourly reminder' }],
      schedule: { type: 'recurring', cron_expression: '0 * * * *' },
    });
    expect(Date.parse(created.next_scheduled_at!) % 3_600_000).toBe(0);

    const handle = stack.temporal.schedule.getHandle(created.id);
    const description = await handle.describe();
    expect(description.spec.calendars?.[0]).toMatchObject({ minute: [{ start: 0, end: 0, step: 1 }], second: [{ start: 0, end: 0, step: 1 }] });
    // A firing is what the cron would start at the top of the hour: Temporal's trigger takes that action now.
    await handle.trigger();
    await until(() => runsOf(created.id), (runs) => runs.length === 1 && finished(runs[0]!));
    // A firing is keyed by its scheduled second (cron firings are at least a minute apart), so the second trigger waits for the next second.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await handle.trigger();
    const fired = await until(() => runsOf(created.id), (runs) => runs.length === 2 && runs.every(finished));

    expect(await client.agents.schedule.delete(created.id, { agent_id: agent.id })).toEqual({ success: true });
    await expect(handle.describe()).rejects.toThrow(/not found/i);
    expect((await api(`/agents/${agent.id}/schedule/${created.id}`)).status).toBe(404);
    expect(await runsOf(created.id)).toHaveLength(2);
    expect(fired.map((run) => run.status)).toEqual(['completed', 'completed']);
  }, 120_000);

  it('refuses a time in the past and a bad cron expression with a 422 naming the field', async () => {
    const agent = await createAgent(stack);
    const past = await post(`/agents/${agent.id}/schedule`, { messages: [{ role: 'user', content: 'late' }], schedule: { scheduled_at: Date.now() - 1000 } });
    expect(past.status).toBe(422);
    expect((await past.json()).detail[0].loc).toEqual(['body', 'schedule', 'scheduled_at']);
    for (const cron of ['not a cron', '61 * * * *', '*/5 * * * * *']) {
      const bad = await post(`/agents/${agent.id}/schedule`, { messages: [{ role: 'user', content: 'x' }], schedule: { type: 'recurring', cron_expression: cron } });
      expect(bad.status, cron).toBe(422);
      expect((await bad.json()).detail[0].loc).toEqual(['body', 'schedule', 'cron_expression']);
    }
    expect((await api(`/agents/${agent.id}/schedule`)).status).toBe(200);
  });

  it("removes an agent's schedules with the agent, and hides them from other organizations", async () => {
    const agent = await createAgent(stack);
    const created = await client.agents.schedule.create(agent.id, {
      messages: [{ role: 'user', content: 'later' }],
      schedule: { type: 'recurring', cron_expression: '30 9 * * 1' },
    });
    const other = await stack.createTenant();
    expect((await api(`/agents/${agent.id}/schedule/${created.id}`, { key: other.apiKey.key })).status).toBe(404);
    expect((await api(`/agents/${agent.id}/schedule/${created.id}`, { method: 'DELETE', key: other.apiKey.key })).status).toBe(404);

    await client.agents.delete(agent.id);
    await expect(stack.temporal.schedule.getHandle(created.id).describe()).rejects.toThrow(/not found/i);
  });
});
