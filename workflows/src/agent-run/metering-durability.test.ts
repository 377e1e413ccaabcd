import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingAccount, CreditTransaction, Run, Step } from '@engram/db';
import { crashTestProcesses, startScriptedModelServer, startTestStack, until, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';

/** The seeded step cost of gpt-4o-mini at its 128k context window. */
const STEP_COST = 4;

let stack: TestStack;
let model: ScriptedModelServer;
const { worker, killAll } = crashTestProcesses(() => stack.workerEnv);

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({
    inProcessWorker: false,
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
  });
});

afterAll(async () => {
  await killAll();
  await stack?.stop();
  await model?.close();
});

describe('metering survives the death of the worker mid-step', () => {
  it('charges each step of a run once when its worker is SIGKILLed as the step commits and during the next model call', async () => {
    const { organizationId } = stack.tenant;
    const steps = () => Step.query(stack.db).forOrg(organizationId);
    const firstWorker = worker();
    const agent = await requestV1(stack.baseUrl, stack.apiKey, 'POST', '/agents/', { name: 'metered', model: 'openai/gpt-4o-mini' });
    expect(agent.status).toBe(200);
    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'earlier' } }] },
      { type: 'text', text: 'never delivered', delayMs: 4000 },
      { type: 'text', text: 'Answered after the crash.' },
    );
    const sent = requestV1(stack.baseUrl, stack.apiKey, 'POST', `/agents/${agent.body.id}/messages/async`, { messages: [{ role: 'user', content: 'go' }] });
    const runId = ((await sent).body as { id: string }).id;

    // The first step's transaction (step, charge, balance) has committed; its activity may not have reported back yet.
    await until(async () => (await steps().where({ runId })).length === 1);
    await firstWorker.kill();
    worker();
    await until(async () => (await Run.query(stack.db).forOrg(organizationId).findById(runId))?.status === 'completed', { timeoutMs: 120_000 });

    const stored = await steps().where({ runId });
    expect(stored).toHaveLength(2);
    const charges = await CreditTransaction.query(stack.db).forOrg(organizationId).where('source', 'inference');
    expect(charges.map((charge) => charge.stepId).sort()).toEqual(stored.map((step) => step.id).sort());
    expect(stored.every((step) => charges.some((charge) => charge.id === step.tid))).toBe(true);

    const grants = await CreditTransaction.query(stack.db).forOrg(organizationId).where('type', 'addition');
    const granted = grants.reduce((sum, grant) => sum + Number(grant.amount), 0);
    const balance = Number((await BillingAccount.query(stack.db).forOrg(organizationId).first())?.creditBalance);
    expect(balance).toBe(granted - stored.length * STEP_COST);
  }, 180_000);
});
