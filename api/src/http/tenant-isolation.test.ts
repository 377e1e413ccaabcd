import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Organization, PaymentCard, Step, VerifiedDomain, newId } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { inviteMember, signUp, type ConsoleUser } from '../routes/console/console-test-support.js';
import { connectThroughDevice, createTestOAuthApp } from '../routes/console/oauth-test-support.js';
import { UNMAPPED } from './permissions.js';
import { callRoute, fillPath, pathParams, walkableRoutes, type Caller, type WalkedResponse } from './route-walk-test-support.js';

/**
 * Organization B walks every registered route of the app (console and /v1), with B's own
 * credentials and organization A's ids in the path, and must learn nothing about A. The walk comes
 * from the route table, so a route added later is walked too.
 */

let stack: TestStack;
let model: ScriptedModelServer;

/** Marks every name organization A gives its things, so any leak of them shows. */
const TAG = `tenant-a-${randomBytes(4).toString('hex')}`;

/** Routes that end B's own session or organization, walked last so the rest still has B signed in. */
const ENDS_THE_CALLER = ['POST /api/organizations/self/leave', 'DELETE /api/organizations/self', 'DELETE /api/user/self', 'POST /api/user/logout'];

type TenantA = { admin: ConsoleUser; apiKey: string; params: Record<string, string>; secrets: string[] };

let tenantA: TenantA;
let callerB: Caller;

async function v1(key: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${stack.baseUrl}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  return text ? JSON.parse(text) : undefined;
}

