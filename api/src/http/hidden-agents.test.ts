import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Identity, SharedChatConversation, type AgentHiddenKind } from '@engram/db';
import { startAgentTestContext, type AgentTestContext } from '@engram/testing/agent-test-context';
import { signUp, type ConsoleUser } from '../routes/console/console-test-support.js';
import { callRoute, fillPath, walkableRoutes, type Caller, type WalkedResponse } from './route-walk-test-support.js';

/**
 * One definition of hidden, applied everywhere: an organization with a visible agent and one agent of every hidden
 * kind (a template's simulated agent, an evaluation's agent, a shared chat's copy for a visitor, with the visitor's
 * identity), each with runs, blocks, a conversation or traces of its own, linked to the same identity, folder and tags
 * as the visible agent where it can be. The owner (a platform admin, so the admin area is walked too) then walks every
 * GET route of the app, and the searches, with the visible things' ids: no answer names a hidden agent, its blocks or
 * the visitor's identity, and every count counts the visible ones alone. The walk comes from the route table, so a
 * list added later is walked too.
 */

const ADMIN_EMAIL = `hidden-walk-${randomBytes(4).toString('hex')}@example.com`;
/** A tag only the hidden agents carry: the tag list must not show it. */
const HIDDEN_TAG = `hidden-only-${randomBytes(3).toString('hex')}`;

/**
 * Routes that are about one hidden thing by design, where its id is the answer: the template editor's simulated
 * agent, a dataset run's per-item results, an A/B arm's simulated agent; and the ledger.
 */
const ABOUT_A_HIDDEN_AGENT = new Set([
  // The ledger records every charge, a hidden agent's included, so the balance adds up.
  'GET /api/transactions',
  'GET /api/agent-templates/:agentTemplateId/simulated-agents/default',
  'GET /api/simulated-agents/:simulatedAgentId',
  'GET /api/dataset-runs/:datasetRunId',
  'GET /api/dataset-runs/compare',
  'GET /api/ab-tests/:abTestId/templates',
]);

let ctx: AgentTestContext;
let owner: ConsoleUser;
let apiKey: string;
let params: Record<string, string>;
let hidden: { agents: Array<{ id: string; kind: AgentHiddenKind | null }>; identities: string[]; blocks: string[] };
let visibleBlocks: number;

async function v1(method: string, path: string, body?: unknown): Promise<any> {
  const answer = await ctx.call(apiKey, method, path, body);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body;
}

async function ok(response: Promise<{ status: number; body: any }>): Promise<any> {
  const answer = await response;
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer.body;
}

/** A run's trace summary, as the span store exporter writes it. */
async function traceOf(agentId: string, runId: string): Promise<void> {
  const at = new Date();
  await ctx.stack.db('traces').insert({ traceId: randomBytes(16).toString('hex'), organizationId: owner.organizationId, agentId, runId, startedAt: at, endedAt: at });
}

