import { afterAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { chooseArm } from '@engram/core';
import { Agent, AgentTemplateVersion, Step, newId } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { signUp } from './console-test-support.js';

// Billing on, so the free tier's A/B test limit is enforced.
const { stack, call, stop } = await startAgentTestContext({ apiEnv: { ENGRAM_BILLING: 'on' } });
afterAll(stop);

const USERS = 40;

describe('A/B tests', () => {
  it('splits end users between two versions by identity, declares a winner on significant feedback, and promotes it to every agent', async () => {
    const user = await signUp(stack);
    const apiKey: string = (await user.client.post('/api-keys', { name: 'ab' })).body.apiKey;
    const client = new Letta({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
    const design = await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false, system: 'Version one.' });
    const name = `ab-${Date.now().toString(36)}`;
    const template = await user.client.post('/agent-templates', { name, agentId: design.id });
    await user.client.post(`/agent-templates/${template.body.id}/versions`, { message: 'one' });
    await user.client.patch(`/agent-templates/${template.body.id}`, { systemPrompt: 'Version two.' });
    await user.client.post(`/agent-templates/${template.body.id}/versions`, { message: 'two' });
    const other = await user.client.post('/agent-templates', { name: `${name}-other`, agentId: design.id });
    await user.client.post(`/agent-templates/${other.body.id}/versions`, { message: 'one' });

    expect((await user.client.post('/ab-tests', { description: 'x' })).body).toMatchObject({ errorCode: 'validation', message: 'Name is required' });
    const created = await user.client.post('/ab-tests', { name: 'prompt wording', description: 'one or two' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'prompt wording', status: 'running', organizationId: user.organizationId, winnerAbTestTemplateId: null });
    const abTestId: string = created.body.id;

    const armOne = await user.client.post(`/ab-tests/${abTestId}/templates`, { templateName: `${name}:1`, weight: 50 });
    expect(armOne.status, JSON.stringify(armOne.body)).toBe(201);
    expect(armOne.body).toEqual({ id: expect.stringMatching(/^ab_test_template-/), templateName: `${name}:1`, coreAgentId: template.body.entityId, simulatedAgentId: null, weight: 50, memoryVariables: {} });
    const armTwo = await user.client.post(`/ab-tests/${abTestId}/templates`, { templateName: `${name}:2`, weight: 30 });
    expect((await user.client.patch(`/ab-tests/${abTestId}/templates/${armTwo.body.id}`, { weight: 50 })).body.weight).toBe(50);
    expect((await user.client.post(`/ab-tests/${abTestId}/templates`, { templateName: `${name}-other:1` })).body).toMatchObject({ errorCode: 'validation' });
    expect((await user.client.post(`/ab-tests/${abTestId}/templates`, { templateName: `${name}:1` })).body).toMatchObject({ errorCode: 'validation' });
    expect((await user.client.get(`/ab-tests/${abTestId}/templates`)).body.templates.map((arm: { templateName: string }) => arm.templateName)).toEqual([`${name}:1`, `${name}:2`]);

    // Each end user lands where the chooser puts them, and gets the same agent back.
    const arms = [
      { id: armOne.body.id as string, weight: 50 },
      { id: armTwo.body.id as string, weight: 50 },
    ];
    const agentOf = new Map<string, { agentId: string; armId: string }>();
    for (let index = 0; index < USERS; index++) {
      const identity = `customer-${index}`;
      const first = await call(apiKey, 'POST', `/ab-tests/${abTestId}/agents`, { identity });
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      expect(first.body.ab_test_template_id).toBe(chooseArm(abTestId, identity, arms).id);
      const again = await call(apiKey, 'POST', `/ab-tests/${abTestId}/agents`, { identity });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ agent_id: first.body.agent_id, ab_test_template_id: first.body.ab_test_template_id, created: false });
      agentOf.set(identity, { agentId: first.body.agent_id, armId: first.body.ab_test_template_id });
    }
    // Each agent is made from its arm's version.
    const versions = await AgentTemplateVersion.query(stack.db).forOrg(user.organizationId).where({ templateId: template.body.id }).orderBy('version');
    for (const { agentId, armId } of agentOf.values()) {
      const agent = await Agent.query(stack.db).findById(agentId);
      expect(agent?.templateVersionId).toBe(armId === armOne.body.id ? versions[0]!.id : versions[1]!.id);
    }
    expect((await user.client.delete(`/ab-tests/${abTestId}/templates/${armOne.body.id}`)).body).toMatchObject({ errorCode: 'validation' });

    const undecided = await user.client.get(`/ab-tests/${abTestId}/results`);
    expect(undecided.body.winner).toBeNull();
    expect(undecided.body.arms.reduce((sum: number, arm: { users: number }) => sum + arm.users, 0)).toBe(USERS);
    expect((await user.client.post(`/ab-tests/${abTestId}/stop`, { promote: true })).body).toMatchObject({ errorCode: 'validation', message: 'No arm is significantly better yet' });

    // Seeded feedback through the steps API: version two's users rate 5 steps each mostly up, version one's mostly down.
    for (const [index, { agentId, armId }] of [...agentOf.values()].entries()) {
      for (let stepIndex = 0; stepIndex < 5; stepIndex++) {
        const step = await Step.query(stack.db)
          .insert({ id: newId('step'), organizationId: user.organizationId, agentId, stepIndex })
          .returning('*');
        const liked = armId === armTwo.body.id ? (index + stepIndex) % 10 !== 0 : (index + stepIndex) % 5 < 2;
        const rated = await call(apiKey, 'PATCH', `/steps/${step.id}/feedback`, { feedback: liked ? 'positive' : 'negative' });
        expect(rated.status, JSON.stringify(rated.body)).toBe(200);
      }
    }
    const decided = await user.client.get(`/ab-tests/${abTestId}/results`);
    expect(decided.body.winner).toMatchObject({ abTestTemplateId: armTwo.body.id });
    expect(decided.body.winner.pValue).toBeLessThan(0.05);
    const byArm = Object.fromEntries(decided.body.arms.map((arm: any) => [arm.abTestTemplateId, arm]));
    expect(byArm[armTwo.body.id].feedbackRate.rate).toBeGreaterThan(0.85);
    expect(byArm[armOne.body.id].feedbackRate.rate).toBeLessThan(0.45);
    for (const arm of decided.body.arms) {
      expect(arm.feedbackRate.low).toBeLessThanOrEqual(arm.feedbackRate.rate);
      expect(arm.feedbackRate.high).toBeGreaterThanOrEqual(arm.feedbackRate.rate);
      expect(arm.positiveFeedback + arm.negativeFeedback).toBe(arm.users * 5);
    }

    const stopped = await user.client.post(`/ab-tests/${abTestId}/stop`, { promote: true });
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    expect(stopped.body.abTest).toMatchObject({ status: 'stopped', winnerAbTestTemplateId: armTwo.body.id });
    await expect
      .poll(async () => (await user.client.get(`/agent-templates/migrations?templateId=${template.body.id}`)).body.migrations[0]?.status, { timeout: 120_000, interval: 200 })
      .toBe('completed');
    for (const { agentId } of agentOf.values()) expect((await Agent.query(stack.db).findById(agentId))?.templateVersionId).toBe(versions[1]!.id);
    expect((await call(apiKey, 'POST', `/ab-tests/${abTestId}/agents`, { identity: 'late-comer' })).status).toBe(400);
  }, 300_000);

  it('allows the free tier 10 A/B tests (usageLimit with the limit), and 404s another organization', async () => {
    const user = await signUp(stack);
    for (let index = 0; index < 10; index++) expect((await user.client.post('/ab-tests', { name: `test ${index}` })).status).toBe(201);
    const over = await user.client.post('/ab-tests', { name: 'one too many' });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ errorCode: 'usageLimit', limit: 10 });
    const listed = await user.client.get('/ab-tests?limit=100');
    expect(listed.body.abTests).toHaveLength(10);
    const stranger = await signUp(stack);
    expect((await stranger.client.get(`/ab-tests/${listed.body.abTests[0].id}`)).status).toBe(404);
    expect((await user.client.delete(`/ab-tests/${listed.body.abTests[0].id}`)).body).toEqual({ success: true });
    expect((await user.client.post('/ab-tests', { name: 'fits again' })).status).toBe(201);
  });
});