/** Organization A with one of everything a route parameter can name. */
async function populateTenantA(): Promise<TenantA> {
  const admin = await signUp(stack, { name: `${TAG} admin`, email: `${TAG}-admin@example.com` });
  await Organization.query(stack.db).findById(admin.organizationId).patch({ billingTier: 'scale', name: `${TAG} org` });
  const key = await admin.client.post('/api-keys', { name: `${TAG} key` });
  const apiKey: string = key.body.apiKey;

  const agent = await v1(apiKey, 'POST', '/agents/', {
    model: 'openai/gpt-4o-mini',
    name: `${TAG}-agent`,
    memory_blocks: [{ label: 'human', value: `${TAG} private memory` }],
  });
  const run = await v1(apiKey, 'POST', `/agents/${agent.id}/messages/async`, { messages: [{ role: 'user', content: `${TAG} hello` }] });
  const agentRow = await Agent.query(stack.db).findById(agent.id);
  const step = await Step.query(stack.db)
    .insert({ id: newId('step'), organizationId: admin.organizationId, runId: run.id, agentId: agent.id, stepIndex: 0 })
    .returning('*');
  // A's trace of that run, as the span store exporter writes it.
  const traceId = randomBytes(16).toString('hex');
  const traceStart = new Date();
  await stack.db('traces').insert({ traceId, organizationId: admin.organizationId, agentId: agent.id, runId: run.id, startedAt: traceStart, endedAt: traceStart });
  await stack.db('trace_spans').insert({
    traceId,
    spanId: randomBytes(8).toString('hex'),
    organizationId: admin.organizationId,
    name: `invoke_agent ${TAG}`,
    kind: 'internal',
    serviceName: 'engram-worker',
    startedAt: traceStart,
    startUnixNano: String(BigInt(traceStart.getTime()) * 1_000_000n),
    durationNs: '1000',
    statusCode: 'ok',
    runId: run.id,
  });
  const provider = await v1(apiKey, 'POST', '/providers/', { name: `${TAG}-provider`, provider_type: 'openai', api_key: `sk-${TAG}` });
  const identity = await v1(apiKey, 'POST', '/identities/', { identifier_key: `${TAG}-identity`, name: `${TAG} identity`, identity_type: 'user' });
  const standaloneBlock = await v1(apiKey, 'POST', '/blocks/', { label: `${TAG}-block`, value: `${TAG} block value` });
  const archive = await v1(apiKey, 'POST', '/archives/', { name: `${TAG}-archive` });
  const folder = await v1(apiKey, 'POST', '/folders/', { name: `${TAG}-folder` });
  const form = new FormData();
  form.append('file', new Blob([`${TAG} file text`], { type: 'text/plain' }), `${TAG}.txt`);
  const uploaded = await fetch(`${stack.baseUrl}/v1/folders/${folder.id}/upload`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
  expect(uploaded.status).toBe(200);
  const file = (await uploaded.json()) as { id: string };
  const sandbox = await v1(apiKey, 'POST', '/sandbox-config/local/default');
  const sandboxVariable = await v1(apiKey, 'POST', `/sandbox-config/${sandbox.id}/environment-variable`, { key: 'A_SECRET', value: `${TAG}-value` });

  const analyst = await inviteMember(stack, admin, 'analyst');
  const project = await admin.client.post('/projects', { name: `${TAG} project` });
  const invite = await admin.client.post('/organizations/self/invited-members', { email: `${TAG}-invitee@example.com` });
  const domain = await VerifiedDomain.query(stack.db)
    .insert({ id: randomUUID(), organizationId: admin.organizationId, domain: `${TAG}.example.com` })
    .returning('*');
  const rule = await admin.client.post('/organizations/self/invite-rules', { domainId: domain.id, role: 'analyst' });
  const variable = await admin.client.post('/environment-variables', { key: `${TAG.replace(/-/g, '_')}_KEY`, value: `${TAG}-env` });
  const server = await admin.client.post('/development-servers', { name: `${TAG} server`, url: 'http://localhost:9999' });
  await admin.client.put(`/ade-preferences/${agent.id}`, { displayConfig: { note: `${TAG} layout` } });
  const clientToken = await v1(apiKey, 'POST', '/client-side-access-tokens', {
    hostname: 'https://tenant-a.example.com',
    policy: [{ id: agent.id, type: 'agent', access: ['read_messages'] }],
  });
  const batch = await v1(apiKey, 'POST', '/messages/batches', { requests: [{ agent_id: agent.id, messages: [{ role: 'user', content: `${TAG} batch` }] }] });
  const scheduled = await v1(apiKey, 'POST', `/agents/${agent.id}/schedule`, {
    messages: [{ role: 'user', content: `${TAG} scheduled` }],
    schedule: { type: 'recurring', cron_expression: '0 3 1 1 *' },
  });
  // A template with a saved version, a deployment, a migration, a block template and its simulated agent.
  const templateName = `${TAG}-template`;
  const template = await admin.client.post('/agent-templates', { name: templateName, agentId: agent.id });
  const blockTemplate = await admin.client.post(`/agent-templates/${template.body.id}/block-templates`, { label: `${TAG}-policy`, value: `${TAG} policy`, limit: 200 });
  const version = await admin.client.post(`/agent-templates/${template.body.id}/versions`, { message: `${TAG} version` });
  const deployment = await admin.client.post(`/template-versions/${templateName}:1/agents`, { memoryVariables: {} });
  const migration = await admin.client.post(`/template-versions/${templateName}:1/migrate`, {});
  const simulated = await admin.client.get(`/agent-templates/${template.body.id}/simulated-agents/default`);
  for (const made of [template, blockTemplate, version, deployment, migration, simulated]) expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
  // Shared at levels that admit A's members only: B, signed in elsewhere, must learn nothing from the public routes.
  const sharedChat = await admin.client.put(`/projects/${agentRow!.projectId}/agents/${agent.id}/shared-chat/configuration`, { accessLevel: 'organization' });
  const launchLink = await admin.client.post(`/agent-templates/${template.body.id}/launch-link`, { accessLevel: 'organization' });
  const agentFile = await admin.client.post('/agent-files', {
    agentId: agent.id,
    name: `${TAG}-file`.slice(0, 25),
    description: `${TAG} description`,
    summary: `${TAG} summary`,
    accessLevel: 'organization',
  });
  for (const made of [sharedChat, launchLink, agentFile]) expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
  // A dataset with an item, and a run of it against the template's version 1.
  const dataset = await admin.client.post('/datasets', { name: `${TAG}-dataset`, description: `${TAG} dataset` });
  const datasetItem = await admin.client.post(`/datasets/${dataset.body.id}/items`, { createMessage: { role: 'user', content: `${TAG} question` }, expectedAnswer: `${TAG} answer` });
  const datasetRun = await admin.client.post(`/datasets/${dataset.body.id}/runs`, { templateVersion: `${templateName}:1` });
  for (const made of [dataset, datasetItem, datasetRun]) expect(made.status, JSON.stringify(made.body)).toBe(201);
  // An A/B test with the template's version 1 as an arm.
  const abTest = await admin.client.post('/ab-tests', { name: `${TAG}-ab-test` });
  const abArm = await admin.client.post(`/ab-tests/${abTest.body.id}/templates`, { templateName: `${templateName}:1`, weight: 50 });
  for (const made of [abTest, abArm]) expect(made.status, JSON.stringify(made.body)).toBe(201);
  const conversation = await v1(apiKey, 'POST', `/conversations/?agent_id=${agent.id}`, { summary: `${TAG} conversation` });
  const group = await v1(apiKey, 'POST', '/groups/', { agent_ids: [agent.id], description: `${TAG} group`, shared_block_ids: [standaloneBlock.id] });
  // A saved card, as a confirmed setup intent leaves it (this stack has no Stripe).
  const card = await PaymentCard.query(stack.db)
    .insert({ organizationId: admin.organizationId, id: `pm_${TAG.replace(/-/g, '_')}`, brand: 'visa', last4: '4242', expMonth: 12, expYear: 2099, name: null, billingAddress: {} } as unknown as PaymentCard)
    .returning('*');
  const oauthApp = await createTestOAuthApp(stack, { grantTypes: ['device_code'], isPublicClient: true, name: `${TAG} app` });
  const connection = await connectThroughDevice(stack, admin, oauthApp);

  const params: Record<string, string> = {
    agent_id: agent.id,
    agentId: agent.id,
    run_id: run.id,
    job_id: run.id,
    batch_id: batch.id,
    scheduled_message_id: scheduled.id,
    group_id: group.id,
    conversation_id: conversation.id,
    step_id: step.id,
    traceId,
    message_id: agentRow!.messageIds[0]!,
    block_id: standaloneBlock.id,
    block_label: 'human',
    tool_id: agent.tools[0].id,
    tool_name: agent.tools[0].name,
    provider_id: provider.id,
    identity_id: identity.id,
    archive_id: archive.id,
    folder_id: folder.id,
    source_id: folder.id,
    file_id: file.id,
    sandbox_config_id: sandbox.id,
    env_var_id: sandboxVariable.id,
    projectId: project.body.id,
    apiKeyId: key.body.id,
    memberId: analyst.userId,
    inviteId: invite.body.id,
    ruleId: rule.body.id,
    environmentVariableId: variable.body.id,
    key: variable.body.key,
    developmentServerId: server.body.developmentServer.id,
    methodId: card.id,
    // A client-side token by the id lists show (the whole token never leaves A).
    token: clientToken.token.split('.')[0],
    clientId: oauthApp.clientId,
    connectionId: connection.connectionId,
    agentTemplateId: template.body.id,
    templateId: template.body.id,
    entityId: template.body.entityId,
    template: templateName,
    slug: `${templateName}:1`,
    deployedAgentTemplateId: version.body.version.id,
    deployment_id: deployment.body.deploymentId,
    workflowId: migration.body.workflowId,
    blockTemplateId: blockTemplate.body.blockTemplate.id,
    simulatedAgentId: simulated.body.id,
    chatId: sharedChat.body.chatId,
    launchId: launchLink.body.launchId,
    agentFileId: agentFile.body.id,
    datasetId: dataset.body.id,
    datasetItemId: datasetItem.body.id,
    datasetRunId: datasetRun.body.id,
    abTestId: abTest.body.id,
    ab_test_id: abTest.body.id,
    abTestTemplateId: abArm.body.id,
    // An invite code is a credential, not an id: whoever holds A's code may see that invite, by design.
    // B probes with a code of its own making instead.
    inviteCode: randomBytes(24).toString('base64url'),
  };
  const secrets = [
    TAG,
    ...Object.entries(params)
      .filter(([name]) => !['block_label', 'tool_name', 'inviteCode'].includes(name))
      .map(([, value]) => value),
    admin.userId,
    admin.organizationId,
    invite.body.inviteCode,
  ];
  return { admin, apiKey, params, secrets };
}

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
    inProcessWorker: false,
  });
  tenantA = await populateTenantA();
  const b = await signUp(stack, { name: 'Tenant B' });
  callerB = { apiKey: (await b.client.post('/api-keys', { name: 'b key' })).body.apiKey, jar: b.client.jar };
});