beforeAll(async () => {
  ctx = await startAgentTestContext({ apiEnv: { ENGRAM_ADMIN_EMAILS: ADMIN_EMAIL } });
  ctx.model.onRequest(() => ({ type: 'text', text: 'An answer.' }));
  owner = await signUp(ctx.stack, { name: 'Walker', email: ADMIN_EMAIL });
  apiKey = (await owner.client.post('/api-keys', { name: 'walk' })).body.apiKey;

  const identity = await v1('POST', '/identities/', { identifier_key: 'customer-1', name: 'Customer', identity_type: 'user' });
  const folder = await v1('POST', '/folders/', { name: 'handbook' });
  const archive = await v1('POST', '/archives/', { name: 'notes' });
  const block = await v1('POST', '/blocks/', { label: 'policy', value: 'Be kind.' });
  const agent = await v1('POST', '/agents/', {
    model: 'openai/gpt-4o-mini',
    name: 'visible-agent',
    include_base_tools: false,
    tags: ['visible-tag'],
    identity_ids: [identity.id],
    folder_ids: [folder.id],
    memory_blocks: [{ label: 'human', value: 'The user.' }],
  });
  await v1('PATCH', `/agents/${agent.id}/archives/attach/${archive.id}`);
  await v1('POST', `/agents/${agent.id}/messages`, { messages: [{ role: 'user', content: 'Hello' }] });
  const visibleRun = (await ctx.stack.db('runs').where({ agent_id: agent.id }).first('id')) as { id: string };
  const conversation = await v1('POST', `/conversations/?agent_id=${agent.id}`, {});
  const projectId = (await Agent.query(ctx.stack.db).findById(agent.id))!.projectId!;

  // The simulated agent: the template's working state carries a tag no visible agent has.
  const template = await ok(owner.client.post('/agent-templates', { name: `walk-${randomBytes(3).toString('hex')}`, agentId: agent.id }));
  await ok(owner.client.patch(`/agent-templates/${template.id}`, { tags: [HIDDEN_TAG] }));
  await ok(owner.client.post(`/agent-templates/${template.id}/versions`, { message: 'one' }));
  const simulated = await ok(owner.client.get(`/agent-templates/${template.id}/simulated-agents/default`));
  expect(simulated.agentId).toMatch(/^agent-/);
  await v1('POST', `/agents/${simulated.agentId}/messages`, { messages: [{ role: 'user', content: 'Trying the template' }] });
  await v1('POST', `/conversations/?agent_id=${simulated.agentId}`, {});

  // An evaluation's agent.
  const dataset = await ok(owner.client.post('/datasets', { name: 'questions' }));
  await ok(owner.client.post(`/datasets/${dataset.id}/items`, { createMessage: { role: 'user', content: 'A question' } }));
  const datasetRun = await ok(owner.client.post(`/datasets/${dataset.id}/runs`, { templateVersion: `${template.name}:1` }));
  // expect.poll is for tests; here the setup waits for the run's workflow to finish its one item.
  for (let status = ''; status !== 'completed'; await new Promise((resolve) => setTimeout(resolve, 200))) {
    status = (await owner.client.get(`/dataset-runs/${datasetRun.id}`)).body.run.status;
    expect(status).not.toBe('failed');
  }

  // A shared chat's copy for a signed-out visitor, and the visitor's identity.
  const chat = await ok(owner.client.put(`/projects/${projectId}/agents/${agent.id}/shared-chat/configuration`, { accessLevel: 'everyone' }));
  const visit = await fetch(`${ctx.stack.baseUrl}/api/chat/${chat.chatId}/messages/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Hi, I am a visitor' }),
  });
  expect(visit.status).toBe(200);
  await visit.text();
  expect(await SharedChatConversation.query(ctx.stack.db).forOrg(owner.organizationId).resultSize()).toBe(1);

  const agents = await Agent.query(ctx.stack.db).forOrg(owner.organizationId).whereNotNull('hiddenKind').select('id', 'hiddenKind');
  const identities = await Identity.query(ctx.stack.db).forOrg(owner.organizationId).whereNotNull('hiddenKind').select('id');
  const blocks = await ctx.stack.db('agent_blocks').whereIn('agent_id', agents.map((row) => row.id)).pluck('block_id');
  hidden = { agents: agents.map((row) => ({ id: row.id, kind: row.hiddenKind })), identities: identities.map((row) => row.id), blocks };
  expect(new Set(hidden.agents.map((row) => row.kind))).toEqual(new Set(['simulated', 'evaluation', 'visitor_copy']));
  expect(hidden.identities).toHaveLength(1);
  for (const row of await ctx.stack.db('runs').where({ organization_id: owner.organizationId }).select('id', 'agent_id')) await traceOf(row.agent_id, row.id);
  visibleBlocks = 2;

  params = {
    agent_id: agent.id,
    agentId: agent.id,
    identity_id: identity.id,
    block_id: block.id,
    block_label: 'human',
    folder_id: folder.id,
    source_id: folder.id,
    archive_id: archive.id,
    run_id: visibleRun.id,
    conversation_id: conversation.id,
    projectId,
    agentTemplateId: template.id,
    templateId: template.id,
    template: template.name,
    slug: `${template.name}:1`,
    datasetId: dataset.id,
    chatId: chat.chatId,
    organizationId: owner.organizationId,
  };
}, 300_000);

afterAll(async () => {
  await ctx?.stop();
});

/** What a hidden thing leaking into an answer looks like. */
function leaksOf(answer: WalkedResponse): string[] {
  return [
    ...hidden.agents.filter((agent) => answer.text.includes(agent.id)).map((agent) => `${agent.kind} agent ${agent.id}`),
    ...hidden.identities.filter((id) => answer.text.includes(id)).map((id) => `visitor identity ${id}`),
    ...hidden.blocks.filter((id) => answer.text.includes(id)).map((id) => `hidden agent's block ${id}`),
    // The template's own state holds the tag; the tags in use on agents must not.
    ...(answer.path.startsWith('/v1/tags') && answer.text.includes(HIDDEN_TAG) ? [`hidden agents' tag ${HIDDEN_TAG}`] : []),
  ];
}

describe('hidden agents', () => {
  it('are named by no list, search or filter route', { timeout: 600_000 }, async () => {
    const caller: Caller = { apiKey, jar: owner.client.jar };
    const routes = walkableRoutes(ctx.stack.app).filter((route) => route.method === 'GET' && !ABOUT_A_HIDDEN_AGENT.has(`${route.method} ${route.url}`));
    expect(routes.length).toBeGreaterThan(150);
    const answers: WalkedResponse[] = [];
    for (const route of routes) answers.push(await callRoute(ctx.stack.baseUrl, route, fillPath(route.url, params), caller));

    // The searches are POSTs with a body.
    const now = Math.floor(Date.now() / 1000);
    const searches: Array<[string, string, unknown]> = [
      ['/api/observability/traces', 'cookie', { startTimeUnix: now - 3600, endTimeUnix: now + 60, limit: 100 }],
      ['/v1/agents/messages/search', 'key', { query: 'Hi visitor template question', search_mode: 'fts', limit: 100 }],
      ['/v1/messages/search', 'key', { query: 'Hi visitor template question', search_mode: 'fts', limit: 100 }],
    ];
    for (const [path, auth, body] of searches) {
      const response = await fetch(`${ctx.stack.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth === 'key' ? { authorization: `Bearer ${apiKey}` } : { cookie: owner.client.jar.header()! }) },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      expect(response.status, `${path}: ${text}`).toBe(200);
      answers.push({ route: { ...routes[0]!, method: 'POST', url: path }, path, status: response.status, text });
    }
    // The walk reached the lists that would show them: the visible agent is there.
    expect(answers.filter((answer) => answer.text.includes(params.agent_id!)).length).toBeGreaterThan(20);

    const leaks = answers.flatMap((answer) => leaksOf(answer).map((leak) => `${answer.route.method} ${answer.path} → ${answer.status}: ${leak}`));
    expect(leaks).toEqual([]);
    expect(answers.filter((answer) => answer.status === 500 || answer.status === 0).map((answer) => `${answer.route.method} ${answer.path} → ${answer.status}`)).toEqual([]);
  });

  it('are counted by no count, quota or limit', async () => {
    expect(await v1('GET', '/agents/count')).toBe(1);
    expect(await v1('GET', '/identities/count')).toBe(1);
    expect(await v1('GET', '/blocks/count')).toBe(visibleBlocks);
    expect((await v1('GET', '/agents/')).map((agent: { id: string }) => agent.id)).toEqual([params.agent_id]);
    const quotas = await ok(owner.client.get('/organizations/self/quotas'));
    expect(quotas.agents.used).toBe(1);
    const full = await ok(owner.client.get('/organizations/self/quotas/full'));
    expect(full).toMatchObject({ agents: { used: 1 }, identities: { used: 1 }, memoryBlocks: { used: visibleBlocks } });
    const statistics = await ok(owner.client.get(`/admin/organizations/${owner.organizationId}/statistics`));
    expect(statistics.agents).toBe(1);
    const projectAgents = await ok(owner.client.get(`/projects/${params.projectId}/source-agents`));
    expect(JSON.stringify(projectAgents)).toContain(params.agent_id);
    expect(hidden.agents.some((agent) => JSON.stringify(projectAgents).includes(agent.id))).toBe(false);
  });
});