afterAll(async () => {
  await stack?.stop();
  await model?.close();
});

describe('tenant isolation', () => {
  it('gives every registered route an access rule of its own or of its family', () => {
    const unmapped = walkableRoutes(stack.app).filter((route) => route.rule === UNMAPPED);
    expect(unmapped.map((route) => `${route.method} ${route.url}`)).toEqual([]);
  });

  it("answers B 404 or 403 on every route that names one of A's resources, and no route shows B anything of A's", { timeout: 300_000 }, async () => {
    const routes = walkableRoutes(stack.app);
    const last = (route: { method: string; url: string }) => ENDS_THE_CALLER.includes(`${route.method} ${route.url}`);
    const ordered = [...routes.filter((route) => !last(route)), ...ENDS_THE_CALLER.flatMap((key) => routes.filter((route) => `${route.method} ${route.url}` === key))];
    expect(ordered.length).toBeGreaterThan(100);

    const answers: WalkedResponse[] = [];
    for (const route of ordered) {
      answers.push(await callRoute(stack.baseUrl, route, fillPath(route.url, tenantA.params), callerB));
    }

    const leaks = answers
      .filter((answer) => tenantA.secrets.some((secret) => answer.text.includes(secret)))
      .map((answer) => `${answer.route.method} ${answer.path} → ${answer.status}: ${answer.text.slice(0, 200)}`);
    expect(leaks).toEqual([]);

    const crashedOrHung = answers
      .filter((answer) => answer.status === 500 || answer.status === 0)
      .map((answer) => `${answer.route.method} ${answer.path} → ${answer.status}`);
    expect(crashedOrHung).toEqual([]);

    const reached = answers
      .filter((answer) => answer.route.rule.kind !== 'public' && pathParams(answer.route.url).length > 0)
      .filter((answer) => answer.status !== 404 && answer.status !== 403)
      .map((answer) => `${answer.route.method} ${answer.path} → ${answer.status}: ${answer.text.slice(0, 200)}`);
    expect(reached).toEqual([]);
  });

  it("leaves A's data as it was", async () => {
    const { admin, apiKey, params } = tenantA;
    expect((await v1(apiKey, 'GET', `/agents/${params.agent_id}`)).name).toBe(`${TAG}-agent`);
    expect((await v1(apiKey, 'GET', `/blocks/${params.block_id}`)).value).toBe(`${TAG} block value`);
    expect((await v1(apiKey, 'GET', `/providers/${params.provider_id}`)).name).toBe(`${TAG}-provider`);
    expect(await v1(apiKey, 'GET', `/groups/${params.group_id}`)).toMatchObject({ description: `${TAG} group`, agent_ids: [params.agent_id], shared_block_ids: [params.block_id] });
    expect((await v1(apiKey, 'GET', `/messages/batches/${params.batch_id}`)).id).toBe(params.batch_id);
    expect((await v1(apiKey, 'GET', `/conversations/${params.conversation_id}`)).summary).toBe(`${TAG} conversation`);
    expect((await v1(apiKey, 'GET', `/agents/${params.agent_id}/schedule/${params.scheduled_message_id}`)).id).toBe(params.scheduled_message_id);
    expect((await admin.client.get(`/projects/${params.projectId}`)).status).toBe(200);
    expect((await admin.client.get(`/api-keys/${params.apiKeyId}`)).status).toBe(200);
    expect((await admin.client.get(`/development-servers/${params.developmentServerId}`)).status).toBe(200);
    expect((await admin.client.get(`/environment-variables/${params.key}`)).status).toBe(200);
    expect((await admin.client.get('/organizations/self/members')).body.members).toHaveLength(2);
    expect((await admin.client.get('/organizations/self/invited-members')).body.members).toHaveLength(1);
    expect((await admin.client.get('/organizations/self/invite-rules')).body.rules).toHaveLength(1);
    expect((await admin.client.get(`/ade-preferences/${params.agentId}`)).body).toEqual({ displayConfig: { note: `${TAG} layout` } });
    const template = await admin.client.get(`/agent-templates/${params.agentTemplateId}`);
    expect(template.body).toMatchObject({ name: params.template, latestDeployedVersion: '1' });
    expect((await admin.client.get(`/block-templates/${params.blockTemplateId}`)).body.value).toBe(`${TAG} policy`);
    expect((await admin.client.get(`/simulated-agents/${params.simulatedAgentId}`)).body).toMatchObject({ isCorrupted: false });
    expect((await admin.client.get(`/datasets/${params.datasetId}/items/${params.datasetItemId}`)).body.expectedAnswer).toBe(`${TAG} answer`);
    expect((await admin.client.get(`/dataset-runs/${params.datasetRunId}`)).body.results).toHaveLength(1);
    expect((await admin.client.get(`/ab-tests/${params.abTestId}/templates`)).body.templates).toHaveLength(1);
    expect((await v1(apiKey, 'GET', `/_internal_templates/deployment/${params.deployment_id}`)).total_count).toBe(1);
    expect((await admin.client.get(`/chat/${params.chatId}`)).body).toMatchObject({ accessLevel: 'organization', agentId: params.agentId });
    expect((await admin.client.get(`/agent-templates/${params.agentTemplateId}/launch-link`)).body.accessLevel).toBe('organization');
    expect((await admin.client.get(`/agent-files/${params.agentFileId}/metadata`)).body).toMatchObject({ accessLevel: 'organization', downloadCount: 0, upvotes: 0, downvotes: 0 });
    expect((await v1(apiKey, 'GET', '/client-side-access-tokens')).tokens.map((token: { token: string }) => token.token)).toEqual([params.token]);
    expect((await admin.client.get(`/user/self/connected-apps/${params.clientId}/connections?status=active`)).body.connections).toHaveLength(1);
    expect((await new ConsoleClient(stack.baseUrl).post('/user/login', { email: admin.email, password: admin.password })).status).toBe(200);
  });
});
